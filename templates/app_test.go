package templates

import (
	"bytes"
	"strings"
	"testing"
)

// appFiles are what --app adds to the scaffold.
var appFiles = []string{"notes/app.go", "notes/schemas/notes_view.html", "notes/schemas/notes_view.json",
	"notes/schemas/open_note.json", "notes/schemas/show_notes.json"}

func TestAppFilesOnlyWithApp(t *testing.T) {
	for _, app := range []bool{false, true} {
		files, err := Project(Data{Name: "notes", Package: "notes", ImportPath: "example.com/notes-server", App: app})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]byte{}
		for _, f := range files {
			got[f.Path] = f.Data
		}
		for _, p := range appFiles {
			if _, ok := got[p]; ok != app {
				t.Errorf("App=%v: %s present=%v", app, p, ok)
			}
		}
		readme := string(got["README.md"])
		if strings.Contains(readme, "## The notes view (MCP Apps)") != app {
			t.Errorf("App=%v: the README's MCP Apps section present=%v", app, !app)
		}
	}
}

// TestAppPageLoadsNothing: the page must work offline and under the host's
// default Content Security Policy, so it names no other origin and takes
// the notes from tool results only.
func TestAppPageLoadsNothing(t *testing.T) {
	files, err := Project(Data{Name: "n", Package: "notes", ImportPath: "example.com/n", App: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path != "notes/schemas/notes_view.html" {
			continue
		}
		for _, bad := range []string{"http://", "https://", "<script src", "innerHTML", "import("} {
			if bytes.Contains(f.Data, []byte(bad)) {
				t.Errorf("the page holds %q", bad)
			}
		}
		for _, want := range []string{`"ui/initialize"`, `"ui/notifications/initialized"`, `"ui/notifications/tool-result"`, `"tools/call"`, "event.source !== host"} {
			if !bytes.Contains(f.Data, []byte(want)) {
				t.Errorf("the page lacks %s", want)
			}
		}
		return
	}
	t.Fatal("no page in the scaffold")
}
