package main

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
	"path"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpgen/mcpgen/templates"
)

const (
	// selfModule is this repository's module: the scaffold requires it for
	// the runtime and pins its cmd/mcpgen as a Go tool.
	selfModule = "github.com/mcpgen/mcpgen"
	// unpublishedVersion is what a scaffold requires when a replace points
	// the module at a local checkout (the version is never downloaded).
	unpublishedVersion = "v0.0.0-00010101000000-000000000000"
)

func newInitCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var module, authIssuer string
	var withOTel, withApp bool
	cmd := &cobra.Command{
		Use:   "init [dir]",
		Short: "Scaffold an MCP server project (schemas, handlers, main.go) into dir",
		Long: `init writes a small MCP server into dir (default "."): example tool and
elicitation schemas in notes/schemas/, an agent skill in notes/skills/, the
go:generate line that turns them into Go, handler stubs that are yours to edit
(generate never touches them), tests of them that run in every protocol era
(notes/tools_test.go), a main.go serving Streamable HTTP at /mcp (or stdio with
-stdio), and a README.

Inside an existing module it only adds files, and pins the generator in the
module's go.mod (a tool directive: go tool mcpgen). In a folder outside any
module it also creates go.mod. It never overwrites: when a file it would
write already exists, it lists them and changes nothing.

With --auth ISSUER, main.go serves HTTP as an OAuth 2.1 resource server
that accepts JWT access tokens of that authorization server (the module then
also requires github.com/mcpgen/mcpgen/oauth); the README explains it.

When mcpgen runs from a source checkout (the module is not published), the
project's go.mod gets a replace directive pointing at that checkout, so the
project builds offline.

With --otel the server also gets telemetry.go and a -otel flag: OpenTelemetry
traces and metrics, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT
is set. The project then requires github.com/mcpgen/mcpgen/otel and the
OpenTelemetry SDK and OTLP/HTTP exporters.

With --app the notes get an interface: show_notes names an MCP Apps page
(notes/schemas/notes_view.html, embedded in the server) that hosts with MCP
Apps render, and the page opens a note through open_note, a tool only the
page calls. The page speaks the MCP Apps protocol itself and loads nothing
from the network; the README shows how to open it in a host.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if err := checkIssuer(authIssuer); err != nil {
				return usageError{err}
			}
			if err := scaffold(cmd.Context(), dir, module, scaffoldOptions{authIssuer: authIssuer, otel: withOTel, app: withApp}, stdout, stderr); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "\nNext:\n  cd %s\n  go generate ./...            # notes/schemas -> notes/mcpgen_*.go and notes/notestest\n  go test ./...                # notes/tools_test.go, in both protocol eras\n  go run . -addr 127.0.0.1:8080 # Streamable HTTP at http://127.0.0.1:8080/mcp (or: go run . -stdio)\nREADME.md there shows how to call it with curl and how to connect a desktop client.\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&authIssuer, "auth", "", "issuer `URL` of an OAuth 2.1 authorization server: the HTTP server then requires its access tokens")
	cmd.Flags().BoolVar(&withOTel, "otel", false, "add OpenTelemetry traces and metrics behind the server's -otel flag (requires the mcpgen otel module)")
	cmd.Flags().BoolVar(&withApp, "app", false, "give the notes an interface: an MCP Apps page that hosts render (show_notes, open_note)")
	cmd.Flags().StringVar(&module, "module", "", "module path for the new go.mod (default: the folder's name); only when dir is outside any module")
	return cmd
}

// scaffoldOptions are what init adds to the plain project.
type scaffoldOptions struct {
	authIssuer string // --auth: an OAuth 2.1 resource server for this issuer (init_auth.go)
	otel       bool   // --otel: OpenTelemetry behind the server's -otel flag
	app        bool   // --app: an MCP Apps page for the notes
}

// scaffold writes the template project into dir and pins the generator in
// the module's go.mod. It checks everything before writing anything.
func scaffold(ctx context.Context, dir, module string, opt scaffoldOptions, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	// moduleRoot is the folder holding go.mod, importPath the import path of dir.
	var moduleRoot, importPath string
	gomod := findGoMod(abs)
	newModule := gomod == ""
	if newModule {
		if module == "" {
			module = defaultModulePath(abs)
		}
		moduleRoot, importPath = abs, module
	} else {
		if module != "" {
			return usageError{fmt.Errorf("--module only applies to a new go.mod, and %s is inside the module of %s", dir, gomod)}
		}
		mod, err := readGoMod(ctx, gomod)
		if err != nil {
			return err
		}
		if mod.Module.Path == selfModule {
			return fmt.Errorf("%s is inside the mcpgen module itself; scaffold outside it (mcpgen init /some/new/folder)", dir)
		}
		moduleRoot = filepath.Dir(gomod)
		rel, err := filepath.Rel(moduleRoot, abs)
		if err != nil {
			return err
		}
		importPath = mod.Module.Path
		if rel != "." {
			importPath += "/" + filepath.ToSlash(rel)
		}
	}

	files, err := templates.Project(templates.Data{Name: serverName(importPath), ImportPath: importPath, AuthIssuer: opt.authIssuer, OTel: opt.otel, App: opt.app})
	if err != nil {
		return err
	}
	var existing []string
	for _, f := range files {
		_, err := os.Lstat(filepath.Join(abs, filepath.FromSlash(f.Path)))
		switch {
		case err == nil:
			existing = append(existing, f.Path)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	if len(existing) > 0 {
		fmt.Fprintf(stderr, "mcpgen init: these files already exist in %s:\n", dir)
		for _, e := range existing {
			fmt.Fprintf(stderr, "  %s\n", e)
		}
		return fmt.Errorf("init never overwrites; nothing was changed (scaffold into a new folder instead, e.g. mcpgen init %s)", suggestDir(dir))
	}

	_, statErr := os.Stat(abs)
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return err
	}
	if newModule {
		if err := goCommand(ctx, abs, stderr, "mod", "init", module); err != nil {
			if errors.Is(statErr, fs.ErrNotExist) {
				os.Remove(abs) // the folder made just now, still empty
			}
			return err
		}
	}
	for _, f := range files {
		name := filepath.Join(abs, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := writeNew(name, f.Data); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created %s\n", filepath.Join(dir, filepath.FromSlash(f.Path)))
	}
	if err := pinGenerator(ctx, moduleRoot, stdout, stderr); err != nil {
		return fmt.Errorf("the files are written, but pinning the generator in go.mod failed: %w", err)
	}
	if opt.authIssuer != "" {
		if err := pinOAuth(ctx, moduleRoot, stdout, stderr); err != nil {
			return fmt.Errorf("the files are written, but requiring %s in go.mod failed: %w", oauthModule, err)
		}
	}
	if opt.otel {
		if err := requireOTel(ctx, moduleRoot, importPath, stdout, stderr); err != nil {
			return fmt.Errorf("the files are written, but adding the otel module to go.mod failed: %w", err)
		}
	}
	return nil
}

// writeNew creates name with data, failing if it exists (a file created
// between the check and the write is not overwritten either).
func writeNew(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

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

var notModuleChar = regexp.MustCompile(`[^a-z0-9._~-]+`)

// defaultModulePath derives a module path from the folder's name.
func defaultModulePath(dir string) string {
	p := strings.Trim(notModuleChar.ReplaceAllString(strings.ToLower(filepath.Base(dir)), "-"), "-.")
	if p == "" {
		p = "mcpserver"
	}
	return p
}

// serverName is the server's name (serverInfo, README title, desktop client
// config key): the last element of its import path.
func serverName(importPath string) string {
	n := path.Base(importPath)
	if n == "." || n == "/" || n == "" {
		return "mcpserver"
	}
	return n
}

func suggestDir(dir string) string {
	return filepath.Join(dir, "mcpserver")
}
