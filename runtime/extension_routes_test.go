package runtime

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

func cardRoute(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = io.WriteString(w, body)
	})
}

// TestExtensionRoutes: an extension's routes are served by the Server as a
// handler on any mux (Routes lists them) and by Serve, before the MCP
// endpoint's checks; the endpoint is untouched.
func TestExtensionRoutes(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{})
	t.Cleanup(func() { _ = s.Close() })
	if err := s.AddExtension(Extension{ID: "x.example/card", Routes: map[string]http.Handler{
		"GET /.well-known/x/card.json": cardRoute(`{"card":true}`),
		"/x/hooks/{id}":                cardRoute(`hook`),
	}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Routes(); !slices.Equal(got, []string{"/x/hooks/{id}", "GET /.well-known/x/card.json"}) {
		t.Errorf("Routes: %v", got)
	}
	get := func(url, origin string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// As a handler on a user's mux.
	mux := http.NewServeMux()
	mux.Handle("/mcp", s)
	for _, p := range s.Routes() {
		mux.Handle(p, s)
	}
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	if st, body := get(ts.URL+"/.well-known/x/card.json", "https://elsewhere.example"); st != 200 || body != `{"card":true}` {
		t.Errorf("the card from another origin: %d %q", st, body)
	}
	if st, body := get(ts.URL+"/x/hooks/7", ""); st != 200 || body != "hook" {
		t.Errorf("a hook: %d %q", st, body)
	}
	if st, _ := get(ts.URL+"/mcp", "https://elsewhere.example"); st != http.StatusForbidden {
		t.Errorf("the MCP endpoint from another origin: %d", st)
	}
	// Through Serve.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	if st, body := get(base+"/.well-known/x/card.json", ""); st != 200 || body != `{"card":true}` {
		t.Errorf("Serve: the card: %d %q", st, body)
	}
	if st, _ := get(base+"/elsewhere", ""); st != http.StatusNotFound {
		t.Errorf("Serve: an unknown path: %d", st)
	}
	stop()
	if err := <-served; err != nil {
		t.Error(err)
	}
	http.DefaultClient.CloseIdleConnections()
}

// TestExtensionRoutesAreChecked: a route that is malformed, taken by
// another extension, or would take the MCP endpoint refuses the whole
// extension, which then adds nothing.
func TestExtensionRoutesAreChecked(t *testing.T) {
	s := NewServer(scopedOptions(Options{}))
	defer s.Close()
	if err := s.AddExtension(Extension{ID: "x.example/a", Routes: map[string]http.Handler{"GET /card": cardRoute("a")}}); err != nil {
		t.Fatal(err)
	}
	ok := func(context.Context, *MethodRequest) (*MethodResult, error) {
		return &MethodResult{Result: struct{}{}}, nil
	}
	for _, tc := range []struct {
		routes map[string]http.Handler
		want   string
	}{
		{map[string]http.Handler{"GET /card": cardRoute("b")}, "conflicts"},
		{map[string]http.Handler{"/": cardRoute("b")}, "/mcp"},
		{map[string]http.Handler{"/mcp": cardRoute("b")}, "/mcp"},
		{map[string]http.Handler{"/.well-known/oauth-protected-resource/mcp": cardRoute("b")}, "MCP"},
		{map[string]http.Handler{"BAD PATTERN x": cardRoute("b")}, "route"},
		{map[string]http.Handler{"/ok": nil}, "no handler"},
	} {
		err := s.AddExtension(Extension{ID: "x.example/b", Routes: tc.routes, Methods: []Method{{Name: "b/m", Authorize: NoScopes, Serve: ok}}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("routes %v: %v, want an error saying %q", tc.routes, err, tc.want)
		}
		if _, added := s.Extension("x.example/b"); added || s.d.row("b/m") != nil {
			t.Errorf("routes %v: the refused extension was added", tc.routes)
		}
	}
}

// TestDescribeAndOnChange: the description reports what the server serves
// and declares per version, and OnChange tells of every feature and
// extension added and of announced list changes.
func TestDescribeAndOnChange(t *testing.T) {
	s := NewServer(Options{Name: "desc", Title: "Described", Version: "1.2.3", Instructions: "Read me."})
	defer s.Close()
	var changes atomic.Int64
	if err := s.AddExtension(Extension{ID: "x.example/watch", Init: func(h *Host) error {
		h.OnChange(func() { changes.Add(1) })
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(echoTool()); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPrompt(Prompt{Name: "p", Definition: json.RawMessage(`{"name":"p"}`), Handler: func(context.Context, *Call, map[string]string) (*PromptResult, error) { return nil, nil }}); err != nil {
		t.Fatal(err)
	}
	s.NotifyToolListChanged()
	if n := changes.Load(); n != 4 {
		t.Errorf("OnChange was called %d times, want 4 (its own extension, a tool, a prompt, a list change)", n)
	}
	d := s.Describe()
	if d.Name != "desc" || d.Title != "Described" || d.Version != "1.2.3" || d.Instructions != "Read me." || len(d.Tools) != 1 || len(d.Prompts) != 1 ||
		!slices.Equal(d.Extensions, []string{"x.example/watch"}) || d.Auth != nil || len(d.Versions) != len(supportedVersions) {
		t.Fatalf("description %+v", d)
	}
	for _, v := range d.Versions {
		if c := string(d.Capabilities[v]); !strings.Contains(c, `"tools":{"listChanged":true}`) || !strings.Contains(c, `"extensions":{"x.example/watch":{}}`) {
			t.Errorf("capabilities of %s: %s", v, d.Capabilities[v])
		}
	}
	d.Tools[0][0] = 'X' // a snapshot: changing it changes nothing
	if s.Describe().Tools[0][0] == 'X' {
		t.Error("the description shares the server's bytes")
	}
}
