// Package templates holds the files `mcpgen init` writes into a new project:
// example tool and elicitation schemas, the go:generate line, handler stubs,
// a main.go serving Streamable HTTP and stdio, and a README. They are user-owned
// files, written once; `mcpgen generate` never touches them.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"text/template"
)

//go:embed all:project curl.sh.tmpl
var project embed.FS

// Data fills the templates.
type Data struct {
	// Name is the project's name: the server's name (serverInfo.name), the
	// README title, the binary and the desktop client's config key.
	Name string
	// Package is the Go package that holds the tools, in the folder of the
	// same name; its typed test client is Package+"test".
	Package string
	// ImportPath is the import path of the project folder, the one holding
	// main.go; the tools package is ImportPath + "/" + Package.
	ImportPath string
	// Empty leaves the example tools, prompt, resource template and skill
	// out: a project that builds and serves with no tools yet
	// (mcpgen init --empty).
	Empty bool
	// AuthIssuer, when set, makes main.go an OAuth 2.1 resource server that
	// accepts tokens of this issuer (mcpgen init --auth ISSUER).
	AuthIssuer string
	// Redis adds main.go's -redis flag: sessions, events and the session bus
	// in Redis, so that replicas behind a load balancer serve one client
	// (module github.com/mcpgen/mcpgen/redisstore).
	Redis bool
	// OTel adds telemetry.go and main.go's -otel flag: OpenTelemetry traces
	// and metrics (module github.com/mcpgen/mcpgen/otel), exported over
	// OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
	OTel bool
	// App gives the notes an MCP Apps page: show_notes shows them in the
	// notes view (mcpgen init --app).
	App bool
	// RegistryName is the server's registry name, the name on its Server
	// Card (servercard.go): derived from the module path as `mcpgen
	// server-json` derives it. Empty when the module path names no host:
	// servercard.go then says io.github.OWNER/NAME, for the user to fix.
	RegistryName string
}

// GenerateInputs are the inputs of the project's //go:generate line,
// relative to the tools package's folder. The README's commands use the
// same.
func (d Data) GenerateInputs() string {
	if d.Empty {
		return "./schemas"
	}
	return "./schemas ./skills"
}

// examples are the example tools, prompt, resource template and skill that
// --empty leaves out.
func examples(d Data) bool { return !d.Empty }

// optional are the project's optional parts: the files (or folders) only
// some scaffolds get, each with the switch that brings it. Another part adds
// a line here, its files under project/, and its switch to Data. A name with
// ".empty" before its extension is the --empty variant of the file without
// it.
var optional = map[string]func(Data) bool{
	"project/telemetry.go.tmpl":               func(d Data) bool { return d.OTel },
	"project/redis.go.tmpl":                   func(d Data) bool { return d.Redis },
	"project/pkg/app.go.tmpl":                 func(d Data) bool { return d.App },
	"project/pkg/schemas/show_notes.json":     func(d Data) bool { return d.App },
	"project/pkg/schemas/open_note.json":      func(d Data) bool { return d.App },
	"project/pkg/schemas/notes_view.json":     func(d Data) bool { return d.App },
	"project/pkg/schemas/notes_view.html":     func(d Data) bool { return d.App },
	"project/pkg/schemas/tools.json":          func(d Data) bool { return d.Empty },
	"project/pkg/tools.empty.go.tmpl":         func(d Data) bool { return d.Empty },
	"project/pkg/tools_test.empty.go.tmpl":    func(d Data) bool { return d.Empty },
	"project/pkg/tools.go.tmpl":               examples,
	"project/pkg/tools_test.go.tmpl":          examples,
	"project/pkg/features.go.tmpl":            examples,
	"project/pkg/schemas/add_note.json":       examples,
	"project/pkg/schemas/list_notes.json":     examples,
	"project/pkg/schemas/delete_note.json":    examples,
	"project/pkg/schemas/confirm_delete.json": examples,
	"project/pkg/schemas/summarize_note.json": examples,
	"project/pkg/schemas/note.json":           examples,
	"project/pkg/skills":                      examples,
}

// wanted reports whether the file at p belongs to the project d: a file is
// optional when it or one of its folders is listed in optional.
func wanted(p string, d Data) bool {
	for q := p; q != "." && q != "/"; q = path.Dir(q) {
		if want, ok := optional[q]; ok {
			return want(d)
		}
	}
	return true
}

// File is one file of the scaffold.
type File struct {
	// Path is slash-separated and relative to the project folder.
	Path string
	Data []byte
}

// Project renders every file of the scaffold, sorted by path. A name ending
// in ".tmpl" loses that suffix (so the Go tooling of this repository does
// not compile the templates).
func Project(d Data) ([]File, error) {
	if d.Name == "" || d.Package == "" || d.ImportPath == "" {
		return nil, fmt.Errorf("templates: Name, Package and ImportPath must be set (got %+v)", d)
	}
	var files []File
	err := fs.WalkDir(project, "project", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if !wanted(p, d) {
			return nil
		}
		src, err := project.ReadFile(p)
		if err != nil {
			return err
		}
		t, err := template.New(path.Base(p)).Option("missingkey=error").Funcs(template.FuncMap{"curl": Curl}).Parse(string(src))
		if err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		var out bytes.Buffer
		if err := t.Execute(&out, d); err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, "project/"), ".tmpl")
		rel = strings.Replace(rel, ".empty.", ".", 1)
		if r, ok := strings.CutPrefix(rel, "pkg/"); ok {
			rel = d.Package + "/" + r
		}
		files = append(files, File{Path: rel, Data: out.Bytes()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// Curl returns a bash script that calls the scaffolded server at url with
// curl: initialize, a plain tool call, and the full elicitation round trip
// (the tool call's SSE stream read while the answer goes out on a second
// POST). `mcpgen demo` prints it and the project README embeds it.
func Curl(url string) (string, error) {
	src, err := project.ReadFile("curl.sh.tmpl")
	if err != nil {
		return "", err
	}
	t, err := template.New("curl.sh").Parse(string(src))
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := t.Execute(&out, url); err != nil {
		return "", err
	}
	return out.String(), nil
}
