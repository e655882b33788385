package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

var loginURL = &Elicitation{Name: "login", Mode: "url", Message: "Sign in to Example Co."}

// oauthFlow is the out-of-band side of a third-party sign-in: which
// elicitations the user completed.
type oauthFlow struct {
	mu     sync.Mutex
	done   map[string]bool
	refs   chan URLElicitationRef
	handle chan string // the IDs handlers minted
	urls   chan *URLElicitation
}

func newOAuthFlow() *oauthFlow {
	return &oauthFlow{done: map[string]bool{}, refs: make(chan URLElicitationRef, 8), handle: make(chan string, 8), urls: make(chan *URLElicitation, 8)}
}

func (f *oauthFlow) finish(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done[id] = true
}

func (f *oauthFlow) finished(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done[id]
}

// requireTool needs the user signed in: until the flow finished it ends the
// call with RequireURL. In 2026-07-28 the handler keeps the correlation
// value it chose in the call state.
func requireTool(f *oauthFlow) Tool {
	return toolOf("connect", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		u, err := call.NewURLElicitation(loginURL)
		if err != nil {
			return nil, err
		}
		key := u.ID()
		if key == "" { // 2026-07-28: our own ID, carried in requestState
			if key = string(call.State()); key == "" {
				key = fmt.Sprintf("flow-%d", time.Now().UnixNano())
				call.SetState([]byte(key))
			}
		}
		if f.finished(key) || f.finished("any") {
			return ContentResult(call, []Content{Text("connected")}), nil
		}
		if ref, ok := u.Ref(); ok {
			f.refs <- ref
		}
		f.handle <- key
		return nil, call.RequireURL(URLNeed{Elicitation: u, URL: "https://mcp.example.com/connect?elicitationId=" + key})
	}, loginURL)
}

// askTool asks the user to open the URL (a live elicitation/create) and
// hands the reference to the test, which completes it later.
func askTool(f *oauthFlow) Tool {
	return toolOf("login", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		u, err := call.NewURLElicitation(loginURL)
		if err != nil {
			return nil, err
		}
		if err := u.Ask(ctx, "", "https://mcp.example.com/connect?elicitationId="+u.ID()); err != nil {
			return nil, err
		}
		if ref, ok := u.Ref(); ok {
			f.refs <- ref
		}
		f.urls <- u
		return ContentResult(call, []Content{Text("opened")}), nil
	}, loginURL)
}

const urlCaps = `{"elicitation":{"url":{}}}`

// TestURLElicitationRequiredLegacy: in 2025-11-25 a tool that needs a URL
// elicitation first fails with -32042 listing it (mode, elicitationId, url,
// message); the server completes it from outside the call
// (CompleteURLElicitation), the client gets notifications/elicitation/complete
// with that ID on its GET stream, and the retried call succeeds.
func TestURLElicitationRequiredLegacy(t *testing.T) {
	noLeaks(t)
	f := newOAuthFlow()
	s, ts := legacyServer(t, Options{}, requireTool(f))
	c := newClient(t, ts)
	c.initialize(Version20251125, urlCaps)
	get := events(t, c.do(c.request(http.MethodGet, "")))

	m := jsonBody(t, c.post(callBody(2, "connect", `{}`)))
	if m.Error == nil || m.Error.Code != CodeURLElicitationRequired {
		t.Fatalf("want -32042, got %+v %s", m.Error, m.Result)
	}
	var data struct {
		Elicitations []map[string]string `json:"elicitations"`
	}
	b, _ := json.Marshal(m.Error.Data)
	if err := json.Unmarshal(b, &data); err != nil || len(data.Elicitations) != 1 {
		t.Fatalf("data %s: %v", b, err)
	}
	el := data.Elicitations[0]
	ref := <-f.refs
	id := <-f.handle
	if el["mode"] != "url" || el["elicitationId"] != id || el["url"] != "https://mcp.example.com/connect?elicitationId="+id || el["message"] != loginURL.Message {
		t.Fatalf("elicitation %v (minted %q)", el, id)
	}
	if ref.SessionID != c.session || ref.ElicitationID != id {
		t.Fatalf("ref %+v, want session %s and id %s", ref, c.session, id)
	}

	f.finish(id)
	if err := s.CompleteURLElicitation(context.Background(), ref); err != nil {
		t.Fatal(err)
	}
	ev := next(t, get)
	var p struct {
		ElicitationID string `json:"elicitationId"`
	}
	if ev.msg.Method != "notifications/elicitation/complete" || json.Unmarshal(ev.msg.Params, &p) != nil || p.ElicitationID != id {
		t.Fatalf("GET stream got %s", ev.data)
	}
	f.finish("any") // the retry mints a new ID; the user is signed in now
	if got := resultText(t, jsonBody(t, c.post(callBody(3, "connect", `{}`)))); got != "connected" {
		t.Fatalf("retry = %q", got)
	}
}

