package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// sessionRootsTool reads Call.Roots and reports them with what the client
// declared about itself: "roots=a,b session=... client=name/version
// version=... rootsCap=true".
func sessionRootsTool() Tool {
	return toolOf("session_roots", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		roots, err := call.Roots(ctx)
		var list string
		switch {
		case errors.Is(err, ErrNoRoots):
			list = "none-declared"
		case err != nil:
			return nil, err
		default:
			var uris []string
			for _, r := range roots {
				uris = append(uris, r.URI)
			}
			list = strings.Join(uris, ",")
		}
		info := call.ClientInfo()
		return ContentResult(call, []Content{Text(fmt.Sprintf("roots=%s session=%s client=%s/%s version=%s rootsCap=%v",
			list, call.SessionID(), info.Name, info.Version, call.ProtocolVersion(), call.ClientCapabilities().Roots != nil))}), nil
	})
}

// rootsAnswerOf is a roots/list result naming uris.
func rootsAnswerOf(uris ...string) string {
	roots := make([]Root, len(uris))
	for i, u := range uris {
		roots[i] = Root{URI: u}
	}
	b, _ := json.Marshal(map[string]any{"roots": roots})
	return string(b)
}

// changes collects Options.RootsChanged calls.
type changes struct {
	mu   sync.Mutex
	list []RootsChange
	ch   chan RootsChange
}

func newChanges() *changes { return &changes{ch: make(chan RootsChange, 16)} }

func (c *changes) hook(_ context.Context, ch RootsChange) {
	c.mu.Lock()
	c.list = append(c.list, ch)
	c.mu.Unlock()
	c.ch <- ch
}

func (c *changes) wait(t *testing.T) RootsChange {
	t.Helper()
	select {
	case ch := <-c.ch:
		return ch
	case <-time.After(5 * time.Second):
		t.Fatal("Options.RootsChanged was not called within 5s")
		return RootsChange{}
	}
}

// TestRootsAreSessionStateOverHTTP: a session that declared roots is asked
// for them on its GET stream once initialized; a call reads them without a
// question on its own stream; notifications/roots/list_changed (answered
// 202 at once) makes the server ask again, and the next call sees the new
// list without asking; changes announced while a fetch runs make one more
// fetch, not one each.
func TestRootsAreSessionStateOverHTTP(t *testing.T) {
	hook := newChanges()
	_, ts := legacyServer(t, Options{RootsChanged: hook.hook}, sessionRootsTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"roots":{"listChanged":true}}`)
	get := events(t, c.do(c.request(http.MethodGet, "")))
	asked := 0
	expectRootsList := func() json.RawMessage {
		t.Helper()
		ev := next(t, get)
		if ev.msg.Method != "roots/list" {
			t.Fatalf("GET stream: want roots/list, got %s", ev.data)
		}
		asked++
		return ev.msg.ID
	}
	call := func(id int) string {
		t.Helper()
		resp := c.post(callBody(id, "session_roots", `{}`))
		// A JSON response: the call asked the client nothing on its stream.
		return resultText(t, jsonBody(t, resp))
	}

	if st := c.answer(expectRootsList(), rootsAnswerOf("file:///a")); st != http.StatusAccepted {
		t.Fatalf("answer: HTTP %d", st)
	}
	if ch := hook.wait(t); !ch.First || len(ch.Roots) != 1 || ch.SessionID != c.session {
		t.Errorf("first change = %+v", ch)
	}
	want := fmt.Sprintf("roots=file:///a session=%s client=test/1 version=%s rootsCap=true", c.session, Version20251125)
	if got := call(1); got != want {
		t.Errorf("first call:\n got %s\nwant %s", got, want)
	}

	// The client's roots change: the notification is answered at once,
	// before the server's question is.
	start := time.Now()
	if r := c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`); r.StatusCode != http.StatusAccepted {
		t.Fatalf("list_changed: HTTP %d", r.StatusCode)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("list_changed took %v to be answered", d)
	}
	id := expectRootsList()
	// A call made while the refetch waits for its answer waits for it too.
	got := make(chan string, 1)
	go func() {
		resp, err := c.hc.Do(c.request(http.MethodPost, callBody(2, "session_roots", `{}`)))
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		var m rpc
		_ = json.NewDecoder(resp.Body).Decode(&m)
		got <- string(m.Result)
	}()
	time.Sleep(50 * time.Millisecond)
	c.answer(id, rootsAnswerOf("file:///a", "file:///b"))
	if r := <-got; !strings.Contains(r, "roots=file:///a,file:///b ") {
		t.Errorf("the call made during the refetch: %s", r)
	}
	if ch := hook.wait(t); ch.First || len(ch.Previous) != 1 || len(ch.Roots) != 2 {
		t.Errorf("second change = %+v", ch)
	}
	if got := call(3); !strings.HasPrefix(got, "roots=file:///a,file:///b ") {
		t.Errorf("after the change: %s", got)
	}

	// Three changes while a fetch runs: that fetch, then one more.
	for range 3 {
		c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	}
	c.answer(expectRootsList(), rootsAnswerOf("file:///c"))
	c.answer(expectRootsList(), rootsAnswerOf("file:///d"))
	select {
	case ev := <-get:
		if ev.data != "" {
			t.Errorf("a third fetch for changes announced during one: %s", ev.data)
		}
	case <-time.After(300 * time.Millisecond):
	}
	if got := call(4); !strings.HasPrefix(got, "roots=file:///d ") {
		t.Errorf("after the burst: %s", got)
	}
	if asked != 4 {
		t.Errorf("the client was asked for its roots %d times, want 4", asked)
	}
}

