package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const pageJSON = `{
  "uri": "ui://notes/view.html",
  "name": "notes_view",
  "mimeType": "text/html;profile=mcp-app",
  "_meta": {"mcpgen.dev/file": "view.html"}
}
`

const pageHTML = "<!DOCTYPE html>\n<html><body><p id=\"notes\"></p></body></html>\n"

// TestGenerateEmbedsResourceFile: a page next to the schemas is embedded
// with a go:embed path relative to the output folder, and --check fails
// once the page changes, until it is regenerated.
func TestGenerateEmbedsResourceFile(t *testing.T) {
	out := t.TempDir()
	schemas := filepath.Join(out, "schemas")
	if err := os.Mkdir(schemas, 0o755); err != nil {
		t.Fatal(err)
	}
	writeInputs(t, schemas, map[string]string{"view.json": pageJSON, "view.html": pageHTML})
	if code, _, stderr := run(t, "generate", "-o", out, "-package", "notes", schemas); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	gen, err := os.ReadFile(filepath.Join(out, "mcpgen_notes_view_resource.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gen), "//go:embed schemas/view.html\n") {
		t.Fatalf("no go:embed line for schemas/view.html in:\n%s", gen)
	}
	if code, stdout, stderr := run(t, "generate", "--check", "-o", out, schemas); code != 0 {
		t.Fatalf("--check on fresh output: exit %d\n%s%s", code, stdout, stderr)
	}

	writeInputs(t, schemas, map[string]string{"view.html": strings.Replace(pageHTML, "notes", "list", 1)})
	code, stdout, stderr := run(t, "generate", "--check", "-o", out, schemas)
	if code != 1 || !strings.Contains(stdout, "SHA-256") || !strings.Contains(stderr, "not up to date") {
		t.Fatalf("--check after the page changed: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := run(t, "generate", "-o", out, schemas); code != 0 {
		t.Fatalf("regenerate: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := run(t, "generate", "--check", "-o", out, schemas); code != 0 {
		t.Fatalf("--check after regenerating: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestGenerateRefusesFileOutsidePackage: go:embed cannot reach above the
// package folder, so a file there is a located error and nothing is written.
func TestGenerateRefusesFileOutsidePackage(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "notes")
	writeInputs(t, root, map[string]string{"view.json": pageJSON, "view.html": pageHTML})
	code, _, stderr := run(t, "generate", "-o", out, "-package", "notes", filepath.Join(root, "view.json"))
	if code != 1 || !strings.Contains(stderr, "view.json:5:32: /_meta/mcpgen.dev~1file: ") ||
		!strings.Contains(stderr, "outside the package folder") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("something was written: %v", err)
	}
}

// TestGenerateRefusesLinkedPage: a page in schemas/ that is a symbolic link
// to a file outside the package is a located error, and nothing is
// written (its digest went into the code before, and the build failed).
func TestGenerateRefusesLinkedPage(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "pkg")
	schemas := filepath.Join(out, "schemas")
	if err := os.MkdirAll(schemas, 0o755); err != nil {
		t.Fatal(err)
	}
	writeInputs(t, root, map[string]string{"secret.html": pageHTML})
	writeInputs(t, schemas, map[string]string{"view.json": pageJSON})
	if err := os.Symlink(filepath.Join(root, "secret.html"), filepath.Join(schemas, "view.html")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "generate", "-o", out, "-package", "notes", schemas)
	if code == 0 || !strings.Contains(stderr, "view.json:5:32: /_meta/mcpgen.dev~1file: resource \"ui://notes/view.html\" names ") ||
		!strings.Contains(stderr, "which is a symbolic link") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if entries, _ := filepath.Glob(filepath.Join(out, "*.go")); len(entries) != 0 {
		t.Fatalf("wrote %v", entries)
	}
}
