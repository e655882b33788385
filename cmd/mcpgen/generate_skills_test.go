package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const skillMD = "---\nname: note-taking\ndescription: Write notes the way this server stores them.\n---\n\n# Notes\n"

// TestGenerateSkillFolder generates a package with a folder of skills
// inside it, and --check then fails when a skill file changes, since the
// generated code holds its digest.
func TestGenerateSkillFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "notes")
	skill := filepath.Join(out, "skills", "note-taking")
	if err := os.MkdirAll(filepath.Join(skill, "references"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeInputs(t, skill, map[string]string{"SKILL.md": skillMD, "references/format.md": "# Format\n"})
	writeInputs(t, out, map[string]string{"tool.json": toolJSON, "confirm.json": formJSON})
	skills := filepath.Join(out, "skills")

	if code, _, stderr := run(t, "generate", "-o", out, out, skills); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	gen, err := os.ReadFile(filepath.Join(out, "mcpgen_note_taking_skill.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`//go:embed "skills/note-taking/SKILL.md"`, `//go:embed "skills/note-taking/references/format.md"`, `Size: 9,`} {
		if !strings.Contains(string(gen), want) {
			t.Errorf("generated skill file lacks %s:\n%s", want, gen)
		}
	}
	if code, _, stderr := run(t, "generate", "--check", "-o", out, out, skills); code != 0 {
		t.Fatalf("--check right after generating: exit %d: %s", code, stderr)
	}

	writeInputs(t, skill, map[string]string{"references/format.md": "# Format, edited\n"})
	code, stdout, stderr := run(t, "generate", "--check", "-o", out, out, skills)
	if code != 1 || !strings.Contains(stdout, `-			{Path: "references/format.md", MIMEType: "text/markdown", Size: 9,`) ||
		!strings.Contains(stderr, "is not up to date with its inputs") {
		t.Fatalf("--check after a skill file changed: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestGenerateSkillOutsideThePackage(t *testing.T) {
	dir := t.TempDir()
	skill := filepath.Join(dir, "skills", "note-taking")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	writeInputs(t, skill, map[string]string{"SKILL.md": skillMD})
	out := filepath.Join(dir, "notes")
	code, _, stderr := run(t, "generate", "-o", out, "-package", "notes", skill)
	if code != 1 || !strings.Contains(stderr, "lies outside the folder of the generated package, and go:embed reaches only files inside it") {
		t.Fatalf("a skill outside the package: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("something was written: %v", err)
	}
}
