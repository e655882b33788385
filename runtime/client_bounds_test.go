package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestOversizedClientInfoIsNotStored: a 1 MB clientInfo is accepted, but the
// session stores its name and version only, within MaxClientDataBytes; the
// same for capabilities, which keep what the runtime acts on.
func TestOversizedClientInfoIsNotStored(t *testing.T) {
	s, ts := legacyServer(t, Options{})
	c := newClient(t, ts)
	huge := strings.Repeat("x", 1<<20)
	resp := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{"elicitation":{},"experimental":{"blob":%q}},"clientInfo":{"name":"big","version":"1","description":%q}}}`,
		Version20251125, huge, huge))
	if resp.StatusCode != 200 {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	sess := s.sessions.heldSession(resp.Header.Get(headerSessionID))
	if sess == nil {
		t.Fatal("no session")
	}
	st, _ := sess.snapshot()
	if n := len(st.ClientInfo) + len(st.ClientCapabilities); n > 2*(8<<10) {
		t.Fatalf("the session stores %d bytes of client data (clientInfo %d, capabilities %d); want at most 8 KiB each", n, len(st.ClientInfo), len(st.ClientCapabilities))
	}
	var info struct{ Name, Version string }
	if json.Unmarshal(st.ClientInfo, &info) != nil || info.Name != "big" || info.Version != "1" {
		t.Fatalf("clientInfo stored as %s", st.ClientInfo)
	}
	if caps := parseClientCapabilities(st.ClientCapabilities); !caps.elicitForm() {
		t.Fatalf("capabilities stored as %s: the elicitation capability is lost", st.ClientCapabilities)
	}
}

// bigTool sends one progress notification, which makes its response an
// event stream whose events the EventStore keeps, then returns size bytes of
// text.
func bigTool(size int) Tool {
	return toolOf("big", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		if err := call.Progress(ctx, 1, 2, "half"); err != nil {
			return nil, err
		}
		return ContentResult(call, []Content{Text(strings.Repeat("y", size))}), nil
	})
}

// TestEventLogIsBoundedInBytes: a session's finished streams keep at most
// EventBytesPerSession (default 1 MiB) of events for Last-Event-ID, however
// large and many its messages were.
func TestEventLogIsBoundedInBytes(t *testing.T) {
	s, ts := legacyServer(t, Options{}, bigTool(600<<10))
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	var primes []string
	for i := 1; i <= 4; i++ {
		resp := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{},"_meta":{"progressToken":%d}}}`, i, i))
		evs := events(t, resp)
		first, ok := <-evs
		if !ok || first.id == "" || first.data != "" {
			t.Fatalf("call %d: no priming event first (%+v)", i, first)
		}
		primes = append(primes, first.id)
		for m := next(t, evs).msg; string(m.ID) != fmt.Sprint(i); m = next(t, evs).msg {
		}
	}
	kept := 0
	for _, id := range primes {
		_, err := s.sessions.events.Replay(context.Background(), c.session, id, func(_ string, data []byte) error {
			kept += len(data)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if kept > 1<<20 {
		t.Fatalf("the session's event log holds %d bytes after four 600 KiB results; want at most 1 MiB", kept)
	}
	if kept < 600<<10 {
		t.Fatalf("the event log holds %d bytes: the newest result should still replay", kept)
	}
}

// TestMaxSessions: initialize beyond MaxSessions gets 503 with Retry-After;
// once a session ends, a new one is accepted.
func TestMaxSessions(t *testing.T) {
	_, ts := legacyServer(t, Options{MaxSessions: 3})
	var clients []*client
	for range 3 {
		c := newClient(t, ts)
		c.initialize(Version20251125, `{}`)
		clients = append(clients, c)
	}
	extra := newClient(t, ts)
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`, Version20251125)
	resp := extra.post(init)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || resp.Header.Get(headerSessionID) != "" {
		t.Fatalf("initialize beyond MaxSessions: %d, Retry-After %q, session %q; want 503 with Retry-After and no session",
			resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get(headerSessionID))
	}
	if m := jsonBody(t, resp); m.Error == nil || !strings.Contains(m.Error.Message, "too many sessions") || string(m.ID) != "0" {
		t.Fatalf("body %+v", m)
	}
	del := clients[0].do(clients[0].request(http.MethodDelete, ""))
	if del.StatusCode != 200 {
		t.Fatalf("DELETE: %d", del.StatusCode)
	}
	extra.initialize(Version20251125, `{}`)
}

// TestMaxGETStreams: a GET stream beyond MaxGETStreams gets 429 with
// Retry-After; once one ends, a new one opens. (The clients share one
// address: CallerShare 1 lets that caller reach the whole bound.)
func TestMaxGETStreams(t *testing.T) {
	_, ts := legacyServer(t, Options{MaxGETStreams: 2, CallerShare: 1})
	var gets []*http.Response
	var clients []*client
	for range 3 {
		c := newClient(t, ts)
		c.initialize(Version20251125, `{}`)
		clients = append(clients, c)
	}
	for _, c := range clients[:2] {
		resp := c.do(c.request(http.MethodGet, ""))
		if resp.StatusCode != 200 {
			t.Fatalf("GET: %d", resp.StatusCode)
		}
		gets = append(gets, resp)
	}
	third := clients[2].do(clients[2].request(http.MethodGet, ""))
	if third.StatusCode != http.StatusTooManyRequests || third.Header.Get("Retry-After") == "" {
		t.Fatalf("GET beyond MaxGETStreams: %d, Retry-After %q; want 429 with Retry-After", third.StatusCode, third.Header.Get("Retry-After"))
	}
	// Ending the first session ends its GET stream: once its body reaches
	// EOF, the handler has returned and the stream no longer counts.
	if del := clients[0].do(clients[0].request(http.MethodDelete, "")); del.StatusCode != 200 {
		t.Fatalf("DELETE: %d", del.StatusCode)
	}
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, gets[0].Body); done <- err }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the GET stream of a deleted session did not end within 5s")
	}
	again := clients[2].do(clients[2].request(http.MethodGet, ""))
	if again.StatusCode != 200 {
		t.Fatalf("GET after one ended: %d", again.StatusCode)
	}
}

// TestNewGETTakesTheStreamOver: a session holds one connection per stream:
// each new GET takes the standalone stream over and the previous GET's
// response ends, so GETs on one session cannot pile up.
func TestNewGETTakesTheStreamOver(t *testing.T) {
	_, ts := legacyServer(t, Options{})
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	prev := c.do(c.request(http.MethodGet, ""))
	for i := range 20 {
		cur := c.do(c.request(http.MethodGet, ""))
		if cur.StatusCode != 200 {
			t.Fatalf("GET %d: %d", i+2, cur.StatusCode)
		}
		done := make(chan error, 1)
		go func() { _, err := io.Copy(io.Discard, prev.Body); done <- err }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("GET %d still open 5s after GET %d took its stream over", i+1, i+2)
		}
		prev = cur
	}
}
