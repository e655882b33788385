package runtime

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Prompts and resources declare scopes like tools, with the same 403
// challenge before their handlers run.

func authFeatureServer(t *testing.T) *Server {
	t.Helper()
	s := NewServer(authOptions("http://127.0.0.1:1/mcp"))
	ph := func(_ context.Context, call *Call, _ map[string]string) (*PromptResult, error) {
		return &PromptResult{Messages: []PromptMessage{{Role: RoleUser, Content: Text("for " + call.Principal().Subject)}}}, nil
	}
	rh := func(_ context.Context, call *Call, uri string) (*ResourceResult, error) {
		return &ResourceResult{Contents: []ResourceContents{{URI: uri, Text: "secret for " + call.Principal().Subject}}}, nil
	}
	th := func(_ context.Context, call *Call, uri string, _ URIVars) (*ResourceResult, error) {
		return &ResourceResult{Contents: []ResourceContents{{URI: uri, Text: "note for " + call.Principal().Subject}}}, nil
	}
	for _, err := range []error{
		s.AddPrompt(Prompt{Name: "plan", Definition: json.RawMessage(`{"name":"plan","arguments":[{"name":"topic"}]}`), Handler: ph, Scopes: []string{"plans:read"},
			Complete: map[string]CompletionHandler{"topic": func(context.Context, CompletionRequest) (*Completion, error) {
				return &Completion{Values: []string{"secret plan"}}, nil
			}}}),
		s.AddResource(Resource{URI: "test://secret", Definition: json.RawMessage(`{"uri":"test://secret","name":"secret"}`), Handler: rh, Scopes: []string{"secrets:read"}}),
		s.AddResourceTemplate(ResourceTemplate{URITemplate: "test://notes/{id}", Definition: json.RawMessage(`{"uriTemplate":"test://notes/{id}","name":"note"}`), Handler: th, Scopes: []string{"mcp:write"}}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestAuthFeatureScopes(t *testing.T) {
	s := authFeatureServer(t)
	if err := s.AddPrompt(Prompt{Name: "bad", Definition: json.RawMessage(`{"name":"bad"}`), Handler: func(context.Context, *Call, map[string]string) (*PromptResult, error) { return nil, nil }, Scopes: []string{""}}); err == nil || !strings.Contains(err.Error(), `prompt "bad": scope ""`) {
		t.Errorf("a bad prompt scope: %v", err)
	}
	leakCheck(t)
	c := modernServer(t, s)
	as := func(tok string) reqOpt { return withHeader("Authorization", "Bearer "+tok) }
	meta := `resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"`
	for _, tc := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{"prompts/get", map[string]any{"name": "plan"}, `Bearer error="insufficient_scope", error_description="prompt 'plan' requires scope plans:read", scope="plans:read mcp:read", ` + meta},
		{"resources/read", map[string]any{"uri": "test://secret"}, `Bearer error="insufficient_scope", error_description="resource 'test://secret' requires scope secrets:read", scope="secrets:read mcp:read", ` + meta},
		{"resources/read", map[string]any{"uri": "test://notes/7"}, `Bearer error="insufficient_scope", error_description="resource 'test://notes/7' requires scope mcp:write", scope="mcp:write mcp:read", ` + meta},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "plan"}, "argument": map[string]any{"name": "topic", "value": "s"}},
			`Bearer error="insufficient_scope", error_description="prompt 'plan' requires scope plans:read", scope="plans:read mcp:read", ` + meta},
	} {
		r := c.call(tc.method, tc.params, as("alice-read"), withHeader(headerName, ""))
		if r.status != 403 || r.header.Get("WWW-Authenticate") != tc.want {
			t.Errorf("%s %v: got %d %q\nwant 403 %q", tc.method, tc.params, r.status, r.header.Get("WWW-Authenticate"), tc.want)
		}
	}
	if got := jsonOf(c.call("resources/read", map[string]any{"uri": "test://notes/7"}, as("alice-write")).result(t)); !strings.Contains(got, "note for alice") {
		t.Errorf("read with mcp:write: %s", got)
	}
	// The metadata advertises every declared scope.
	resp, err := http.Get(c.url + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"scopes_supported":["mcp:read","plans:read","secrets:read","mcp:write"]`) {
		t.Errorf("metadata: %s", body)
	}
	// The method checks again when no transport did (a Server driven
	// without HTTP, as in a test or another transport).
	ctx := withPrincipal(context.Background(), &Principal{Issuer: testIssuer, Subject: "alice", Scopes: []string{"mcp:read"}})
	if e := s.d.scopeError(ctx, "prompt 'plan'", []string{"plans:read"}); e == nil || !strings.Contains(e.Message, "insufficient_scope") {
		t.Errorf("method-level check: %v", e)
	}
	msg := &message{JSONRPC: "2.0", ID: json.RawMessage("1"), Method: "completion/complete",
		Params: json.RawMessage(`{"ref":{"type":"ref/prompt","name":"plan"},"argument":{"name":"topic","value":"s"}}`)}
	msg.decodeParams(s.d.row(msg.Method).params)
	rq := &request{id: msg.ID, method: msg.Method, params: msg.params(), era: &legacyExchange{}, msg: msg}
	if o := s.d.serveMethod(ctx, rq); o.err == nil || !strings.Contains(o.err.Message, "prompt \"plan\" requires scope plans:read") {
		t.Errorf("completion without plans:read: %+v", o)
	}
}

// TestAuthFilterListsFeatures: with FilterLists, prompts/list,
// resources/list and resources/templates/list show a principal only what
// its token's scopes allow, and are cached privately.
func TestAuthFilterListsFeatures(t *testing.T) {
	leakCheck(t)
	s := authFeatureServer(t)
	if err := s.AddPrompt(Prompt{Name: "open", Definition: json.RawMessage(`{"name":"open"}`),
		Handler: func(context.Context, *Call, map[string]string) (*PromptResult, error) { return &PromptResult{}, nil }}); err != nil {
		t.Fatal(err)
	}
	c := modernServer(t, s)
	as := func(tok string) reqOpt { return withHeader("Authorization", "Bearer "+tok) }
	for _, tc := range []struct {
		method, tok   string
		want, wantNot string
	}{
		{"prompts/list", "alice-read", `"open"`, `"plan"`},
		{"resources/list", "alice-read", `"resources":[]`, `test://secret`},
		{"resources/templates/list", "alice-read", `"resourceTemplates":[]`, `test://notes`},
		{"resources/templates/list", "alice-write", `test://notes/{id}`, `"resourceTemplates":[]`},
	} {
		res := c.call(tc.method, nil, as(tc.tok)).result(t)
		got := jsonOf(res)
		if !strings.Contains(got, tc.want) || strings.Contains(got, tc.wantNot) || res["cacheScope"] != "private" {
			t.Errorf("%s as %s: %s, want %s and not %s, cached privately", tc.method, tc.tok, got, tc.want, tc.wantNot)
		}
	}
}

