package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/wiretest"
	"github.com/mcpgen/mcpgen/runtime"
)

// Clients of a server with the events methods, over the wire only: a
// 2025-11-25 session or 2026-07-28 requests, over HTTP on loopback or
// stdio. Each can call a method and hold streams open at the same time
// (stdio demultiplexes them by id and by the subscriptionId tag).

// peer is one client of one era over one transport.
type peer struct {
	name   string
	modern bool
	// init is the legacy initialize result, or the 2026-07-28
	// server/discover result.
	init json.RawMessage

	call   func(t *testing.T, method string, params any) wiretest.Message
	stream func(t *testing.T, method string, params any) *liveStream
}

// liveStream is an open long-lived request: its messages, in order, the
// last one its response (if the server ends it).
type liveStream struct {
	id   json.RawMessage
	ch   chan wiretest.Message
	stop func()
	once sync.Once
}

// next is the stream's next message; ok false when none came within wait
// or the stream ended.
func (s *liveStream) next(wait time.Duration) (wiretest.Message, bool) {
	select {
	case m, ok := <-s.ch:
		return m, ok
	case <-time.After(wait):
		return wiretest.Message{}, false
	}
}

// must is the stream's next message, failing the test after 5s.
func (s *liveStream) must(t *testing.T) wiretest.Message {
	t.Helper()
	m, ok := s.next(5 * time.Second)
	if !ok {
		t.Fatal("no message on the stream within 5s")
	}
	return m
}

// skipBeats is the next message that is no heartbeat.
func (s *liveStream) skipBeats(t *testing.T) wiretest.Message {
	t.Helper()
	for {
		if m := s.must(t); m.Method != NotificationHeartbeat {
			return m
		}
	}
}

func (s *liveStream) close() { s.once.Do(s.stop) }

// serveHTTP serves srv on loopback.
func serveHTTP(t *testing.T, srv *runtime.Server) string { return wiretest.Serve(t, srv) }

// eventsCaps are client capabilities declaring the extension.
var eventsCaps = map[string]any{"extensions": map[string]any{ExtensionID: map[string]any{}}}

