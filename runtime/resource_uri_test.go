package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// notesServer has the resources: notes://secret needs notes:read
// and notes:secret, the template notes://{title} needs notes:read; docs
// templates take names and paths; raw://{+v} lets any value through.
func notesServer(t *testing.T, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	s := NewServer(opts)
	read := func(_ context.Context, _ *Call, uri string) (*ResourceResult, error) {
		return &ResourceResult{Contents: []ResourceContents{{URI: uri, Text: "the secret note"}}}, nil
	}
	tmpl := func(_ context.Context, _ *Call, uri string, vars URIVars) (*ResourceResult, error) {
		return &ResourceResult{Contents: []ResourceContents{{URI: uri, Text: "template got " + jsonOf(vars)}}}, nil
	}
	for _, err := range []error{
		s.AddResource(Resource{URI: "notes://secret", Definition: json.RawMessage(`{"uri":"notes://secret","name":"secret"}`), Handler: read, Scopes: []string{"notes:read", "notes:secret"}}),
		s.AddResourceTemplate(ResourceTemplate{URITemplate: "notes://{title}", Definition: json.RawMessage(`{"uriTemplate":"notes://{title}","name":"note"}`), Handler: tmpl, Scopes: []string{"notes:read"}}),
		s.AddResourceTemplate(ResourceTemplate{URITemplate: "docs://{name}", Definition: json.RawMessage(`{"uriTemplate":"docs://{name}","name":"doc"}`), Handler: tmpl}),
		s.AddResourceTemplate(ResourceTemplate{URITemplate: "tree://{+path}", Definition: json.RawMessage(`{"uriTemplate":"tree://{+path}","name":"tree"}`), Handler: tmpl}),
		s.AddResourceTemplate(ResourceTemplate{URITemplate: "raw://{v}", Definition: json.RawMessage(`{"uriTemplate":"raw://{v}","name":"raw"}`), Handler: tmpl, AllowAnyValue: true}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return s, authedServer(t, s)
}

// TestOneResourceOneSetOfScopes (item 3): however notes://secret is
// spelled, it is the fixed resource and needs its scopes: a caller with
// notes:read only is refused with 403 in both eras, and a caller with both
// scopes reads the fixed resource, never the template.
func TestOneResourceOneSetOfScopes(t *testing.T) {
	noLeaks(t)
	s, ts := notesServer(t, scopedOptions(Options{}))
	spellings := []string{"notes://secret", "notes://%73ecret", "notes://secre%74", "NOTES://secret", "notes://SECRET"}
	for _, c := range eraClients(t, ts, s, "reader;notes:read") {
		for _, uri := range spellings {
			if st, m := c.do(t, "resources/read", map[string]any{"uri": uri}); st != http.StatusForbidden {
				t.Errorf("%s: reading %s with notes:read only: %d %s", c.name, uri, st, m.Result)
			}
		}
		if _, m := c.do(t, "resources/read", map[string]any{"uri": "notes://shopping"}); !strings.Contains(string(m.Result), `template got {\"title\":[\"shopping\"]}`) {
			t.Errorf("%s: the template: %s %+v", c.name, m.Result, m.Error)
		}
	}
	for _, c := range eraClients(t, ts, s, "owner;notes:read+notes:secret") {
		for _, uri := range spellings {
			if _, m := c.do(t, "resources/read", map[string]any{"uri": uri}); !strings.Contains(string(m.Result), "the secret note") {
				t.Errorf("%s: reading %s with both scopes: %s %+v", c.name, uri, m.Result, m.Error)
			}
		}
	}
	if err := s.AddResource(Resource{URI: "notes://%73ecret", Definition: json.RawMessage(`{"uri":"notes://%73ecret","name":"again"}`),
		Handler: func(context.Context, *Call, string) (*ResourceResult, error) { return nil, nil }}); err == nil || !strings.Contains(err.Error(), "spelled differently") {
		t.Errorf("registering another spelling of a resource: %v", err)
	}
}

// TestTemplateValuesCannotTraverse (item 5): decoded values holding a path
// separator (in a single-segment variable), a "." or ".." segment, or a
// control character match no template, in both eras; a template that
// allows any value gets them.
func TestTemplateValuesCannotTraverse(t *testing.T) {
	noLeaks(t)
	s, ts := notesServer(t, Options{})
	for _, c := range eraClients(t, ts, s, "") {
		for _, uri := range []string{
			"docs://..%2F..%2Fetc%2Fpasswd", "docs://a%5Cb", "docs://a%00b", "docs://%2E%2E", "docs://.", "docs://a%0Ab",
			"tree://a/../../etc/passwd", "tree://a/./b", "tree://..", "tree://a%5C..%5Cb", "tree://a%00",
		} {
			_, m := c.do(t, "resources/read", map[string]any{"uri": uri})
			if m.Error == nil || (m.Error.Code != CodeResourceNotFound && m.Error.Code != CodeInvalidParams) {
				t.Errorf("%s: reading %s: %s %+v, want resource not found", c.name, uri, m.Result, m.Error)
			}
		}
		for uri, want := range map[string]string{
			"docs://notes.txt":       `{\"name\":[\"notes.txt\"]}`,
			"tree://a/b/c.txt":       `{\"path\":[\"a/b/c.txt\"]}`,
			"tree://a..b/c":          `{\"path\":[\"a..b/c\"]}`,
			"raw://..%2F..%2Fetc%00": `{\"v\":[\"../../etc\\u0000\"]}`,
		} {
			if _, m := c.do(t, "resources/read", map[string]any{"uri": uri}); !strings.Contains(string(m.Result), want) {
				t.Errorf("%s: reading %s: %s %+v, want %s", c.name, uri, m.Result, m.Error, want)
			}
		}
	}
}