// TestRootsAskedOnceWhenTheFetchCannotReachTheClient: a client that opens
// no GET stream cannot be asked in the background; the first call asks on
// its own stream and every later call reads the list kept, until the client
// says its roots changed: then the next call asks again.
func TestRootsAskedOnceWhenTheFetchCannotReachTheClient(t *testing.T) {
	_, ts := legacyServer(t, Options{FallbackWait: 50 * time.Millisecond}, sessionRootsTool())
	c := newClient(t, ts)
	c.initialize(Version20250618, `{"roots":{"listChanged":true}}`)
	time.Sleep(100 * time.Millisecond) // the background fetch gives up
	// call calls the tool, answering a roots/list on its stream with uri.
	call := func(id int, uri string) (asked bool, text string) {
		t.Helper()
		resp := c.post(callBody(id, "session_roots", `{}`))
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			return false, resultText(t, jsonBody(t, resp))
		}
		ch := events(t, resp)
		ev := next(t, ch)
		if ev.msg.Method != "roots/list" {
			t.Fatalf("call %d: want roots/list, got %s", id, ev.data)
		}
		c.answer(ev.msg.ID, rootsAnswerOf(uri))
		return true, resultText(t, next(t, ch).msg)
	}
	for i, want := range []bool{true, false, false} {
		asked, got := call(i+1, "file:///one")
		if asked != want || !strings.HasPrefix(got, "roots=file:///one ") {
			t.Errorf("call %d: asked %v (want %v): %s", i+1, asked, want, got)
		}
	}
	c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	for i, want := range []bool{true, false} {
		asked, got := call(i+4, "file:///two")
		if asked != want || !strings.HasPrefix(got, "roots=file:///two ") {
			t.Errorf("after the change, call %d: asked %v (want %v): %s", i+1, asked, want, got)
		}
	}
}

