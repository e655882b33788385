package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The runtime's side of authorization, with a table of tokens standing in
// for a verifier (the real JWT and introspection verifiers live in the oauth
// module and are tested there, and end to end against a real authorization
// server in authtest/).

const testIssuer = "https://as.example"

// tableVerifier knows a few tokens.
func tableVerifier() TokenVerifier {
	exp := time.Now().Add(time.Hour)
	tokens := map[string]*Principal{
		"alice-read":  {Issuer: testIssuer, Subject: "alice", Scopes: []string{"mcp:read"}, Expiry: exp},
		"alice-write": {Issuer: testIssuer, Subject: "alice", Scopes: []string{"mcp:read", "mcp:write", "openid"}, Expiry: exp},
		"bob-write":   {Issuer: testIssuer, Subject: "bob", Scopes: []string{"mcp:read", "mcp:write"}, Expiry: exp},
		"expired":     {Issuer: testIssuer, Subject: "alice", Scopes: []string{"mcp:read"}, Expiry: time.Now().Add(-time.Minute)},
		"no-read":     {Issuer: testIssuer, Subject: "carol", Scopes: []string{"other"}, Expiry: exp},
	}
	return TokenVerifierFunc(func(_ context.Context, tok string) (*Principal, error) {
		if tok == "down" {
			return nil, fmt.Errorf("%w: dial tcp: refused", ErrAuthUnavailable)
		}
		if p := tokens[tok]; p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("%w: signature \"bad\" = no", ErrInvalidToken)
	})
}

// whoTool reports the principal the handler sees; writeTool needs mcp:write.
func whoTool(name string, scopes ...string) Tool {
	t := toolOf(name, `{"type":"object"}`, func(_ context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		p := call.Principal()
		if p == nil {
			return ContentResult(call, []Content{Text("anonymous")}), nil
		}
		return ContentResult(call, []Content{Text(p.Subject + " " + strings.Join(p.Scopes, ","))}), nil
	})
	t.Scopes = scopes
	return t
}

func authOptions(resource string) Options {
	return Options{Name: "auth-test", Auth: &Auth{
		Resource:             resource,
		AuthorizationServers: []string{testIssuer},
		Verifier:             tableVerifier(),
		Scopes:               []string{"mcp:read"},
		FilterLists:          true,
	}}
}

func bearer(tok string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}

func TestAuthConfigErrors(t *testing.T) {
	v := tableVerifier()
	for _, tc := range []struct {
		a    Auth
		want string
	}{
		{Auth{Resource: "https://a/mcp", AuthorizationServers: []string{testIssuer}}, "Verifier is required"},
		{Auth{Resource: "a.example/mcp", AuthorizationServers: []string{testIssuer}, Verifier: v}, "Resource"},
		{Auth{Resource: "https://a/mcp#x", AuthorizationServers: []string{testIssuer}, Verifier: v}, "fragment"},
		{Auth{Resource: "https://a/mcp/", AuthorizationServers: []string{testIssuer}, Verifier: v}, "slash"},
		{Auth{Resource: "https://A/mcp", AuthorizationServers: []string{testIssuer}, Verifier: v}, "lowercase"},
		{Auth{Resource: "https://a/mcp", Verifier: v}, "AuthorizationServers"},
		{Auth{Resource: "https://a/mcp", AuthorizationServers: []string{"as"}, Verifier: v}, "AuthorizationServers[0]"},
		{Auth{Resource: "https://a/mcp", AuthorizationServers: []string{testIssuer}, Verifier: v, Scopes: []string{`a"b`}}, "scope"},
	} {
		err := tc.a.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error naming %q", tc.a.Resource, err, tc.want)
		}
	}
	s := NewServer(Options{})
	bad := whoTool("bad", "a b")
	if err := s.AddTool(bad); err == nil || !strings.Contains(err.Error(), `tool "bad": scope "a b"`) {
		t.Errorf("AddTool with a bad scope: %v", err)
	}
}

