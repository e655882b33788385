package templates

import (
	"bytes"
	"encoding/json"
	"go/format"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// everyCombination is every project the switches of init make, named
// tickets.
func everyCombination() []Data {
	var all []Data
	for bits := 0; bits < 1<<5; bits++ {
		d := Data{Name: "tickets", Package: "tickets", ImportPath: "example.com/tickets-server",
			Empty: bits&1 != 0, Redis: bits&2 != 0, OTel: bits&4 != 0, App: bits&8 != 0}
		if bits&16 != 0 {
			d.AuthIssuer = "http://127.0.0.1:8090"
		}
		all = append(all, d)
	}
	return all
}

// TestEveryCombinationRenders: whatever the switches, every Go file is
// gofmt-clean and parses, every JSON file is valid, nothing is left of the
// template markup, and the project is named: no file names or imports the
// package notes, and the test client is ticketstest.
func TestEveryCombinationRenders(t *testing.T) {
	for _, d := range everyCombination() {
		files, err := Project(d)
		if err != nil {
			t.Fatalf("%+v: %v", d, err)
		}
		paths := map[string]bool{}
		for _, f := range files {
			paths[f.Path] = true
			if bytes.Contains(f.Data, []byte("{{")) || bytes.Contains(f.Data, []byte("<no value>")) {
				t.Errorf("%+v: %s holds template markup", d, f.Path)
			}
			switch {
			case strings.HasSuffix(f.Path, ".go"):
				if got, err := format.Source(f.Data); err != nil || !bytes.Equal(got, f.Data) {
					t.Errorf("%+v: %s is not gofmt-clean (%v)", d, f.Path, err)
				}
				if _, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Data, 0); err != nil {
					t.Errorf("%+v: %s: %v", d, f.Path, err)
				}
				if bytes.Contains(f.Data, []byte("package notes")) || bytes.Contains(f.Data, []byte(`/notes"`)) || bytes.Contains(f.Data, []byte("notestest")) {
					t.Errorf("%+v: %s still names the package notes", d, f.Path)
				}
			case strings.HasSuffix(f.Path, ".json"):
				if !json.Valid(f.Data) {
					t.Errorf("%+v: %s is not valid JSON", d, f.Path)
				}
			}
			if !strings.HasPrefix(f.Path, "tickets/") && strings.Contains(f.Path, "/") {
				t.Errorf("%+v: %s is outside the project's folders", d, f.Path)
			}
		}
		for _, p := range []string{"main.go", "README.md", "tickets/schemas.go", "tickets/tools.go", "tickets/tools_test.go"} {
			if !paths[p] {
				t.Errorf("%+v: no %s", d, p)
			}
		}
		if paths["redis.go"] != d.Redis || paths["telemetry.go"] != d.OTel || paths["tickets/app.go"] != d.App ||
			paths["tickets/features.go"] == d.Empty || paths["tickets/skills/note-taking/SKILL.md"] == d.Empty ||
			paths["tickets/schemas/delete_note.json"] == d.Empty {
			t.Errorf("%+v: files %v", d, paths)
		}
	}
}

// TestGenerateLineAndREADMEAgree: the README's CI line checks what the
// //go:generate line generates, in every combination.
func TestGenerateLineAndREADMEAgree(t *testing.T) {
	for _, d := range everyCombination() {
		files, _ := Project(d)
		var gen, readme string
		for _, f := range files {
			switch f.Path {
			case "tickets/schemas.go":
				gen = string(f.Data)
			case "README.md":
				readme = string(f.Data)
			}
		}
		line := "//go:generate go tool mcpgen generate " + d.GenerateInputs() + "\n"
		if !strings.Contains(gen, line) {
			t.Errorf("%+v: schemas.go lacks %q", d, line)
		}
		if !strings.Contains(readme, "`go tool mcpgen generate --check -o tickets`") || !strings.Contains(readme, "(`"+d.GenerateInputs()+"`)") {
			t.Errorf("%+v: the README's CI line does not follow the go:generate line", d)
		}
		if want := d.AuthIssuer != ""; strings.Contains(readme, "go tool mcpgen-dev-issuer") != want {
			t.Errorf("%+v: README names the development issuer: %v", d, !want)
		}
		if want := d.Redis; strings.Contains(readme, "MCP_STATE_KEY") != want {
			t.Errorf("%+v: README explains MCP_STATE_KEY: %v", d, !want)
		}
		if d.Empty != strings.Contains(readme, "## Add your first tool") {
			t.Errorf("%+v: README's first-tool section", d)
		}
	}
}

func TestProjectNeedsItsNames(t *testing.T) {
	if _, err := Project(Data{Name: "x", ImportPath: "example.com/x"}); err == nil {
		t.Error("Project rendered without a Package")
	}
}
