package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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
	var module string
	var opt scaffoldOptions
	cmd := &cobra.Command{
		Use:   "init [dir]",
		Short: "Scaffold an MCP server project (schemas, handlers, main.go, tests, README) into dir",
		Long: `init writes a small MCP server into dir (default "."), named by --name or
after the folder: a Go package NAME holding example tool, elicitation, prompt
and resource schemas in NAME/schemas/ and an agent skill in NAME/skills/, the
go:generate line that turns them into Go (NAME/schemas.go), handler stubs that
are yours to edit (generate never touches them), tests of them that run in
every protocol era (NAME/tools_test.go), a main.go serving Streamable HTTP at
/mcp (or stdio with -stdio), and a README. With --empty it leaves the examples
out: the project builds and serves with no tools yet, and its README says how
to add the first one.

The name is the Go package, the server's name (serverInfo.name), the binary
and the README's title: lowercase letters and digits, starting with a letter.
Without --name it comes from the folder's name, less a -server or -mcp suffix
or an mcp- prefix, with anything but letters and digits left out
(./tickets-server: tickets).

Inside an existing module it only adds files, and pins the generator in the
module's go.mod (a tool directive: go tool mcpgen). In a folder outside any
module it also creates go.mod. It never overwrites: when a file it would
write already exists, it lists them and changes nothing.

When mcpgen runs from a source checkout (the module is not published), the
project's go.mod gets a replace directive pointing at that checkout (and at
its oauth, redisstore and otel modules when the switches below need them),
so the project builds offline.

The switches combine:

  --auth ISSUER  main.go serves HTTP as an OAuth 2.1 resource server that
                 accepts JWT access tokens of that authorization server
                 (module github.com/mcpgen/mcpgen/oauth). The module also
                 pins a development issuer, go tool mcpgen-dev-issuer, and the
                 README walks from a token to a refused and an allowed call;
                 for that issuer pass --auth ` + devIssuerURL + `.
  --redis        main.go gets -redis ADDR: sessions, events and the session
                 bus in Redis, so that replicas behind a load balancer serve
                 one client (module github.com/mcpgen/mcpgen/redisstore); the
                 2026-07-28 state key comes from MCP_STATE_KEY.
  --otel         telemetry.go and a -otel flag: OpenTelemetry traces and
                 metrics, exported over OTLP/HTTP when
                 OTEL_EXPORTER_OTLP_ENDPOINT is set (module
                 github.com/mcpgen/mcpgen/otel and the OpenTelemetry SDK).
  --app          the notes get an interface: show_notes names an MCP Apps
                 page (NAME/schemas/notes_view.html, embedded in the server)
                 that hosts with MCP Apps render, and the page opens a note
                 through open_note, a tool only the page calls. The page
                 loads nothing from the network.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if err := checkIssuer(opt.authIssuer); err != nil {
				return usageError{err}
			}
			name, err := projectName(opt.name, dir)
			if err != nil {
				return usageError{err}
			}
			opt.name = name
			if err := scaffold(cmd.Context(), dir, module, opt, stdout, stderr); err != nil {
				return err
			}
			fmt.Fprint(stdout, nextSteps(dir, opt))
			return nil
		},
	}
	cmd.Flags().StringVar(&opt.name, "name", "", "the project's `name`: its Go package, server name and binary (default: from the folder's name)")
	cmd.Flags().BoolVar(&opt.empty, "empty", false, "leave the example tools out: a project with no tools yet")
	cmd.Flags().StringVar(&opt.authIssuer, "auth", "", "issuer `URL` of an OAuth 2.1 authorization server: the HTTP server then requires its access tokens ("+devIssuerURL+": the development issuer)")
	cmd.Flags().BoolVar(&opt.redis, "redis", false, "add the server's -redis flag: replicas share sessions in Redis (requires the mcpgen redisstore module)")
	cmd.Flags().BoolVar(&opt.otel, "otel", false, "add OpenTelemetry traces and metrics behind the server's -otel flag (requires the mcpgen otel module)")
	cmd.Flags().BoolVar(&opt.app, "app", false, "give the notes an interface: an MCP Apps page that hosts render (show_notes, open_note)")
	cmd.Flags().StringVar(&module, "module", "", "module path for the new go.mod (default: the folder's name); only when dir is outside any module")
	return cmd
}

// scaffoldOptions are what init was asked for: the project's name and the
// optional parts it adds to the plain project.
type scaffoldOptions struct {
	name       string // the package, server name and binary (init_name.go)
	empty      bool   // --empty: no example tools
	authIssuer string // --auth: an OAuth 2.1 resource server for this issuer
	redis      bool   // --redis: sessions in Redis behind the server's -redis flag
	otel       bool   // --otel: OpenTelemetry behind the server's -otel flag
	app        bool   // --app: an MCP Apps page for the notes
}

// nextSteps is what init prints once the project is written.
func nextSteps(dir string, opt scaffoldOptions) string {
	p := opt.name
	var b strings.Builder
	fmt.Fprintf(&b, "\nNext:\n  cd %s\n", dir)
	fmt.Fprintf(&b, "  go generate ./...             # %s/schemas -> %s/mcpgen_*.go and %s/%stest\n", p, p, p, p)
	fmt.Fprintf(&b, "  go test ./...                 # %s/tools_test.go, in both protocol eras\n", p)
	fmt.Fprintf(&b, "  go run . -addr 127.0.0.1:8080 # Streamable HTTP at http://127.0.0.1:8080/mcp (or: go run . -stdio)\n")
	b.WriteString("README.md there shows how to call it with curl and how to connect a desktop client")
	if opt.authIssuer != "" {
		b.WriteString(", and how to get tokens from the development issuer (go tool mcpgen-dev-issuer)")
	}
	b.WriteString(".\n")
	return b.String()
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

	data := templates.Data{Name: opt.name, Package: opt.name, ImportPath: importPath, Empty: opt.empty,
		AuthIssuer: opt.authIssuer, Redis: opt.redis, OTel: opt.otel, App: opt.app}
	if name, err := registryName(importPath, opt.name); err == nil {
		data.RegistryName = name // else servercard.go asks the user for one
	}
	files, err := templates.Project(data)
	if err != nil {
		return err
	}
	if err := checkNameClash(opt.name, importPath, files); err != nil {
		return usageError{err}
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
	for _, m := range optionalModules(opt, importPath) {
		if err := requireModule(ctx, moduleRoot, m.module, m.sub, m.get, m.pkgs, stdout, stderr); err != nil {
			return fmt.Errorf("the files are written, but requiring %s in go.mod failed: %w", m.module, err)
		}
		for _, tool := range m.tools {
			if err := pinTool(ctx, moduleRoot, tool, stdout, stderr); err != nil {
				return fmt.Errorf("the files are written, but pinning %s in go.mod failed: %w", tool, err)
			}
		}
	}
	return nil
}

// optionalModule is a module of this repository that a switch of init
// requires: from folder sub of the checkout, or (published) by go get of
// get; pkgs are the project's packages (and tools) whose dependencies go.mod
// must list once it is required.
type optionalModule struct {
	module, sub, get string
	pkgs, tools      []string
}

// optionalModules lists the modules the switches of opt require, in the
// order they are added to go.mod.
func optionalModules(opt scaffoldOptions, importPath string) []optionalModule {
	var mods []optionalModule
	if opt.authIssuer != "" {
		mods = append(mods, optionalModule{module: oauthModule, sub: "oauth", get: oauthModule,
			pkgs: []string{importPath, devIssuerTool}, tools: []string{devIssuerTool}})
	}
	if opt.redis {
		mods = append(mods, optionalModule{module: redisModule, sub: "redisstore", get: redisModule, pkgs: []string{importPath}})
	}
	if opt.otel {
		mods = append(mods, optionalModule{module: otelModule, sub: "otel", get: otelModule + "/otlp", pkgs: []string{importPath}})
	}
	return mods
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

var notModuleChar = regexp.MustCompile(`[^a-z0-9._~-]+`)

// defaultModulePath derives a module path from the folder's name.
func defaultModulePath(dir string) string {
	p := strings.Trim(notModuleChar.ReplaceAllString(strings.ToLower(filepath.Base(dir)), "-"), "-.")
	if p == "" {
		p = "mcpserver"
	}
	return p
}

func suggestDir(dir string) string {
	return filepath.Join(dir, "mcpserver")
}
