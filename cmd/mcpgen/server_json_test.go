package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serverProject writes what server-json reads of a project made by init:
// go.mod with module path mod, and a main.go passing runtime.Options.
func serverProject(t *testing.T, mod string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module " + mod + "\n\ngo 1.25.0\n",
		"main.go": `package main

import (
	mcp "github.com/mcpgen/mcpgen/runtime"
)

func main() {
	opts := mcp.Options{Name: "tickets", Version: "0.3.1", Title: "Tickets"}
	_ = mcp.NewServer(opts)
}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runMcpgen runs mcpgen in-process and returns its exit code and output.
func runMcpgen(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func readServerJSON(t *testing.T, file string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestServerJSONFromTheProject(t *testing.T) {
	dir := serverProject(t, "github.com/acme/support/tickets")
	code, stdout, stderr := runMcpgen("server-json", dir, "--description", "Track and triage support tickets",
		"--remote", "https://tickets.acme.dev/mcp", "--package", "oci:ghcr.io/acme/tickets:0.3.1")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, `LABEL io.modelcontextprotocol.server.name="io.github.acme/tickets"`) {
		t.Errorf("no hint for the image's label: %s", stdout)
	}
	file := filepath.Join(dir, "server.json")
	raw, _ := os.ReadFile(file)
	if issues, err := validateServerJSON(raw); err != nil || len(issues) > 0 {
		t.Fatalf("the written file does not validate: %v %v\n%s", err, issues, raw)
	}
	if !strings.HasPrefix(string(raw), "{\n  \"$schema\": \""+registrySchemaURL+"\",\n  \"name\": \"io.github.acme/tickets\",") {
		t.Errorf("member order or indentation:\n%s", raw)
	}
	doc := readServerJSON(t, file)
	repo, _ := doc["repository"].(map[string]any)
	if doc["version"] != "0.3.1" || doc["title"] != "Tickets" || repo["url"] != "https://github.com/acme/support" ||
		repo["source"] != "github" || repo["subfolder"] != "tickets" {
		t.Errorf("derived members: %s", raw)
	}
	pkg := doc["packages"].([]any)[0].(map[string]any)
	if pkg["registryType"] != "oci" || pkg["transport"].(map[string]any)["type"] != "stdio" ||
		pkg["packageArguments"].([]any)[0].(map[string]any)["value"] != "-stdio" {
		t.Errorf("package: %v", pkg)
	}
	if code, out, _ := runMcpgen("server-json", "--check", "-o", file); code != 0 || !strings.Contains(out, "a valid server.json") {
		t.Errorf("--check of the written file: %d %s", code, out)
	}
}

// An existing server.json is updated: members mcpgen does not write stay,
// the version follows main.go, flags override.
func TestServerJSONUpdatesAndKeeps(t *testing.T) {
	dir := serverProject(t, "github.com/acme/tickets")
	file := filepath.Join(dir, "server.json")
	old := `{
  "$schema": "https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json",
  "name": "io.github.acme/tickets",
  "description": "Tickets, as first published",
  "version": "0.1.0",
  "icons": [{"src": "https://acme.dev/icon.png", "sizes": ["48x48"]}],
  "packages": [{"registryType": "npm", "identifier": "@acme/tickets", "version": "0.1.0", "transport": {"type": "stdio"},
    "environmentVariables": [{"name": "TICKETS_TOKEN", "isSecret": true}]}],
  "_meta": {"io.modelcontextprotocol.registry/publisher-provided": {"tool": "ci"}}
}`
	if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMcpgen("server-json", dir, "--title", "Acme Tickets", "--remote", "https://tickets.acme.dev/mcp")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "$schema was https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json") {
		t.Errorf("the schema upgrade is not said: %s", stderr)
	}
	doc := readServerJSON(t, file)
	env := doc["packages"].([]any)[0].(map[string]any)["environmentVariables"]
	if doc["$schema"] != registrySchemaURL || doc["version"] != "0.3.1" || doc["title"] != "Acme Tickets" ||
		doc["description"] != "Tickets, as first published" || doc["icons"] == nil || env == nil || doc["_meta"] == nil ||
		len(doc["remotes"].([]any)) != 1 {
		t.Errorf("updated document: %v", doc)
	}
}

func TestServerJSONRefusesWithLocatedErrors(t *testing.T) {
	dir := serverProject(t, "github.com/acme/tickets")
	file := filepath.Join(dir, "server.json")
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--description", "d", "--name", "tickets"}, 1, []string{"server.json: /name: ", "(from --name)"}},
		{[]string{"--description", "d", "--remote", "http://tickets.acme.dev/mcp"}, 1, []string{"/remotes/0/url: ", "https endpoints only", "(from --remote)"}},
		{[]string{"--description", "d", "--remote", "https://localhost:8080/mcp"}, 1, []string{"/remotes/0/url: ", "this machine"}},
		{[]string{"--description", "d", "--remote", "https://{tenant}.acme.dev/mcp"}, 1, []string{"uses {tenant}"}},
		{[]string{"--description", strings.Repeat("x", 101)}, 1, []string{"/description: ", "(from --description)"}},
		{[]string{"--description", "d", "--version", "^1.0.0"}, 1, []string{"/version: ", "range", "(from --version)"}},
		{[]string{"--description", "d", "--version", "latest"}, 1, []string{"/version: ", "reserved"}},
		{[]string{"--description", "d", "--website", "http://acme.dev"}, 1, []string{"/websiteUrl: "}},
		{[]string{"--description", "d", "--repository", "https://github.com/acme"}, 1, []string{"/repository/url: "}},
		{[]string{"--description", "d", "--subfolder", "../up"}, 1, []string{"/repository/subfolder: "}},
		{[]string{"--description", "d", "--package", "oci:ghcr.io/acme/tickets"}, 1, []string{"/packages/0/identifier: ", "no tag"}},
		{[]string{"--description", "d", "--package", "mcpb:https://github.com/acme/tickets/releases/download/v1/t.mcpb", "--sha256", "XYZ"}, 1, []string{"/packages/0/fileSha256: "}},
		{[]string{"--description", "d", "--package", "mcpb:https://github.com/acme/t.mcpb"}, 2, []string{"needs --sha256"}},
		{[]string{"--description", "d", "--package", "cargo:tickets"}, 2, []string{"one of oci, mcpb, npm, pypi, nuget"}},
		{[]string{"--description", "d", "--package", "oci"}, 2, []string{"TYPE:IDENTIFIER"}},
		{[]string{"--description", "d", "--repository", "https://bitbucket.org/acme/tickets"}, 2, []string{"GitHub and GitLab"}},
		{[]string{}, 2, []string{"--description is required"}},
	}
	for _, c := range cases {
		code, stdout, stderr := runMcpgen(append([]string{"server-json", dir}, c.args...)...)
		if code != c.code {
			t.Errorf("%q: exit %d, want %d: %s%s", c.args, code, c.code, stdout, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%q: stderr lacks %q:\n%s", c.args, w, stderr)
			}
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("%q: a refused document was written", c.args)
		}
	}
}

func TestServerJSONCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "server.json")
	bad := `{"$schema": "` + registrySchemaURL + `", "name": "io.github.acme/tickets", "description": "d", "version": "1.0.0",
  "remotes": [{"type": "websocket", "url": "https://x.acme.dev/mcp"}],
  "packages": [{"registryType": "npm", "identifier": "t", "transport": {"type": "stdio"}}],
  "_meta": {"com.acme/x": 1}}`
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runMcpgen("server-json", "--check", dir)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{file + ": /remotes/0", file + ": /packages/0/version: a npm package needs its version", "/_meta/com.acme~1x: "} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	// A file that is not JSON is refused and left as it is.
	if err := os.WriteFile(file, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runMcpgen("server-json", dir, "--description", "d", "--name", "io.github.acme/t", "--version", "1.0.0"); code != 1 || !strings.Contains(stderr, "not a JSON object") {
		t.Errorf("a broken file: %d %s", code, stderr)
	}
	if raw, _ := os.ReadFile(file); string(raw) != "{" {
		t.Errorf("the broken file was changed: %q", raw)
	}
}

func TestServerJSONToStdout(t *testing.T) {
	dir := serverProject(t, "example.com/team/tickets")
	code, stdout, stderr := runMcpgen("server-json", dir, "-o", "-", "--description", "d", "--remote", "https://mcp.example.com/mcp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc["name"] != "com.example/tickets" || doc["repository"] != nil {
		t.Errorf("%v: %s", err, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "server.json")); err == nil {
		t.Error("-o - wrote a file")
	}
}

func TestRegistryNameAndRepository(t *testing.T) {
	for _, c := range []struct{ mod, server, name, repo, sub string }{
		{"github.com/acme/tickets", "tickets", "io.github.acme/tickets", "https://github.com/acme/tickets", ""},
		{"github.com/acme/tools/tickets/v2", "", "io.github.acme/tickets", "https://github.com/acme/tools", "tickets"},
		{"github.com/acme/tickets/v3", "", "io.github.acme/tickets", "https://github.com/acme/tickets", ""},
		{"gitlab.com/acme/group/tickets", "desk", "io.gitlab.acme/desk", "https://gitlab.com/acme/group/tickets", ""},
		{"mcp.example.com/tickets", "tickets", "com.example.mcp/tickets", "", ""},
	} {
		name, err := registryName(c.mod, c.server)
		if err != nil || name != c.name {
			t.Errorf("registryName(%q, %q) = %q, %v; want %q", c.mod, c.server, name, err, c.name)
		}
		r := repositoryOf(c.mod)
		switch {
		case c.repo == "" && r != nil:
			t.Errorf("repositoryOf(%q) = %+v", c.mod, r)
		case c.repo != "" && (r == nil || r.URL != c.repo || r.Subfolder != c.sub):
			t.Errorf("repositoryOf(%q) = %+v; want %s %s", c.mod, r, c.repo, c.sub)
		}
	}
	if _, err := registryName("tickets", "tickets"); err == nil || !strings.Contains(err.Error(), "--name") {
		t.Errorf("a module path without a host: %v", err)
	}
}
