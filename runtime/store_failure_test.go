package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// failingStore is a shared session store that fails, when down, with the
// kind of error a driver gives: an address and a system call.
type failingStore struct {
	MemorySessionStore
	down atomic.Bool
}

var errDriver = errors.New("redisstore: loading session: dial tcp 127.0.0.1:35839: connect: connection refused")

func (f *failingStore) Create(ctx context.Context, st SessionState) error {
	if f.down.Load() {
		return errDriver
	}
	return f.MemorySessionStore.Create(ctx, st)
}

func (f *failingStore) Load(ctx context.Context, id string) (SessionState, error) {
	if f.down.Load() {
		return SessionState{}, errDriver
	}
	return f.MemorySessionStore.Load(ctx, id)
}

// TestFailedStoreIs503WithAFixedMessage: with the session store failing,
// initialize, a session's request, its GET stream and its DELETE all get
// HTTP 503 with Retry-After and the JSON-RPC error -32603 "session store
// unavailable; try again later", whatever the store's error says; nothing
// of it (address, driver error) reaches the client. Before, initialize got
// 500 and every answer carried the store's error text.
func TestFailedStoreIs503WithAFixedMessage(t *testing.T) {
	noLeaks(t)
	store := &failingStore{}
	s := NewServer(Options{KeepAlive: -1, StateKey: testStateKey, Sessions: store})
	if err := s.AddTool(confirmTool()); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.CloseClientConnections(); ts.Close() })
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	store.down.Store(true)

	check := func(what string, resp *http.Response) {
		t.Helper()
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(b)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s: HTTP %d, Retry-After %q, want 503 with Retry-After", what, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		if !strings.Contains(body, `"code":-32603`) || !strings.Contains(body, `"message":"session store unavailable; try again later"`) {
			t.Errorf("%s: body %s", what, body)
		}
		for _, leak := range []string{"127.0.0.1", "dial", "refused", "redisstore"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s: the answer names %q: %s", what, leak, body)
			}
		}
	}
	fresh := newClient(t, ts)
	check("initialize", fresh.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`))
	// A new replica's view: the session is not held here, so it is loaded.
	other := NewServer(Options{KeepAlive: -1, StateKey: testStateKey, Sessions: store})
	ots := httptest.NewServer(other)
	t.Cleanup(func() { other.Close(); ots.CloseClientConnections(); ots.Close() })
	c.url = ots.URL
	check("tools/list", c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	check("GET", c.do(c.request(http.MethodGet, "", func(r *http.Request) { r.Header.Set("Accept", "text/event-stream") })))
	check("DELETE", c.do(c.request(http.MethodDelete, "")))
	check("an answer", c.post(`{"jsonrpc":"2.0","id":"x","result":{}}`))
}
