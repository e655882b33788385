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
	// Name is the server's name (serverInfo.name, the README title, the
	// desktop client's config key).
	Name string
	// ImportPath is the import path of the project folder, the one holding
	// main.go; the tools package is ImportPath + "/notes".
	ImportPath string
	// AuthIssuer, when set, makes main.go an OAuth 2.1 resource server that
	// accepts tokens of this issuer (mcpgen init --auth ISSUER).
	AuthIssuer string
	// OTel adds telemetry.go and main.go's -otel flag: OpenTelemetry traces
	// and metrics (module github.com/mcpgen/mcpgen/otel), exported over
	// OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
	OTel bool
	// App gives the notes an MCP Apps page: show_notes shows them in the
	// notes view (mcpgen init --app).
	App bool
}

// optional are the files only some scaffolds get.
var optional = map[string]func(Data) bool{
	"project/telemetry.go.tmpl":             func(d Data) bool { return d.OTel },
	"project/notes/app.go.tmpl":             func(d Data) bool { return d.App },
	"project/notes/schemas/show_notes.json": func(d Data) bool { return d.App },
	"project/notes/schemas/open_note.json":  func(d Data) bool { return d.App },
	"project/notes/schemas/notes_view.json": func(d Data) bool { return d.App },
	"project/notes/schemas/notes_view.html": func(d Data) bool { return d.App },
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
	var files []File
	err := fs.WalkDir(project, "project", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if want, ok := optional[p]; ok && !want(d) {
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