// TestListenNeedsTheScopesOfItsResources: a 2026-07-28 subscriptions/listen
// stream on a resource needs the resource's scopes, as the legacy
// resources/subscribe does: without them the transport answers 403 with a
// challenge, and no update reaches the client; with them the stream is
// acknowledged.
func TestListenNeedsTheScopesOfItsResources(t *testing.T) {
	leakCheck(t)
	s := authFeatureServer(t)
	c := modernServer(t, s)
	filter := map[string]any{"resourceSubscriptions": []string{"test://notes/1", "test://secret"}}
	// A stream that opened would not end: bound the wait for the refusal.
	refusal, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	r := c.call("subscriptions/listen", map[string]any{"notifications": filter}, withHeader("Authorization", "Bearer alice-write"), withCtx(refusal))
	want := `Bearer error="insufficient_scope", error_description="resource 'test://secret' requires scope secrets:read", scope="secrets:read mcp:read mcp:write", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"`
	if r.status != http.StatusForbidden || r.header.Get("WWW-Authenticate") != want || len(r.notifications("notifications/subscriptions/acknowledged")) != 0 {
		t.Errorf("listen on test://secret without secrets:read: %d %q %s\nwant 403 %q", r.status, r.header.Get("WWW-Authenticate"), r.body, want)
	}
	// The method checks too, for transports that do not (a driven Server).
	msg := &message{JSONRPC: "2.0", ID: json.RawMessage("1"), Method: "subscriptions/listen",
		Params: json.RawMessage(`{"notifications":{"resourceSubscriptions":["test://secret"]}}`)}
	ctx := withPrincipal(context.Background(), &Principal{Issuer: testIssuer, Subject: "alice", Scopes: []string{"mcp:read"}})
	msg.decodeParams(s.d.row(msg.Method).params)
	rq := &request{id: msg.ID, method: msg.Method, params: msg.params(), era: &modernExchange{core: s.http.modern, meta: &requestMeta{ProtocolVersion: Version20260728}}, msg: msg}
	if o := s.d.serveMethod(ctx, rq); o.err == nil || !strings.Contains(o.err.Message, "requires scope secrets:read") {
		t.Errorf("method-level check of listen: %+v", o.err)
	}
	// With the scopes of every resource it names, the stream opens.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, body := c.send("subscriptions/listen", map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{"test://notes/1"}}},
		withHeader("Authorization", "Bearer alice-write"), withCtx(ctx))
	defer body.Close()
	if ack := newSSEReader(body).next(t); resp.StatusCode != 200 || ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Errorf("listen with the scope: %d %v", resp.StatusCode, ack)
	}
}
