package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fast tests of init's decisions; init_e2e_test.go runs the whole workflow.

func TestInitRefusesExistingFilesAndChangesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes-server")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"main.go", "README.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := tree(t, dir)
	code, stdout, stderr := run(t, "init", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"  main.go\n", "  README.md\n", "nothing was changed"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "notes/tools.go") {
		t.Errorf("stderr lists a file that does not exist:\n%s", stderr)
	}
	sameTree(t, "a refused init changed the folder", before, tree(t, dir))
}

func TestInitModuleFlagInsideAModuleIsAUsageError(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "init", "--module", "example.com/other", filepath.Join(root, "srv"))
	if code != 2 || !strings.Contains(stderr, "--module") {
		t.Fatalf("exit %d, want 2 with a word on --module:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "srv")); !os.IsNotExist(err) {
		t.Errorf("a usage error created the folder (stat: %v)", err)
	}
}

func TestCheckoutDirIsThisRepository(t *testing.T) {
	want, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if got := checkoutDir(); got != want {
		t.Errorf("checkoutDir() = %q, want %q", got, want)
	}
}

func TestFindGoMod(t *testing.T) {
	root := t.TempDir()
	gomod := filepath.Join(root, "go.mod")
	if err := os.WriteFile(gomod, []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := findGoMod(filepath.Join(root, "not", "yet", "there")); got != gomod {
		t.Errorf("findGoMod below a module = %q, want %q", got, gomod)
	}
	if got := findGoMod(filepath.Join(string(filepath.Separator), "surely-no-module-here-"+t.Name())); got != "" {
		t.Errorf("findGoMod outside any module = %q", got)
	}
}

func TestDefaultModulePath(t *testing.T) {
	for dir, want := range map[string]string{
		"/tmp/notes-server": "notes-server",
		"/tmp/My Server!":   "my-server",
		"/tmp/v1.2":         "v1.2",
		"/tmp/###":          "mcpserver",
	} {
		if got := defaultModulePath(dir); got != want {
			t.Errorf("defaultModulePath(%q) = %q, want %q", dir, got, want)
		}
	}
}

func TestModulePathOf(t *testing.T) {
	for src, want := range map[string]string{
		"module github.com/mcpgen/mcpgen\n\ngo 1.25.0\n": "github.com/mcpgen/mcpgen",
		"// c\nmodule \"example.com/q\"\n":               "example.com/q",
		"go 1.25\n":                                      "",
	} {
		if got := modulePathOf([]byte(src)); got != want {
			t.Errorf("modulePathOf(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestInitInsideTheMcpgenModuleIsRefused(t *testing.T) {
	src := checkoutDir()
	if src == "" {
		t.Fatal("not running from a checkout")
	}
	dir := filepath.Join(src, "testdata", "init-must-not-create-"+t.Name())
	code, _, stderr := run(t, "init", dir)
	if code != 1 || !strings.Contains(stderr, "inside the mcpgen module") {
		t.Fatalf("exit %d, want 1 saying why:\n%s", code, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		os.RemoveAll(dir)
		t.Errorf("a refused init created %s", dir)
	}
}