func TestAuthResourceMetadata(t *testing.T) {
	_, ts := legacyServer(t, authOptions("http://127.0.0.1:1/mcp"), whoTool("read", "mcp:read"), whoTool("write", "mcp:write"))
	resp, err := http.Get(ts.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	want := `{"resource":"http://127.0.0.1:1/mcp","authorization_servers":["https://as.example"],"scopes_supported":["mcp:read","mcp:write"],"bearer_methods_supported":["header"],"resource_name":"auth-test"}`
	if string(body) != want {
		t.Errorf("metadata\n got %s\nwant %s", body, want)
	}
}

func TestAuthRefusals(t *testing.T) {
	_, ts := legacyServer(t, authOptions("http://127.0.0.1:1/mcp"), whoTool("read", "mcp:read"))
	c := newClient(t, ts)
	meta := `resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"`
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		name   string
		edit   func(*http.Request)
		status int
		header string
	}{
		{"no token", func(*http.Request) {}, 401, `Bearer scope="mcp:read", ` + meta},
		{"basic", func(r *http.Request) { r.SetBasicAuth("a", "b") }, 401, `Bearer scope="mcp:read", ` + meta},
		{"query", func(r *http.Request) { r.URL.RawQuery = "access_token=alice-read"; bearer("alice-read")(r) }, 400,
			`Bearer error="invalid_request", error_description="access tokens must be sent in the Authorization header, never in the query string", ` + meta},
		{"two headers", func(r *http.Request) {
			r.Header.Add("Authorization", "Bearer a")
			r.Header.Add("Authorization", "Bearer b")
		}, 400,
			`Bearer error="invalid_request", error_description="more than one Authorization header", ` + meta},
		{"empty bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") }, 400,
			`Bearer error="invalid_request", error_description="the Authorization header must be Bearer followed by one token", ` + meta},
		{"invalid", bearer("forged"), 401, `Bearer error="invalid_token", error_description="invalid token: signature 'bad' ' no", scope="mcp:read", ` + meta},
		{"expired", bearer("expired"), 401, `Bearer error="invalid_token", error_description="the token has expired", scope="mcp:read", ` + meta},
		{"server-wide scope", bearer("no-read"), 403, `Bearer error="insufficient_scope", error_description="this server requires scope mcp:read", scope="mcp:read", ` + meta},
	} {
		resp := c.post(init, tc.edit)
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != tc.status || len(resp.Header.Values("WWW-Authenticate")) != 1 || resp.Header.Get("WWW-Authenticate") != tc.header {
			t.Errorf("%s: got %d %q\nwant %d %q", tc.name, resp.StatusCode, resp.Header.Values("WWW-Authenticate"), tc.status, tc.header)
		}
	}
	resp := c.post(init, bearer("down"))
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("verifier unavailable: got %d %v", resp.StatusCode, resp.Header)
	}
}

