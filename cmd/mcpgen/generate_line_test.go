package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadGenerateLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := readGenerateLine(dir); err == nil || !strings.Contains(err.Error(), "there is none") {
		t.Errorf("no line: %v", err)
	}
	write("mcpgen_x.go", "package p\n//go:generate mcpgen generate ./nope\n") // generated files are not read
	write("schemas.go", "package p\n\n//go:generate go tool mcpgen generate -package p \"./my schemas\" ./skills\n")
	g, err := readGenerateLine(dir)
	if err != nil {
		t.Fatal(err)
	}
	if g.out != dir || g.pkg != "p" || !slices.Equal(g.inputs, []string{filepath.Join(dir, "my schemas"), filepath.Join(dir, "skills")}) {
		t.Errorf("line: %+v", g)
	}
	write("other.go", "package p\n//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate -o gen ./more\n")
	if _, err := readGenerateLine(dir); err == nil || !strings.Contains(err.Error(), "2 //go:generate lines") {
		t.Errorf("two lines: %v", err)
	}
}

// generate --check with no INPUT checks what the folder's //go:generate
// line generates, and fails (with a diff) once an input changes.
func TestCheckReadsTheGenerateLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	tool := `{"name":"ping","description":"Pings.","inputSchema":{"type":"object"}}`
	os.WriteFile(filepath.Join(dir, "schemas", "ping.json"), []byte(tool), 0o644)
	os.WriteFile(filepath.Join(dir, "gen.go"), []byte("package p\n\n//go:generate go tool mcpgen generate ./schemas\n"), 0o644)
	if code, _, stderr := run(t, "generate", "-o", dir, filepath.Join(dir, "schemas")); code != 0 {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	if code, _, stderr := run(t, "generate", "--check", "-o", dir); code != 0 || !strings.Contains(stderr, "//go:generate go tool mcpgen generate ./schemas") {
		t.Fatalf("check: %d %s", code, stderr)
	}
	os.WriteFile(filepath.Join(dir, "schemas", "pong.json"), []byte(strings.ReplaceAll(tool, "ping", "pong")), 0o644)
	if code, stdout, _ := run(t, "generate", "--check", "-o", dir); code != 1 || !strings.Contains(stdout, "mcpgen_pong_tool.go") {
		t.Errorf("check after a new input: %d\n%s", code, stdout)
	}
	if code, _, stderr := run(t, "generate", "-o", dir); code != 2 || !strings.Contains(stderr, "at least one INPUT") {
		t.Errorf("generate with no INPUT and no --check: %d %s", code, stderr)
	}
}
