package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
)

// otelModule holds the OpenTelemetry interceptor (package mcpotel) and its
// OTLP setup (package otlp) that an `init --otel` scaffold imports.
const otelModule = selfModule + "/otel"

// requireOTel makes the module require the otel module, the way
// pinGenerator requires mcpgen: from the checkout through a replace (and its
// go.sum lines) when mcpgen runs from one, else at the published version. The
// OpenTelemetry versions are the ones the otel module pins.
// pkg is the scaffold's main package, whose imports go.mod must cover.
func requireOTel(ctx context.Context, root, pkg string, stdout, stderr io.Writer) error {
	mod, err := readGoMod(ctx, filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	for _, r := range mod.Require {
		if r.Path == otelModule {
			return listDeps(ctx, root, pkg)
		}
	}
	src := checkoutDir()
	if src == "" {
		if err := goCommand(ctx, root, stderr, "get", otelModule+"/otlp@"+publishedVersion()); err != nil {
			return err
		}
		return listDeps(ctx, root, pkg)
	}
	dir := filepath.Join(src, "otel")
	if err := goCommand(ctx, root, stderr, "mod", "edit", "-replace="+otelModule+"="+dir, "-require="+otelModule+"@"+unpublishedVersion); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "go.mod: replace %s => %s\n", otelModule, dir)
	if err := seedGoSum(root, dir); err != nil {
		return err
	}
	return listDeps(ctx, root, pkg)
}

// listDeps records the dependencies of pkgs in go.mod and go.sum. -e: the
// tools package does not compile until go generate, which changes nothing
// about its imports.
func listDeps(ctx context.Context, root string, pkgs ...string) error {
	list := exec.CommandContext(ctx, "go", append([]string{"list", "-mod=mod", "-deps", "-e"}, pkgs...)...)
	list.Dir = root
	var out bytes.Buffer
	list.Stderr = &out
	if err := list.Run(); err != nil {
		return fmt.Errorf("go list -mod=mod -deps %v (in %s): %w\n%s", pkgs, root, err, out.Bytes())
	}
	return nil
}
