package runtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// memBus is an in-process SessionBus for tests.
type memBus struct {
	mu   sync.Mutex
	subs map[string]map[chan []byte]bool
}

func (b *memBus) Subscribe(ctx context.Context, sessionID, topic string) (<-chan []byte, func(), error) {
	ch := make(chan []byte, 16)
	k := sessionID + "/" + topic
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[string]map[chan []byte]bool{}
	}
	if b.subs[k] == nil {
		b.subs[k] = map[chan []byte]bool{}
	}
	b.subs[k][ch] = true
	b.mu.Unlock()
	return ch, func() { b.mu.Lock(); delete(b.subs[k], ch); b.mu.Unlock() }, nil
}

func (b *memBus) Publish(ctx context.Context, sessionID, topic string, msg []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for ch := range b.subs[sessionID+"/"+topic] {
		select {
		case ch <- msg:
			n++
		case <-ctx.Done():
			return n, ctx.Err()
		}
	}
	return n, nil
}

// TestTwoReplicasShareSessions: two servers share the store interfaces;
// the session made on one serves calls on the other, a fallback message
// reaches the GET stream held by the other replica, the answer posted to
// either replica reaches the waiting handler, and IDs never collide.
func TestTwoReplicasShareSessions(t *testing.T) {
	noLeaks(t)
	shared := Options{KeepAlive: -1, StateKey: testStateKey, Sessions: &MemorySessionStore{}, Pending: &MemoryPendingRouter{}, Events: &MemoryEventStore{}, Bus: &memBus{}}
	a, b := shared, shared
	a.ReplicaID, b.ReplicaID = "a", "b"
	var urls []string
	for _, o := range []Options{a, b} {
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
	get := events(t, c.do(c.request(http.MethodGet, ""))) // the GET stream lives on replica a
	<-get

	c.url = urls[1] // the call runs on replica b and accepts no event stream: fallback
	done := make(chan *http.Response, 1)
	go func() {
		resp, err := c.hc.Do(c.request(http.MethodPost, callBody(1, "confirm", `{}`), func(r *http.Request) { r.Header.Set("Accept", "application/json") }))
		if err != nil {
			t.Error(err)
		}
		done <- resp
	}()
	el := next(t, get)
	if el.msg.Method != "elicitation/create" || !strings.HasPrefix(string(el.msg.ID), `"b.`) {
		t.Fatalf("got %s", el.data)
	}
	c.url = urls[0] // the answer lands on replica a
	if code := c.answer(el.msg.ID, `{"action":"accept","content":{"confirm":true}}`); code != 202 {
		t.Fatalf("answer: %d", code)
	}
	resp := <-done
	defer resp.Body.Close()
	if got := resultText(t, jsonBody(t, resp)); got != "confirm=true note=none" {
		t.Fatalf("result %q", got)
	}
	// DELETE on b ends the session for a too.
	c.url = urls[1]
	if r := c.do(c.request(http.MethodDelete, "")); r.StatusCode != 200 {
		t.Fatal(r.StatusCode)
	}
	c.url = urls[0]
	if r := c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.StatusCode != 404 {
		t.Fatalf("after DELETE elsewhere: %d", r.StatusCode)
	}
}
