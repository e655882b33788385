package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNewToolsNamedInOneGenerate: a scaffolded project gains three tools;
// one `go generate` names all three methods its handler lacks, and what it
// prints, pasted into a file of the project's, builds.
func TestNewToolsNamedInOneGenerate(t *testing.T) {
	e2eEnv(t)
	dir := filepath.Join(t.TempDir(), "notes-server")
	if code, stdout, stderr := run(t, "init", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	notes := filepath.Join(dir, "notes")
	if out := mustGo(t, dir, "generate", "./..."); strings.Contains(out, "lacks") {
		t.Fatalf("the scaffold's own tools are reported missing:\n%s", out)
	}

	schemas := map[string]string{
		"rename_note.json": `{"name": "rename_note", "description": "Renames a note.",
  "inputSchema": {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": ["from", "to"]}}`,
		"count_notes.json": `{"name": "count_notes", "inputSchema": {"type": "object"},
  "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}}`,
		"archive_note.json": `{"name": "archive_note", "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
  "_meta": {"mcpgen.dev/elicitations": ["confirm_delete"]}}`,
	}
	for name, data := range schemas {
		if err := os.WriteFile(filepath.Join(notes, "schemas", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := mustGo(t, dir, "generate", "./...")
	for _, want := range []string{
		"mcpgen: *Tools (tools.go:",
		"lacks 3 methods of Handler",
		"func (t *Tools) RenameNote(ctx context.Context, call RenameNoteCall, in RenameNoteInput) ([]runtime.Content, error) {",
		"func (t *Tools) CountNotes(ctx context.Context, call CountNotesCall, in CountNotesInput) (CountNotesOutput, error) {",
		"func (t *Tools) ArchiveNote(ctx context.Context, call ArchiveNoteCall, in ArchiveNoteInput) ([]runtime.Content, error) {",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("go generate does not say %q:\n%s", want, out)
		}
	}

	// Paste what it printed into a new file, with the imports it names.
	header, methods, ok := strings.Cut(out, "):\n\n")
	uses := regexp.MustCompile(`they use the packages (.*)$`).FindStringSubmatch(header)
	if !ok || uses == nil {
		t.Fatalf("no paste-ready methods after the report's first line:\n%s", out)
	}
	var imports strings.Builder
	for _, p := range strings.Split(strings.ReplaceAll(uses[1], " and ", ", "), ", ") {
		imports.WriteString("\t\"" + p + "\"\n")
	}
	src := "package notes\n\nimport (\n" + imports.String() + ")\n\n" + methods
	if err := os.WriteFile(filepath.Join(notes, "new_tools.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := goIn(t, dir, "build", "./..."); err != nil {
		t.Fatalf("the pasted methods do not build: %v\n%s\nnew_tools.go:\n%s", err, out, src)
	}
	mustGo(t, dir, "vet", "./...")
	if out := mustGo(t, dir, "generate", "./..."); strings.Contains(out, "lacks") {
		t.Errorf("with every method written, go generate still reports:\n%s", out)
	}
}
