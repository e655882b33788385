package runtime

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
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
	if e := s.scopeError(ctx, "prompt 'plan'", []string{"plans:read"}); e == nil || !strings.Contains(e.Message, "insufficient_scope") {
		t.Errorf("method-level check: %v", e)
	}
	rq := &request{method: "completion/complete", params: &requestParams{
		Ref: json.RawMessage(`{"type":"ref/prompt","name":"plan"}`), Argument: json.RawMessage(`{"name":"topic","value":"s"}`)}}
	if o := s.complete(ctx, rq); o.err == nil || !strings.Contains(o.err.Message, "prompt \"plan\" requires scope plans:read") {
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