// httpPeer speaks version to url, as the principal of token ("" none).
func httpPeer(t *testing.T, url, version, token string) *peer {
	t.Helper()
	tr := &http.Transport{}
	hc := &http.Client{Transport: tr}
	t.Cleanup(tr.CloseIdleConnections)
	modern := version == runtime.Version20260728
	p := &peer{name: version + " HTTP", modern: modern}
	var session string
	var mu sync.Mutex
	id := 0
	post := func(ctx context.Context, method string, params any) (*http.Response, json.RawMessage, error) {
		mu.Lock()
		id++
		rid := json.RawMessage(fmt.Sprint(id))
		mu.Unlock()
		msg := map[string]any{"jsonrpc": "2.0", "id": rid, "method": method, "params": withMeta(params, modern)}
		if strings.HasPrefix(method, "notifications/") {
			delete(msg, "id")
		}
		body, _ := json.Marshal(msg)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if modern {
			req.Header.Set("MCP-Protocol-Version", version)
			req.Header.Set("Mcp-Method", method)
		} else if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", version)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		return resp, rid, err
	}
	p.call = func(t *testing.T, method string, params any) wiretest.Message {
		t.Helper()
		resp, _, err := post(context.Background(), method, params)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			var m wiretest.Message
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
				t.Fatalf("%s: HTTP %d, unreadable body: %v", method, resp.StatusCode, err)
			}
			if resp.StatusCode == http.StatusForbidden {
				m.Method = "http/403 " + resp.Header.Get("WWW-Authenticate")
			}
			return m
		}
		r := wiretest.NewSSE(resp.Body)
		for {
			m, ok := r.Next()
			if !ok {
				t.Fatalf("%s: the stream ended before its response", method)
			}
			if m.Method == "" {
				return m
			}
		}
	}
	p.stream = func(t *testing.T, method string, params any) *liveStream {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		resp, rid, err := post(ctx, method, params)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		s := &liveStream{id: rid, ch: make(chan wiretest.Message, 1024)}
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer close(s.ch)
			defer resp.Body.Close()
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				var m wiretest.Message
				if json.NewDecoder(resp.Body).Decode(&m) == nil {
					if resp.StatusCode == http.StatusForbidden {
						m.Method = "http/403 " + resp.Header.Get("WWW-Authenticate")
					}
					s.ch <- m
				}
				return
			}
			r := wiretest.NewSSE(resp.Body)
			for {
				m, ok := r.Next()
				if !ok {
					return
				}
				s.ch <- m
				if m.Method == "" {
					return
				}
			}
		}()
		s.stop = func() {
			if !modern {
				// A legacy session's stream outlives its connection, for
				// the client to resume it: a client that is done cancels it.
				if r, _, err := post(context.Background(), "notifications/cancelled", map[string]any{"requestId": rid}); err == nil {
					r.Body.Close()
				}
			}
			cancel()
			<-done
		}
		t.Cleanup(s.close)
		return s
	}
	if modern {
		p.init = p.call(t, "server/discover", map[string]any{}).Result
		return p
	}
	resp, _, err := post(context.Background(), "initialize", map[string]any{"protocolVersion": version, "capabilities": eventsCaps,
		"clientInfo": map[string]any{"name": "events-test", "version": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	var init wiretest.Message
	if err := json.NewDecoder(resp.Body).Decode(&init); err != nil || init.Error != nil {
		t.Fatalf("initialize: HTTP %d %v %+v", resp.StatusCode, err, init.Error)
	}
	resp.Body.Close()
	session, p.init = resp.Header.Get("Mcp-Session-Id"), init.Result
	r, _, err := post(context.Background(), "notifications/initialized", nil)
	if err == nil {
		r.Body.Close()
	}
	return p
}

// withMeta adds the 2026-07-28 request _meta to params.
func withMeta(params any, modern bool) any {
	if !modern {
		if params == nil {
			return map[string]any{}
		}
		return params
	}
	b, _ := json.Marshal(params)
	m := map[string]any{}
	json.Unmarshal(b, &m)
	m["_meta"] = wiretest.ModernMeta(eventsCaps)
	return m
}

// stdioPeer speaks version over a stdio connection of srv; its requests
// and streams share the connection, their answers told apart by id.
func stdioPeer(t *testing.T, srv *runtime.Server, version string) *peer {
	t.Helper()
	pipe := wiretest.StartStdio(t, srv)
	modern := version == runtime.Version20260728
	p := &peer{name: version + " stdio", modern: modern}
	var mu sync.Mutex
	waiting := map[string]chan wiretest.Message{}  // by request id
	streams := map[string]chan wiretest.Message{}  // by request id
	unclaimed := make(chan wiretest.Message, 1024) // what no one waits for
	stop := make(chan struct{})
	routed := make(chan struct{})
	go func() {
		defer close(routed)
		for {
			select {
			case <-stop:
				return
			default:
			}
			m, ok := pipe.Next(50 * time.Millisecond)
			if !ok {
				continue
			}
			key := string(m.ID)
			if m.Method != "" {
				var tag struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				}
				json.Unmarshal(m.Params, &tag)
				key = string(tag.Meta[SubscriptionIDMetaKey])
			}
			mu.Lock()
			w, s := waiting[key], streams[key]
			if m.Method == "" {
				delete(waiting, key)
				delete(streams, key)
			}
			mu.Unlock()
			switch {
			case w != nil && m.Method == "":
				w <- m
			case s != nil:
				s <- m
				if m.Method == "" {
					close(s)
				}
			default:
				select {
				case unclaimed <- m:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-routed })
	n := 0
	send := func(method string, params any, id json.RawMessage) {
		msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": withMeta(params, modern)}
		if id != nil {
			msg["id"] = id
		}
		b, _ := json.Marshal(msg)
		pipe.Write(b)
	}
	p.call = func(t *testing.T, method string, params any) wiretest.Message {
		t.Helper()
		mu.Lock()
		n++
		id := json.RawMessage(fmt.Sprint(n))
		ch := make(chan wiretest.Message, 1)
		waiting[string(id)] = ch
		mu.Unlock()
		send(method, params, id)
		select {
		case m := <-ch:
			return m
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no answer within 10s", method)
			return wiretest.Message{}
		}
	}
	p.stream = func(t *testing.T, method string, params any) *liveStream {
		t.Helper()
		mu.Lock()
		n++
		id := json.RawMessage(fmt.Sprintf(`"s-%d"`, n)) // a string id, as clients may use
		ch := make(chan wiretest.Message, 1024)
		streams[string(id)] = ch
		mu.Unlock()
		s := &liveStream{id: id, ch: ch}
		s.stop = func() {
			send("notifications/cancelled", map[string]any{"requestId": id, "reason": "test done"}, nil)
			mu.Lock()
			delete(streams, string(id))
			mu.Unlock()
		}
		send(method, params, id)
		t.Cleanup(s.close)
		return s
	}
	if modern {
		p.init = p.call(t, "server/discover", map[string]any{}).Result
		return p
	}
	mu.Lock()
	ch := make(chan wiretest.Message, 1)
	waiting["0"] = ch
	mu.Unlock()
	send("initialize", map[string]any{"protocolVersion": version, "capabilities": eventsCaps,
		"clientInfo": map[string]any{"name": "events-test", "version": "1"}}, json.RawMessage("0"))
	select {
	case m := <-ch:
		p.init = m.Result
	case <-time.After(10 * time.Second):
		t.Fatal("initialize over stdio: no answer")
	}
	send("notifications/initialized", nil, nil)
	return p
}

// errCode is m's JSON-RPC error code (0 for a result).
func errCode(m wiretest.Message) int {
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// decode decodes m's result (or a notification's params) into dst.
func decode(t *testing.T, m wiretest.Message, dst any) {
	t.Helper()
	raw := m.Result
	if m.Method != "" {
		raw = m.Params
	}
	if m.Error != nil {
		t.Fatalf("error %d: %s", m.Error.Code, m.Error.Message)
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}