func TestAuthLegacyScopesAndSessions(t *testing.T) {
	_, ts := legacyServer(t, authOptions("http://127.0.0.1:1/mcp"), whoTool("read", "mcp:read"), whoTool("write", "mcp:write"))
	c := newClient(t, ts)
	tok := "alice-read"
	auth := func(r *http.Request) { bearer(tok)(r) }
	resp := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, auth)
	if resp.StatusCode != 200 {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	c.session, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	if got := resultText(t, jsonBody(t, c.post(callBody(1, "read", `{}`), auth))); got != "alice mcp:read" {
		t.Errorf("read: %q", got)
	}
	// tools/list shows only what the token may call.
	if l := string(jsonBody(t, c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, auth)).Result); strings.Contains(l, `"write"`) || !strings.Contains(l, `"read"`) {
		t.Errorf("filtered list: %s", l)
	}
	resp = c.post(callBody(3, "write", `{}`), auth)
	body, _ := io.ReadAll(resp.Body)
	want := `Bearer error="insufficient_scope", error_description="tool 'write' requires scope mcp:write", scope="mcp:write mcp:read", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"`
	if resp.StatusCode != 403 || resp.Header.Get("WWW-Authenticate") != want || !strings.Contains(string(body), `"id":3`) {
		t.Errorf("write with read scope: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
	// Step-up: a new token of the same principal keeps the session.
	tok = "alice-write"
	if got := resultText(t, jsonBody(t, c.post(callBody(4, "write", `{}`), auth))); got != "alice mcp:read,mcp:write,openid" {
		t.Errorf("write after step-up: %q", got)
	}
	// Another principal presenting the session ID: as if it did not exist.
	tok = "bob-write"
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		resp = c.do(c.request(m, callBody(5, "read", `{}`), auth))
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != 404 {
			t.Errorf("%s by bob on alice's session: %d, want 404", m, resp.StatusCode)
		}
	}
	tok = "alice-read"
	if got := resultText(t, jsonBody(t, c.post(callBody(6, "read", `{}`), auth))); got != "alice mcp:read" {
		t.Errorf("the session still works for alice: %q", got)
	}
}

