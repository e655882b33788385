package main

// The go.mod plumbing of init: requiring mcpgen and its optional modules
// (oauth, redisstore, otel) from this checkout through a replace when mcpgen
// runs from one, so that the project builds offline, else at the published
// version; and pinning the generator (and the development issuer) as tools.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"runtime/debug"
	"strings"
)

// pinGenerator makes the module require mcpgen (runtime and generator) and
// pins cmd/mcpgen with a tool directive. A module that already requires
// mcpgen keeps its version (and its replace, if any).
//
// It edits go.mod with `go mod edit` and then lets the go command complete
// go.mod and go.sum from the packages' imports (`go list -mod=mod`) rather
// than using `go get`: for a version that exists only behind a replace, go
// get still asks the module proxy about the package paths, which fails
// offline.
func pinGenerator(ctx context.Context, root string, stdout, stderr io.Writer) error {
	mod, err := readGoMod(ctx, filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	required := false
	for _, r := range mod.Require {
		required = required || r.Path == selfModule
	}
	tool := selfModule + "/cmd/mcpgen"
	if !required {
		src := checkoutDir()
		if src == "" {
			version := publishedVersion()
			if err := goCommand(ctx, root, stderr, "get", "-tool", tool+"@"+version); err != nil {
				return err
			}
			return goCommand(ctx, root, stderr, "get", selfModule+"/runtime@"+version)
		}
		if err := goCommand(ctx, root, stderr, "mod", "edit", "-replace="+selfModule+"="+src, "-require="+selfModule+"@"+unpublishedVersion); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "go.mod: replace %s => %s\n  (mcpgen runs from that source checkout and the module is not published; the replace builds the project offline against it)\n", selfModule, src)
		if err := seedGoSum(root, src); err != nil {
			return err
		}
	}
	if err := goCommand(ctx, root, stderr, "mod", "edit", "-tool="+tool); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "go.mod: tool %s (go generate runs it as go tool mcpgen)\n", tool)

	// Record the generator's and runtime's dependencies in go.mod and go.sum.
	list := exec.CommandContext(ctx, "go", "list", "-mod=mod", "-deps", tool, selfModule+"/runtime")
	list.Dir = root
	var out bytes.Buffer
	list.Stderr = &out
	if err := list.Run(); err != nil {
		return fmt.Errorf("go list -mod=mod -deps %s %s/runtime (in %s): %w\n%s", tool, selfModule, root, err, out.Bytes())
	}
	return nil
}

// seedGoSum adds the checkout's go.sum lines that the module's go.sum lacks.
// The go command then finds the checksums of mcpgen's dependencies there
// instead of asking the checksum database, which an offline machine (or one
// that reaches only a module proxy) cannot reach; the lines were verified
// when they entered the checkout's go.sum.
func seedGoSum(root, checkout string) error {
	theirs, err := os.ReadFile(filepath.Join(checkout, "go.sum"))
	if err != nil {
		return fmt.Errorf("reading the checkout's go.sum: %w", err)
	}
	file := filepath.Join(root, "go.sum")
	ours, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(ours), "\n") {
		have[line] = true
	}
	var add []byte
	if len(ours) > 0 && ours[len(ours)-1] != '\n' {
		add = append(add, '\n')
	}
	for _, line := range strings.Split(string(theirs), "\n") {
		if line != "" && !have[line] {
			add = append(add, line+"\n"...)
			have[line] = true
		}
	}
	if len(add) == 0 {
		return nil
	}
	return os.WriteFile(file, append(ours, add...), 0o644)
}

// goMod is the part of `go mod edit -json` that init reads.
type goMod struct {
	Module  struct{ Path string }
	Require []struct{ Path, Version string }
}

func readGoMod(ctx context.Context, file string) (*goMod, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "mod", "edit", "-json", file)
	cmd.Stdout = &out
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("reading %s: %v: %s", file, err, strings.TrimSpace(errOut.String()))
	}
	var m goMod
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return &m, nil
}

// goCommand runs the go command in dir, echoing it to w with the go
// command's own messages (go: added ...).
func goCommand(ctx context.Context, dir string, w io.Writer, args ...string) error {
	fmt.Fprintf(w, "$ go %s\n", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Stdout = w
	cmd.Stderr = w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s (in %s): %w", strings.Join(args, " "), dir, err)
	}
	return nil
}