// TestURLElicitationAskAndComplete: a live URL-mode elicitation/create
// carries the elicitationId the handle minted; after the client accepts,
// the server completes it, and the completion reaches the client's GET
// stream. Over stdio the notification is written to the connection.
func TestURLElicitationAskAndComplete(t *testing.T) {
	noLeaks(t)
	t.Run("HTTP", func(t *testing.T) {
		f := newOAuthFlow()
		s, ts := legacyServer(t, Options{}, askTool(f))
		c := newClient(t, ts)
		c.initialize(Version20251125, urlCaps)
		get := events(t, c.do(c.request(http.MethodGet, "")))
		post := events(t, c.post(callBody(2, "login", `{}`)))
		q := next(t, post)
		var params map[string]string
		if q.msg.Method != "elicitation/create" || json.Unmarshal(q.msg.Params, &params) != nil || params["mode"] != "url" || params["elicitationId"] == "" {
			t.Fatalf("want a URL elicitation/create with an elicitationId, got %s", q.data)
		}
		if st := c.answer(q.msg.ID, `{"action":"accept"}`); st != http.StatusAccepted {
			t.Fatalf("answer: HTTP %d", st)
		}
		if got := resultText(t, next(t, post).msg); got != "opened" {
			t.Fatalf("result %q", got)
		}
		ref := <-f.refs
		if ref.ElicitationID != params["elicitationId"] {
			t.Fatalf("ref %+v, asked %v", ref, params)
		}
		if err := s.CompleteURLElicitation(context.Background(), ref); err != nil {
			t.Fatal(err)
		}
		if ev := next(t, get); ev.msg.Method != "notifications/elicitation/complete" || !jsonHas(ev.msg.Params, "elicitationId", ref.ElicitationID) {
			t.Fatalf("GET stream got %s", ev.data)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		f := newOAuthFlow()
		s := NewServer(Options{})
		t.Cleanup(func() { s.Close() })
		if err := s.AddTool(askTool(f)); err != nil {
			t.Fatal(err)
		}
		p := startStdio(t, s)
		p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"url":{}}},"clientInfo":{"name":"t","version":"1"}}}`)
		p.recv()
		p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		p.send(callBody(2, "login", `{}`))
		q := p.recv()
		if q.Method != "elicitation/create" {
			t.Fatalf("got %+v", q)
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept"}}`, q.ID))
		if got := resultText(t, p.recv()); got != "opened" {
			t.Fatalf("result %q", got)
		}
		u := <-f.urls
		if _, ok := u.Ref(); ok || len(f.refs) != 0 {
			t.Fatal("a stdio elicitation has a Ref")
		}
		if err := u.Complete(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := p.recv(); n.Method != "notifications/elicitation/complete" || !jsonHas(n.Params, "elicitationId", u.ID()) {
			t.Fatalf("got %+v", n)
		}
	})
}

func jsonHas(raw json.RawMessage, key, want string) bool {
	var m map[string]any
	return json.Unmarshal(raw, &m) == nil && m[key] == want
}