func TestAuthModernScopesAndRequestState(t *testing.T) {
	s := NewServer(authOptions("http://127.0.0.1:1/mcp"))
	for _, tool := range []Tool{whoTool("read", "mcp:read"), whoTool("write", "mcp:write"), confirmTool()} {
		if err := s.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	leakCheck(t)
	c := modernServer(t, s)
	c.caps = map[string]any{"elicitation": map[string]any{}}
	as := func(tok string) reqOpt { return withHeader("Authorization", "Bearer "+tok) }
	if r := c.call("tools/call", map[string]any{"name": "read", "arguments": map[string]any{}}); r.status != 401 ||
		r.header.Get("WWW-Authenticate") != `Bearer scope="mcp:read", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"` {
		t.Errorf("no token: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	if r := c.call("server/discover", nil); r.status != 401 {
		t.Errorf("server/discover without a token: %d", r.status)
	}
	r := c.call("tools/call", map[string]any{"name": "write", "arguments": map[string]any{}}, as("alice-read"))
	if want := `Bearer error="insufficient_scope", error_description="tool 'write' requires scope mcp:write", scope="mcp:write mcp:read", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"`; r.status != 403 || r.header.Get("WWW-Authenticate") != want {
		t.Errorf("write with read scope: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	if got := c.call("tools/call", map[string]any{"name": "write", "arguments": map[string]any{}}, as("alice-write")).result(t); !strings.Contains(jsonOf(got), "alice mcp:read,mcp:write,openid") {
		t.Errorf("write: %s", jsonOf(got))
	}
	list := c.call("tools/list", nil, as("alice-read")).result(t)
	if l := jsonOf(list); strings.Contains(l, `"write"`) || list["cacheScope"] != "private" {
		t.Errorf("filtered list: %s", l)
	}
	// requestState is bound to the principal that got it.
	first := c.call("tools/call", map[string]any{"name": "confirm", "arguments": map[string]any{}}, as("alice-read")).result(t)
	state, _ := first["requestState"].(string)
	if state == "" {
		t.Fatalf("want input_required: %s", jsonOf(first))
	}
	retry := map[string]any{"name": "confirm", "arguments": map[string]any{}, "requestState": state,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}
	bob := c.call("tools/call", retry, as("bob-write"))
	if bob.status != 200 || bob.errCode(t) != CodeInvalidParams || !strings.Contains(jsonOf(bob.final(t)), "requestState was issued to another principal") {
		t.Errorf("bob replaying alice's requestState: %d %s", bob.status, jsonOf(bob.final(t)))
	}
	if got := jsonOf(c.call("tools/call", retry, as("alice-write")).result(t)); !strings.Contains(got, "confirm=true") {
		t.Errorf("alice's retry with a refreshed token: %s", got)
	}
}

// Over stdio the environment provides credentials: Options.Auth does not
// apply, and handlers see no principal.
func TestAuthStdioUnaffected(t *testing.T) {
	noLeaks(t)
	s := NewServer(authOptions("http://127.0.0.1:1/mcp"))
	if err := s.AddTool(whoTool("write", "mcp:write")); err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + callBody(1, "write", "{}") + "\n")
	var out strings.Builder
	if err := s.ServeStdio(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"text":"anonymous"`) {
		t.Errorf("stdio call: %s", out.String())
	}
}

// TestInterceptorsSeeThePrincipal: an incoming interceptor knows who the
// request's token speaks for.
func TestInterceptorsSeeThePrincipal(t *testing.T) {
	opts := authOptions("http://127.0.0.1:1/mcp")
	seen := make(chan string, 4)
	opts.Interceptors = []Interceptor{{Incoming: func(next IncomingFunc) IncomingFunc {
		return func(ctx context.Context, req *IncomingRequest) *Response {
			if req.Principal != nil {
				seen <- req.Method + " " + req.Principal.Subject
			}
			return next(ctx, req)
		}
	}}}
	_, ts := legacyServer(t, opts, whoTool("read", "mcp:read"))
	c := newClient(t, ts)
	resp := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, bearer("alice-read"))
	c.session, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	if got := resultText(t, jsonBody(t, c.post(callBody(1, "read", `{}`), bearer("alice-read")))); got != "alice mcp:read" {
		t.Fatalf("read: %q", got)
	}
	for _, want := range []string{"initialize alice", "tools/call alice"} {
		if got := <-seen; got != want {
			t.Errorf("interceptor saw %q, want %q", got, want)
		}
	}
}

// Logs name the subject of a request, never its token.
func TestAuthLogsNameTheSubjectNotTheToken(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	opts := authOptions("http://127.0.0.1:1/mcp")
	opts.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	_, ts := legacyServer(t, opts, whoTool("read", "mcp:read"), whoTool("write", "mcp:write"))
	c := newClient(t, ts)
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp := c.post(init, bearer("alice-read"))
	c.session, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	for _, tok := range []string{"alice-read", "forged", "expired", "bob-write"} {
		r := c.post(callBody(1, "write", `{}`), bearer(tok))
		io.Copy(io.Discard, r.Body)
	}
	mu.Lock()
	out := logs.String()
	mu.Unlock()
	for _, want := range []string{"subject=alice", "error=insufficient_scope", "error=invalid_token", "subject=bob"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %q:\n%s", want, out)
		}
	}
	for _, tok := range []string{"alice-read", "forged", "bob-write", "Bearer"} {
		if strings.Contains(out, tok) {
			t.Errorf("logs contain the token %q:\n%s", tok, out)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestAuthFilteredListWrapsOutputForLegacy: a filtered tools/list shows a
// 2025 session the object-rooted outputSchema that session's unfiltered
// list shows (output_root.go), not the array schema 2025 clients refuse.
func TestAuthFilteredListWrapsOutputForLegacy(t *testing.T) {
	tool := toolOf("ids", `{"type":"object"}`, func(_ context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		return ContentResult(call, nil), nil
	})
	tool.Definition = json.RawMessage(`{"name":"ids","description":"d","inputSchema":{"type":"object"},"outputSchema":{"type":"array","items":{"type":"integer"}}}`)
	tool.Scopes = []string{"mcp:read"}
	_, ts := legacyServer(t, authOptions("http://127.0.0.1:1/mcp"), tool)
	c := newClient(t, ts)
	resp := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, bearer("alice-read"))
	c.session, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	list := string(jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, bearer("alice-read"))).Result)
	if strings.Contains(list, `"outputSchema":{"type":"array"`) || !strings.Contains(list, `"required":["result"],"type":"object"`) {
		t.Errorf("filtered list for a 2025 session: %s", list)
	}
}
