package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// TestFallbackWaitsForGETStream: a POST that accepts no event stream sends
// its elicitation through the fallback, which waits (bounded) for the
// client to open a GET stream, then delivers it there.
func TestFallbackWaitsForGETStream(t *testing.T) {
	rec := newRecorder()
	_, ts := legacyServer(t, Options{KeepAlive: -1, FallbackWait: 5 * time.Second, Logger: slogOf(rec)}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	done := make(chan *http.Response, 1)
	go func() {
		resp, err := c.hc.Do(c.request(http.MethodPost, callBody(1, "confirm", `{}`), func(r *http.Request) { r.Header.Set("Accept", "application/json") }))
		if err != nil {
			t.Error(err)
		}
		done <- resp
	}()
	get := events(t, c.do(c.request(http.MethodGet, "")))
	el := next(t, get)
	if el.msg.Method != "elicitation/create" {
		t.Fatalf("got %s", el.data)
	}
	c.answer(el.msg.ID, `{"action":"accept","content":{"confirm":true}}`)
	resp := <-done
	defer resp.Body.Close()
	if got := resultText(t, jsonBody(t, resp)); got != "confirm=true note=none" {
		t.Fatalf("result %q", got)
	}
	steps := rec.find("outbound request")
	if len(steps) == 0 || steps[0]["route"][:4] != "get:" {
		t.Fatalf("route %v", steps)
	}
}

// TestFallbackWithoutGETFailsBounded: with no GET stream ever opened the
// fallback gives up after FallbackWait and the call ends with a readable
// error instead of hanging.
func TestFallbackWithoutGETFailsBounded(t *testing.T) {
	_, ts := legacyServer(t, Options{KeepAlive: -1, FallbackWait: 20 * time.Millisecond}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	resp := c.post(callBody(1, "confirm", `{}`), func(r *http.Request) { r.Header.Set("Accept", "application/json") })
	if got := resultText(t, jsonBody(t, resp)); got[:6] != "ERROR:" {
		t.Fatalf("result %q", got)
	}
}

// TestMemoryEventStoreRing: IDs are unique per session and name their
// stream; replay covers one stream; the oldest events go first.
func TestMemoryEventStoreRing(t *testing.T) {
	m := &MemoryEventStore{Limit: 3}
	ctx := context.Background()
	var ids []string
	for i, stream := range []string{"1", "2", "1", "1", "2"} {
		id, _ := m.Append(ctx, "s", stream, []byte{byte('a' + i)})
		ids = append(ids, id)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("repeated %s in %v", id, ids)
		}
		seen[id] = true
	}
	var got []string
	stream, err := m.Replay(ctx, "s", ids[0], func(id string, data []byte) error { got = append(got, id+"="+string(data)); return nil })
	if err != nil || stream != "1" {
		t.Fatal(stream, err)
	}
	// Events 3 and 4 of stream 1 are kept; event 1 was the first after ids[0] and is evicted with the window.
	if len(got) != 2 || got[0] != ids[2]+"=c" || got[1] != ids[3]+"=d" {
		t.Fatalf("replay %v", got)
	}
	if _, err := m.Replay(ctx, "other", ids[0], func(string, []byte) error { return nil }); err != ErrEventNotFound {
		t.Fatalf("other session: %v", err)
	}
	if _, ok := m.StreamOf("s", "9_99"); ok {
		t.Fatal("future event ID accepted")
	}
}

// TestMemoryPendingRouter: delivered once, expired answers see a tombstone
// until it ages out, other sessions see nothing.
func TestMemoryPendingRouter(t *testing.T) {
	now := time.Unix(1000, 0)
	m := &MemoryPendingRouter{TombstoneTTL: time.Minute, now: func() time.Time { return now }}
	ctx := context.Background()
	got := make(chan Answer, 1)
	m.Register(ctx, "a", json.RawMessage("1"), func(a Answer) { got <- a })
	if r, _ := m.Resolve(ctx, "b", json.RawMessage("1"), Answer{}); r != Unknown {
		t.Fatalf("other session: %v", r)
	}
	if r, _ := m.Resolve(ctx, "a", json.RawMessage(" 1 "), Answer{Result: json.RawMessage("{}")}); r != Delivered {
		t.Fatalf("owner: %v", r)
	}
	<-got
	if r, _ := m.Resolve(ctx, "a", json.RawMessage("1"), Answer{}); r != Unknown {
		t.Fatalf("second answer: %v", r)
	}
	m.Register(ctx, "a", json.RawMessage("2"), func(Answer) { t.Error("delivered after expiry") })
	m.Expire(ctx, "a", json.RawMessage("2"), true)
	if r, _ := m.Resolve(ctx, "a", json.RawMessage("2"), Answer{}); r != Expired {
		t.Fatalf("late answer: %v", r)
	}
	now = now.Add(2 * time.Minute)
	m.Sweep()
	if r, _ := m.Resolve(ctx, "a", json.RawMessage("2"), Answer{}); r != Unknown {
		t.Fatalf("after the tombstone aged out: %v", r)
	}
}

// TestIdleSessionExpires: a session with no requests and nothing open for
// SessionIdleTimeout ends (404), while a busy one stays.
func TestIdleSessionExpires(t *testing.T) {
	s, ts := legacyServer(t, Options{KeepAlive: 2 * time.Millisecond, SessionIdleTimeout: 300 * time.Millisecond})
	ticked := make(chan struct{}, 1)
	s.sessions.onTick = func() {
		select {
		case ticked <- struct{}{}:
		default:
		}
	}
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	for {
		<-ticked
		n := s.sessions.count()
		if n == 0 {
			break
		}
	}
	if r := c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.StatusCode != 404 {
		t.Fatalf("after expiry: %d", r.StatusCode)
	}
}

// TestSecondGETTakesOver: a new GET stream replaces the old one (a client
// reconnecting before the server noticed the drop), and an unknown
// Last-Event-ID is refused.
func TestSecondGETTakesOver(t *testing.T) {
	s, ts := legacyServer(t, Options{KeepAlive: -1})
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	first := events(t, c.do(c.request(http.MethodGet, "")))
	<-first
	second := events(t, c.do(c.request(http.MethodGet, "")))
	<-second
	for range first { // the first stream ends
	}
	s.NotifyToolListChanged()
	if ev := next(t, second); ev.msg.Method != "notifications/tools/list_changed" {
		t.Fatalf("got %s", ev.data)
	}
	bad := c.request(http.MethodGet, "")
	bad.Header.Set("Last-Event-ID", "77_12345")
	if r := c.do(bad); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown Last-Event-ID: %d", r.StatusCode)
	}
}
