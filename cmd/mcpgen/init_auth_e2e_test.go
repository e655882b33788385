package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestInitAuthRejectsABadIssuer(t *testing.T) {
	for _, bad := range []string{"auth.example.com", "https://auth.example.com?x=1", `https://a"b`} {
		code, _, stderr := run(t, "init", "--auth", bad, filepath.Join(t.TempDir(), "srv"))
		if code != 2 || !strings.Contains(stderr, "--auth") {
			t.Errorf("--auth %s: exit %d\n%s", bad, code, stderr)
		}
	}
}

// A scaffold with --auth builds offline against this checkout's runtime and
// oauth modules and serves as a resource server: 401 with a challenge, and
// metadata naming the issuer and the scopes of its schemas; and, with the
// development issuer's tokens, it delivers note_added by signed webhook.
func TestInitAuthEndToEnd(t *testing.T) {
	e2eEnv(t, "oauth")
	dir := filepath.Join(t.TempDir(), "secure-notes")
	const issuer = "http://127.0.0.1:9/issuer"
	code, stdout, stderr := run(t, "init", "--auth", issuer, dir)
	if code != 0 {
		t.Fatalf("init --auth: exit %d\n%s%s", code, stdout, stderr)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gomod), oauthModule+" => ") {
		t.Errorf("go.mod does not point %s at the checkout:\n%s", oauthModule, gomod)
	}
	mustGo(t, dir, "generate", "./...")
	mustGo(t, dir, "vet", "./...")
	bin := filepath.Join(t.TempDir(), "secure-notes")
	mustGo(t, dir, "build", "-o", bin, ".")

	base := strings.TrimSuffix(startHTTPServer(t, bin), "/mcp")
	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	want := `Bearer resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp"`
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: %d %q, want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
	resp, err = http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&prm); err != nil {
		t.Fatal(err)
	}
	if prm.Resource != base+"/mcp" || !slices.Equal(prm.AuthorizationServers, []string{issuer}) ||
		!slices.Equal(prm.ScopesSupported, []string{"notes:write", "notes:read"}) {
		t.Errorf("metadata: %+v", prm)
	}
	t.Run("webhooks", func(t *testing.T) { testWebhooks(t, dir, bin) })
}
