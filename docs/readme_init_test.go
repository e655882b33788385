package docs

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/templates"
)

// TestReadmeInitTableListsEveryFile: the README's table of what `mcpgen
// init` writes names every file of the scaffold, whichever flags made it.
func TestReadmeInitTableListsEveryFile(t *testing.T) {
	readme, err := os.ReadFile(repoPath("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string // path patterns of the table's first column
	in := false
	cellRE := regexp.MustCompile("^\\| `([^`]+)` \\|")
	for _, line := range strings.Split(string(readme), "\n") {
		switch {
		case strings.HasPrefix(line, "| file | whose | what |"):
			in = true
		case in && !strings.HasPrefix(line, "|"):
			in = false
		case in:
			if m := cellRE.FindStringSubmatch(line); m != nil {
				listed = append(listed, m[1])
			}
		}
	}
	if len(listed) == 0 {
		t.Fatal("README.md has no table with the columns | file | whose | what | (what mcpgen init writes)")
	}
	for _, d := range []templates.Data{
		{Name: "notes", Package: "notes", ImportPath: "example.com/x"},
		{Name: "notes", Package: "notes", ImportPath: "example.com/x", AuthIssuer: "https://auth.example.com", Redis: true, OTel: true, App: true},
		{Name: "notes", Package: "notes", ImportPath: "example.com/x", Empty: true, AuthIssuer: "https://auth.example.com", Redis: true, OTel: true, App: true},
	} {
		files, err := templates.Project(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !matchesAny(listed, f.Path) {
				t.Errorf("README.md's table of what mcpgen init writes does not list %s (scaffolded with %+v); add a row for it", f.Path, d)
			}
		}
	}
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// TestReadmeInitTableQuotesTheGenerateLine: the README's row for the
// //go:generate file quotes the line the scaffold writes, so that it cannot
// fall behind the template again.
func TestReadmeInitTableQuotesTheGenerateLine(t *testing.T) {
	readme, err := os.ReadFile(repoPath("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := templates.Project(templates.Data{Name: "notes", Package: "notes", ImportPath: "example.com/x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path != "notes/schemas.go" {
			continue
		}
		for _, line := range strings.Split(string(f.Data), "\n") {
			if strings.HasPrefix(line, "//go:generate ") && !strings.Contains(string(readme), "`"+line+"`") {
				t.Errorf("README.md's table row for notes/schemas.go does not quote its line `%s`", line)
			}
		}
		return
	}
	t.Fatal("the scaffold has no notes/schemas.go")
}
