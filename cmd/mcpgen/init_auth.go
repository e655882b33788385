package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
)

// oauthModule holds the JWT and introspection verifiers; a scaffold made with
// --auth requires it, so the main module stays free of OAuth dependencies.
const oauthModule = selfModule + "/oauth"

// checkIssuer checks the --auth value: an absolute http(s) issuer URL
// without query or fragment ("" is no authorization).
func checkIssuer(issuer string) error {
	if issuer == "" {
		return nil
	}
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" ||
		strings.ContainsAny(issuer, "\"\\ ") {
		return fmt.Errorf("--auth %q: want the issuer URL of an authorization server, such as https://auth.example.com", issuer)
	}
	return nil
}

// pinOAuth makes the module require the oauth module, like pinGenerator
// does for mcpgen (which must run first: the oauth module requires mcpgen,
// and only the scaffold's own replace can point that at a checkout): from
// this checkout through a replace when mcpgen runs from one, else at the
// published version; then go list completes go.mod and go.sum.
func pinOAuth(ctx context.Context, root string, stdout, stderr io.Writer) error {
	mod, err := readGoMod(ctx, filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	for _, r := range mod.Require {
		if r.Path == oauthModule {
			return nil
		}
	}
	src := checkoutDir()
	if src == "" {
		return goCommand(ctx, root, stderr, "get", oauthModule+"@"+publishedVersion())
	}
	dir := filepath.Join(src, "oauth")
	if err := goCommand(ctx, root, stderr, "mod", "edit", "-replace="+oauthModule+"="+dir, "-require="+oauthModule+"@"+unpublishedVersion); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "go.mod: replace %s => %s\n", oauthModule, dir)
	if err := seedGoSum(root, dir); err != nil {
		return err
	}
	// The module must list the modules that provide the packages it builds,
	// go-jose among them; go list adds no requirement that is not missing
	// from the module graph.
	theirs, err := readGoMod(ctx, filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	edit := []string{"mod", "edit"}
	for _, r := range theirs.Require {
		if !strings.HasPrefix(r.Path, selfModule) {
			edit = append(edit, "-require="+r.Path+"@"+r.Version)
		}
	}
	if len(edit) > 2 {
		if err := goCommand(ctx, root, stderr, edit...); err != nil {
			return err
		}
	}
	list := exec.CommandContext(ctx, "go", "list", "-mod=mod", "-deps", oauthModule)
	list.Dir = root
	var out bytes.Buffer
	list.Stderr = &out
	if err := list.Run(); err != nil {
		return fmt.Errorf("go list -mod=mod -deps %s (in %s): %w\n%s", oauthModule, root, err, out.Bytes())
	}
	return nil
}