// TestURLElicitationRefusals: URL mode needs a client that declared
// elicitation.url in a 2025-11-25 session (-32021 otherwise, and never
// -32042); a completion for a session the server does not hold is
// ErrUnknownElicitation.
func TestURLElicitationRefusals(t *testing.T) {
	noLeaks(t)
	f := newOAuthFlow()
	s, ts := legacyServer(t, Options{}, requireTool(f))
	for _, tc := range []struct{ version, caps string }{
		{Version20251125, `{"elicitation":{}}`},
		{Version20250618, urlCaps},
	} {
		c := newClient(t, ts)
		c.initialize(tc.version, tc.caps)
		if m := jsonBody(t, c.post(callBody(2, "connect", `{}`))); m.Error == nil || m.Error.Code != CodeMissingCapability {
			t.Fatalf("%s %s: want -32021, got %+v %s", tc.version, tc.caps, m.Error, m.Result)
		}
	}
	err := s.CompleteURLElicitation(context.Background(), URLElicitationRef{SessionID: "nope", ElicitationID: "x"})
	if !errors.Is(err, ErrUnknownElicitation) {
		t.Fatalf("err = %v", err)
	}
}

// TestURLElicitationRequiredModern: 2026-07-28 carries the same flow as a
// multi round-trip call. The URL request rides input_required (no
// elicitationId, never -32042); a retry whose step has not finished gets
// the URL asked again; once it finished, the retry completes. The handler's
// own correlation value travels in requestState.
func TestURLElicitationRequiredModern(t *testing.T) {
	leakCheck(t)
	f := newOAuthFlow()
	c := modernServer(t, newTestServer(t, requireTool(f)))
	c.caps = map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}
	call := map[string]any{"name": "connect", "arguments": map[string]any{}}
	reqs, state := inputRequired(t, c.call("tools/call", call))
	key := <-f.handle
	q, _ := reqs["login"].(map[string]any)
	params, _ := q["params"].(map[string]any)
	if q["method"] != "elicitation/create" || params["mode"] != "url" || params["url"] != "https://mcp.example.com/connect?elicitationId="+key {
		t.Fatalf("inputRequests %v", reqs)
	}
	if _, has := params["elicitationId"]; has {
		t.Fatalf("2026-07-28 has no elicitationId: %v", params)
	}
	retry := map[string]any{"name": "connect", "arguments": map[string]any{},
		"inputResponses": map[string]any{"login": map[string]any{"action": "accept"}}, "requestState": state}
	// Accepted, but the user has not finished in the browser: asked again,
	// with the same correlation value.
	reqs, state = inputRequired(t, c.call("tools/call", retry))
	if again := <-f.handle; again != key || reqs["login"] == nil {
		t.Fatalf("second round: key %q (want %q), %v", again, key, reqs)
	}
	if len(f.refs) != 0 {
		t.Fatal("a 2026-07-28 elicitation has a Ref (there is no completion to send)")
	}
	f.finish(key)
	retry["requestState"] = state
	if got := completeText(t, c.call("tools/call", retry)); got != "connected" {
		t.Fatalf("final = %q", got)
	}
	// Without elicitation.url, -32021 naming it.
	c.caps = map[string]any{"elicitation": map[string]any{}}
	if code := c.call("tools/call", call).errCode(t); code != CodeMissingCapability {
		t.Fatalf("code %d, want -32021", code)
	}
}

// TestURLRequiredCodeReservedInModern: a handler's own -32042 never goes out
// in 2026-07-28; the client gets -32603 saying what to use instead.
func TestURLRequiredCodeReservedInModern(t *testing.T) {
	leakCheck(t)
	raw := toolOf("raw", `{"type":"object"}`, func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
		return nil, &Error{Code: CodeURLElicitationRequired, Message: "sign in first"}
	})
	c := modernServer(t, newTestServer(t, raw))
	if code := c.call("tools/call", map[string]any{"name": "raw", "arguments": map[string]any{}}).errCode(t); code != CodeInternalError {
		t.Fatalf("code %d, want -32603", code)
	}
}
