package templates

import (
	"bytes"
	"encoding/json"
	"go/format"
	"strings"
	"testing"
)

func TestProjectRendersValidFiles(t *testing.T) {
	files, err := Project(Data{Name: "notes", Package: "notes", ImportPath: "example.com/notes-server"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"README.md": true, "main.go": true, "servercard.go": true, "notes/schemas.go": true, "notes/tools.go": true,
		"notes/schemas/add_note.json": true, "notes/schemas/list_notes.json": true,
		"notes/schemas/delete_note.json": true, "notes/schemas/confirm_delete.json": true,
		"notes/features.go": true, "notes/schemas/summarize_note.json": true, "notes/schemas/note.json": true,
		"notes/skills/note-taking/SKILL.md": true, "notes/skills/note-taking/references/style.md": true,
		"notes/tools_test.go": true,
	}
	for _, f := range files {
		if !want[f.Path] {
			t.Errorf("unexpected file %s", f.Path)
		}
		delete(want, f.Path)
		switch {
		case strings.HasSuffix(f.Path, ".go"):
			got, err := format.Source(f.Data)
			if err != nil {
				t.Errorf("%s: %v", f.Path, err)
			} else if !bytes.Equal(got, f.Data) {
				t.Errorf("%s is not gofmt-clean", f.Path)
			}
		case strings.HasSuffix(f.Path, ".json"):
			if !json.Valid(f.Data) {
				t.Errorf("%s is not valid JSON", f.Path)
			}
		}
		if bytes.Contains(f.Data, []byte("{{")) {
			t.Errorf("%s still holds template markup", f.Path)
		}
	}
	for p := range want {
		t.Errorf("missing file %s", p)
	}
}

func TestMainImportsTheToolsPackage(t *testing.T) {
	files, err := Project(Data{Name: "srv", Package: "notes", ImportPath: "example.com/a/b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "main.go" && !bytes.Contains(f.Data, []byte(`"example.com/a/b/notes"`)) {
			t.Errorf("main.go does not import the tools package:\n%s", f.Data)
		}
	}
}

func TestCurlWalkthrough(t *testing.T) {
	s, err := Curl("http://127.0.0.1:1234/mcp")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"URL=http://127.0.0.1:1234/mcp", "Mcp-Session-Id", "Accept: application/json, text/event-stream",
		"elicitation/create", `"action":"accept"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("walkthrough lacks %q", want)
		}
	}
}

// TestProjectWithOTel: the -otel scaffold adds telemetry.go and the flag,
// both gofmt-clean; the default scaffold has neither.
func TestProjectWithOTel(t *testing.T) {
	for _, on := range []bool{false, true} {
		files, err := Project(Data{Name: "srv", Package: "notes", ImportPath: "example.com/srv", OTel: on})
		if err != nil {
			t.Fatal(err)
		}
		var telemetry bool
		for _, f := range files {
			if !strings.HasSuffix(f.Path, ".go") {
				continue
			}
			if got, err := format.Source(f.Data); err != nil || !bytes.Equal(got, f.Data) {
				t.Errorf("otel=%v: %s is not gofmt-clean (%v):\n%s", on, f.Path, err, f.Data)
			}
			telemetry = telemetry || f.Path == "telemetry.go"
			if f.Path == "main.go" && bytes.Contains(f.Data, []byte(`flag.BoolVar(&cfg.otel, "otel"`)) != on {
				t.Errorf("otel=%v: main.go:\n%s", on, f.Data)
			}
		}
		if telemetry != on {
			t.Errorf("otel=%v: telemetry.go present = %v", on, telemetry)
		}
	}
}
