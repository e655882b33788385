package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNameFromFolder(t *testing.T) {
	for folder, want := range map[string]string{
		"tickets-server": "tickets", "mcp-tickets": "tickets", "tickets-mcp": "tickets", "tickets_mcp_server": "tickets",
		"Notes": "notes", "my-notes": "mynotes", "notes2": "notes2", "mcp-server-github": "github", "server": "server",
		"mcp": "mcp", "-server": "server",
	} {
		if got := nameFromFolder(folder); got != want {
			t.Errorf("nameFromFolder(%q) = %q, want %q", folder, got, want)
		}
	}
}

// A bad --name, or a folder no name can be made from, is a usage error
// that says what a name may be, before anything is written.
func TestInitRefusesBadNames(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--name", "Tickets"}, "lowercase letters a-z and digits"},
		{[]string{"--name", "tickets-server"}, "lowercase letters a-z and digits"},
		{[]string{"--name", "2fa"}, "starting with a letter"},
		{[]string{"--name", "func"}, "Go keyword"},
		{[]string{"--name", "main"}, "command package"},
		{[]string{"--name", "string"}, "predeclared"},
		{[]string{"--name", strings.Repeat("a", 65)}, "longer than 64"},
		{[]string{"--name", "runtime"}, "main.go imports github.com/mcpgen/mcpgen/runtime"},
		{[]string{"--name", "flag"}, "main.go imports flag"},
		{[]string{"--name", "mcp"}, "imports github.com/mcpgen/mcpgen/mcptest"}, // the test client mcptest
		{[]string{"--name", "config"}, "main.go declares type config"},
	} {
		dir := filepath.Join(t.TempDir(), "srv")
		code, _, stderr := run(t, append(append([]string{"init"}, tc.args...), dir)...)
		if code != 2 || !strings.Contains(stderr, tc.says) {
			t.Errorf("init %v: exit %d, want 2 saying %q:\n%s", tc.args, code, tc.says, stderr)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("init %v wrote %s (stat: %v)", tc.args, dir, err)
		}
	}
	dir := filepath.Join(t.TempDir(), "2048")
	if code, _, stderr := run(t, "init", dir); code != 2 || !strings.Contains(stderr, `folder's name "2048"`) || !strings.Contains(stderr, "--name") {
		t.Errorf("init into a folder named 2048: exit %d:\n%s", code, stderr)
	}
}