// findGoMod returns the go.mod of the module holding dir (which need not
// exist yet), or "" when dir is outside any module.
func findGoMod(dir string) string {
	for d := dir; ; {
		f := filepath.Join(d, "go.mod")
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			return f
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// checkoutDir returns the root of the mcpgen source tree this binary was
// built from, or "" when it was built from a module download (the module
// cache). The compiler records this file's absolute path; a -trimpath build
// has none, and then a checkout around the working directory is used (go run
// ./cmd/mcpgen from the repository).
func checkoutDir() string {
	if _, file, _, ok := goruntime.Caller(0); ok && filepath.IsAbs(file) {
		if root := filepath.Dir(filepath.Dir(filepath.Dir(file))); isCheckout(root) { // cmd/mcpgen/init.go
			return root
		}
		return ""
	}
	if wd, err := os.Getwd(); err == nil {
		if gomod := findGoMod(wd); gomod != "" && isCheckout(filepath.Dir(gomod)) {
			return filepath.Dir(gomod)
		}
	}
	return ""
}

// isCheckout reports whether root is a source tree of mcpgen (not a module
// cache copy, whose folder is named module@version).
func isCheckout(root string) bool {
	if strings.Contains(filepath.Base(root), "@") {
		return false
	}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || modulePathOf(data) != selfModule {
		return false
	}
	st, err := os.Stat(filepath.Join(root, "runtime"))
	return err == nil && st.IsDir()
}

var moduleLine = regexp.MustCompile(`(?m)^module\s+"?([^"\s]+)"?\s*$`)

func modulePathOf(gomod []byte) string {
	if m := moduleLine.FindSubmatch(gomod); m != nil {
		return string(m[1])
	}
	return ""
}

// publishedVersion is the mcpgen version to require when no checkout is at
// hand: the version this binary was built at, or "latest".
func publishedVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "latest"
	}
	mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
	for _, m := range mods {
		if m.Path == selfModule && strings.HasPrefix(m.Version, "v") {
			return m.Version
		}
	}
	return "latest"
}

// Modules of this repository that a scaffold requires only with a switch:
// each lives in its own module so that the main module (runtime and
// generator) stays free of their dependencies.
const (
	// oauthModule holds the JWT and introspection verifiers and the
	// development issuer (--auth).
	oauthModule = selfModule + "/oauth"
	// devIssuerTool is the development issuer's command, pinned as a tool
	// in --auth projects: go tool mcpgen-dev-issuer.
	devIssuerTool = oauthModule + "/cmd/mcpgen-dev-issuer"
	// redisModule keeps sessions, events and the session bus in Redis (--redis).
	redisModule = selfModule + "/redisstore"
	// otelModule holds the OpenTelemetry interceptor (package mcpotel) and
	// its OTLP setup (package otlp) (--otel).
	otelModule = selfModule + "/otel"
)

// requireModule makes the module at root require mod, a module of this
// repository in folder sub of the checkout, the way pinGenerator requires
// mcpgen (which must run first: these modules require mcpgen, and only the
// project's own replace can point that at a checkout): from the checkout
// through a replace, with its go.sum lines, when mcpgen runs from one, else
// at the published version of pkg. Then go.mod lists every module the
// project's packages pkgs build from (go list -mod=mod; -e, because the
// tools package compiles only after go generate).
func requireModule(ctx context.Context, root, mod, sub, pkg string, pkgs []string, stdout, stderr io.Writer) error {
	have, err := readGoMod(ctx, filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	required := map[string]bool{}
	for _, r := range have.Require {
		required[r.Path] = true
	}
	if !required[mod] {
		src := checkoutDir()
		if src == "" {
			if err := goCommand(ctx, root, stderr, "get", pkg+"@"+publishedVersion()); err != nil {
				return err
			}
			return listDeps(ctx, root, pkgs...)
		}
		dir := filepath.Join(src, sub)
		if err := goCommand(ctx, root, stderr, "mod", "edit", "-replace="+mod+"="+dir, "-require="+mod+"@"+unpublishedVersion); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "go.mod: replace %s => %s\n", mod, dir)
		if err := seedGoSum(root, dir); err != nil {
			return err
		}
		// The project must list the modules that provide the packages it
		// builds (go-jose, go-redis, ...): go list adds no requirement that
		// the module graph already holds, pruned or not.
		theirs, err := readGoMod(ctx, filepath.Join(dir, "go.mod"))
		if err != nil {
			return err
		}
		edit := []string{"mod", "edit"}
		for _, r := range theirs.Require {
			if !strings.HasPrefix(r.Path, selfModule) && !required[r.Path] {
				edit = append(edit, "-require="+r.Path+"@"+r.Version)
			}
		}
		if len(edit) > 2 {
			if err := goCommand(ctx, root, stderr, edit...); err != nil {
				return err
			}
		}
	}
	return listDeps(ctx, root, pkgs...)
}

// pinTool adds a tool directive for the command pkg (go tool NAME).
func pinTool(ctx context.Context, root, pkg string, stdout, stderr io.Writer) error {
	if err := goCommand(ctx, root, stderr, "mod", "edit", "-tool="+pkg); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "go.mod: tool %s (go tool %s)\n", pkg, filepath.Base(pkg))
	return nil
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