// TestRootsNotDeclared: a client without the roots capability is never
// asked, and Call.Roots says so apart from an empty list.
func TestRootsNotDeclared(t *testing.T) {
	_, ts := legacyServer(t, Options{}, sessionRootsTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	if got := resultText(t, jsonBody(t, c.post(callBody(1, "session_roots", `{}`)))); !strings.HasPrefix(got, "roots=none-declared ") || !strings.HasSuffix(got, "rootsCap=false") {
		t.Errorf("got %s", got)
	}
	if !errors.Is(ErrNoRoots, ErrCapabilityMissing) {
		t.Error("ErrNoRoots is not an ErrCapabilityMissing")
	}
}

// TestRootsAreSessionStateOverStdio: the same over stdio, where the
// connection carries the server's questions.
func TestRootsAreSessionStateOverStdio(t *testing.T) {
	noLeaks(t)
	hook := newChanges()
	s := NewServer(Options{RootsChanged: hook.hook})
	if err := s.AddTool(sessionRootsTool()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := startStdio(t, s)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"pipe","version":"2"}}}`)
	if m := p.recv(); string(m.ID) != "1" || m.Error != nil {
		t.Fatalf("initialize: %+v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	asked := 0
	answerRoots := func(uris ...string) {
		t.Helper()
		q := p.recv()
		if q.Method != "roots/list" {
			t.Fatalf("want roots/list, got %+v", q)
		}
		asked++
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, q.ID, rootsAnswerOf(uris...)))
	}
	answerRoots("file:///x")
	hook.wait(t)
	p.send(callBody(2, "session_roots", `{}`))
	if got := resultText(t, p.recv()); !strings.HasPrefix(got, "roots=file:///x session=stdio-") || !strings.Contains(got, "client=pipe/2 version=2025-06-18") {
		t.Errorf("first call: %s", got)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	answerRoots("file:///y")
	p.send(callBody(3, "session_roots", `{}`))
	if got := resultText(t, p.recv()); !strings.HasPrefix(got, "roots=file:///y ") {
		t.Errorf("after the change: %s", got)
	}
	if asked != 2 {
		t.Errorf("asked %d times, want 2", asked)
	}
}

// TestRootsIn20260728AskInTheRound: with no session, Call.Roots asks
// through the multi round-trip, and the client's facts come from the
// request's _meta.
func TestRootsIn20260728AskInTheRound(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t, sessionRootsTool()))
	c.caps = map[string]any{"roots": map[string]any{}}
	info := withMeta(metaClientInfo, map[string]any{"name": "modern", "version": "9"})
	reqs, state := inputRequired(t, c.call("tools/call", map[string]any{"name": "session_roots", "arguments": map[string]any{}}, info))
	if q, _ := reqs["roots"].(map[string]any); q == nil || q["method"] != "roots/list" {
		t.Fatalf("inputRequests = %v", reqs)
	}
	r := c.call("tools/call", map[string]any{"name": "session_roots", "arguments": map[string]any{},
		"inputResponses": map[string]any{"roots": rootsAnswer}, "requestState": state}, info)
	res := r.result(t)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("result %s", r.body)
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	if want := "roots=file:///test/root session= client=modern/9 version=2026-07-28 rootsCap=true"; text != want {
		t.Errorf("got  %s\nwant %s", text, want)
	}
	c.caps = map[string]any{}
	r = c.call("tools/call", map[string]any{"name": "session_roots", "arguments": map[string]any{}})
	content, _ = r.result(t)["content"].([]any)
	if len(content) == 0 || !strings.HasPrefix(content[0].(map[string]any)["text"].(string), "roots=none-declared session= client=modern-test-client/1.0.0 version=2026-07-28 rootsCap=false") {
		t.Errorf("without roots: %s", r.body)
	}
}

// TestRootsBeyondTheBoundAreNotKept: a list larger than
// Options.MaxClientDataBytes is not kept with the session, so each call
// asks; a RootsChanged hook that panics is logged and changes nothing.
func TestRootsBeyondTheBoundAreNotKept(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{MaxClientDataBytes: 200, RootsChanged: func(context.Context, RootsChange) { panic("hook") }})
	if err := s.AddTool(sessionRootsTool()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := startStdio(t, s)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"big","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	long := "file:///" + strings.Repeat("x", 300)
	small := "file:///s"
	answer := func(uri string) {
		t.Helper()
		q := p.recv()
		if q.Method != "roots/list" {
			t.Fatalf("want roots/list, got %+v", q)
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, q.ID, rootsAnswerOf(uri)))
	}
	answer(long) // the background fetch: too large to keep
	for id := 2; id <= 3; id++ {
		p.send(callBody(id, "session_roots", `{}`))
		answer(long) // not kept: each call asks
		if got := resultText(t, p.recv()); !strings.HasPrefix(got, "roots="+long+" ") {
			t.Errorf("call %d: %.60s", id, got)
		}
	}
	// A list within the bound is kept (the panicking hook notwithstanding).
	p.send(callBody(4, "session_roots", `{}`))
	answer(small)
	if got := resultText(t, p.recv()); !strings.HasPrefix(got, "roots="+small+" ") {
		t.Errorf("call 4: %s", got)
	}
	p.send(callBody(5, "session_roots", `{}`))
	if got := p.recv(); got.Method != "" || !strings.HasPrefix(resultText(t, got), "roots="+small+" ") {
		t.Errorf("call 5 asked again, or failed: %+v", got)
	}
}
