package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Inside a module, generate also writes the typed test client into the
// sibling package <pkg>test, importing the package by its module path;
// --check covers it; package main and packages outside a module get none.
func TestGenerateWritesTheTestClientInsideAModule(t *testing.T) {
	root, in := t.TempDir(), t.TempDir()
	writeInputs(t, root, map[string]string{"go.mod": "module example.com/m\n\ngo 1.25\n"})
	writeInputs(t, in, map[string]string{"tool.json": toolJSON, "confirm.json": formJSON})
	out := filepath.Join(root, "internal", "files")

	if code, _, stderr := run(t, "generate", "-o", out, "-package", "files", in); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	client := filepath.Join(out, "filestest", "mcpgen_client.go")
	data, err := os.ReadFile(client)
	if err != nil {
		t.Fatalf("no test client: %v", err)
	}
	for _, want := range []string{"package filestest", `"example.com/m/internal/files"`, "func (c *Client) DeleteFile(", "func (c *Client) AnswerConfirmDelete(answer files.ConfirmDelete)"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the test client lacks %s:\n%s", want, data)
		}
	}
	if names := listDir(t, filepath.Join(out, "filestest")); len(names) != 1 {
		t.Errorf("the test client's folder holds %v", names)
	}
	if code, stdout, stderr := run(t, "generate", "--check", "-o", out, "-package", "files", in); code != 0 {
		t.Fatalf("--check right after generate: exit %d\n%s%s", code, stdout, stderr)
	}
	if err := os.WriteFile(client, append(data, "// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, "generate", "--check", "-o", out, "-package", "files", in)
	if code != 1 || !strings.Contains(stdout, "filestest/mcpgen_client.go") {
		t.Errorf("--check with an edited test client: exit %d\n%s", code, stdout)
	}

	command := filepath.Join(root, "cmd", "server")
	if code, _, stderr := run(t, "generate", "-o", command, "-package", "main", in); code != 0 {
		t.Fatalf("generate -package main: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(command, "maintest")); !os.IsNotExist(err) {
		t.Errorf("package main got a test client, which could not import it (stat: %v)", err)
	}

	outside := filepath.Join(t.TempDir(), "files")
	if code, _, stderr := run(t, "generate", "-o", outside, "-package", "files", in); code != 0 {
		t.Fatalf("generate outside a module: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(outside, "filestest")); !os.IsNotExist(err) {
		t.Errorf("outside a module generate wrote a test client (stat: %v)", err)
	}
}
