package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestProgressWithNoRouteIsDropped: a progress notification of a call whose
// client takes JSON only, in a session with no GET stream, has no route: it
// is dropped at once and the call returns its result. It neither waits for
// a GET stream (FallbackWait is a minute here) nor turns the call into an
// error.
func TestProgressWithNoRouteIsDropped(t *testing.T) {
	progressed := make(chan error, 1)
	tool := toolOf("progress", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		err := call.Progress(ctx, 1, 2, "half way")
		progressed <- err
		if err != nil {
			return nil, err
		}
		return ContentResult(call, []Content{Text("done")}), nil
	})
	_, ts := legacyServer(t, Options{KeepAlive: -1, FallbackWait: time.Minute}, tool)
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p"}}}`
	done := make(chan string, 1)
	go func() {
		resp := c.post(body, func(r *http.Request) { r.Header.Set("Accept", "application/json") })
		done <- resultText(t, jsonBody(t, resp))
	}()
	select {
	case got := <-done:
		if got != "done" {
			t.Fatalf("result %q, want done", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call is still waiting for a route for its progress notification")
	}
	if err := <-progressed; err != nil {
		t.Fatalf("Progress returned %v", err)
	}
}

// routesBus is an in-process SessionBus with GETRoutes and SessionSignals,
// shaped like redisstore's: one holder per session's GET stream, an
// announcement of every opening, and a report (missed) of every SendGET
// that found no holder.
type routesBus struct {
	memBus
	sessions SessionStore
	missed   chan string

	mu      sync.Mutex
	holders map[string]chan []byte
	fns     []func(sessionID, kind string, data []byte)
}

func (b *routesBus) HoldGET(ctx context.Context, sessionID string) (<-chan []byte, func(), error) {
	if _, err := b.sessions.Load(ctx, sessionID); err != nil {
		return nil, nil, err
	}
	ch := make(chan []byte, 16)
	b.mu.Lock()
	if b.holders == nil {
		b.holders = map[string]chan []byte{}
	}
	b.holders[sessionID] = ch
	fns := b.fns
	b.mu.Unlock()
	for _, fn := range fns {
		fn(sessionID, SignalGETOpened, nil)
	}
	return ch, sync.OnceFunc(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.holders[sessionID] == ch {
			delete(b.holders, sessionID)
		}
		close(ch)
	}), nil
}

func (b *routesBus) SendGET(_ context.Context, sessionID string, msg []byte) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch, ok := b.holders[sessionID]
	if !ok {
		b.missed <- sessionID
		return false, nil
	}
	ch <- msg
	return true, nil
}

func (b *routesBus) Signal(_ context.Context, sessionID, kind string, data []byte) error {
	b.mu.Lock()
	fns := b.fns
	b.mu.Unlock()
	for _, fn := range fns {
		fn(sessionID, kind, data)
	}
	return nil
}

func (b *routesBus) OnSignal(fn func(sessionID, kind string, data []byte)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fns = append(b.fns, fn)
	return func() {}
}

// TestRequestWaitsForAGETStreamOnAnotherReplica: an elicitation whose call
// takes JSON only finds no GET stream on any replica; it waits, without
// asking again, until one opens on the other replica (announced by the
// bus), and goes there. The answer reaches the call, which returns.
func TestRequestWaitsForAGETStreamOnAnotherReplica(t *testing.T) {
	noLeaks(t)
	store := &MemorySessionStore{}
	bus := &routesBus{sessions: store, missed: make(chan string, 8)}
	shared := Options{KeepAlive: -1, StateKey: testStateKey, FallbackWait: time.Minute, Sessions: store, Pending: &MemoryPendingRouter{}, Events: &MemoryEventStore{}, Bus: bus}
	var urls []string
	for _, replica := range []string{"a", "b"} {
		o := shared
		o.ReplicaID = replica
		s := NewServer(o)
		if err := s.AddTool(confirmTool()); err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(s)
		t.Cleanup(func() { s.Close(); ts.CloseClientConnections(); ts.Close() })
		urls = append(urls, ts.URL)
	}
	c := newClient(t, &httptest.Server{URL: urls[0]})
	c.initialize(Version20251125, `{"elicitation":{}}`)

	c.url = urls[1] // the call runs on replica b and takes JSON only
	done := make(chan *http.Response, 1)
	go func() {
		resp, err := c.hc.Do(c.request(http.MethodPost, callBody(1, "confirm", `{}`), func(r *http.Request) { r.Header.Set("Accept", "application/json") }))
		if err != nil {
			t.Error(err)
		}
		done <- resp
	}()
	select {
	case <-bus.missed: // b looked for a GET stream and found none: it waits
	case <-time.After(10 * time.Second):
		t.Fatal("the elicitation never looked for a GET stream")
	}
	c.url = urls[0]
	get := events(t, c.do(c.request(http.MethodGet, ""))) // opens on replica a
	el := next(t, get)
	if el.msg.Method != "elicitation/create" {
		t.Fatalf("got %s", el.data)
	}
	if code := c.answer(el.msg.ID, `{"action":"accept","content":{"confirm":true}}`); code != http.StatusAccepted {
		t.Fatalf("answer: HTTP %d", code)
	}
	resp := <-done
	defer resp.Body.Close()
	if got := resultText(t, jsonBody(t, resp)); got != "confirm=true note=none" {
		t.Fatalf("result %q", got)
	}
	select {
	case <-bus.missed:
		t.Fatal("the waiting elicitation looked for a GET stream again before one opened")
	default:
	}
}
