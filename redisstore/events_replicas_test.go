package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The events extension over the wire on three replica processes that share
// one Redis: what is emitted on one reaches a push stream held by another
// and a poll served by the third, and a cursor issued by one resumes on any.

// eventsRequest is a 2026-07-28 request (no session: any replica serves it).
func eventsRequest(ctx context.Context, url string, id any, method string, params map[string]any) (*http.Request, error) {
	p := map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "replica-test", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}}
	for k, v := range params {
		p[k] = v
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": p})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if method == "tools/call" {
		req.Header.Set("Mcp-Name", fmt.Sprint(params["name"]))
	}
	return req, nil
}

// eventsCall sends one 2026-07-28 request and returns its response.
func eventsCall(t *testing.T, ctx context.Context, url, method string, params map[string]any) *msg {
	t.Helper()
	req, err := eventsRequest(ctx, url, 1, method, params)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out *msg
	if err := readMessages(resp, func(m *msg) (bool, error) {
		if m.Method == "" {
			out = m
			return true, nil
		}
		return false, nil
	}); err != nil || out == nil {
		t.Fatalf("%s: %v", method, err)
	}
	if out.Error != nil {
		t.Fatalf("%s: error %d %s", method, out.Error.Code, out.Error.Message)
	}
	return out
}

func TestEventsAcrossReplicaProcesses(t *testing.T) {
	rs := startReplicas(t, 3, redisSpec(t), "test:"+t.Name()+":"+randomHex(4)+":")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := map[string]any{"prefix": "w"}

	// Replica 3 holds a push stream.
	req, err := eventsRequest(ctx, rs[2].url, "push-1", "events/stream", map[string]any{"name": "note_added", "arguments": args})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	pushed := make(chan *msg, 64)
	go func() {
		defer close(pushed)
		readMessages(resp, func(m *msg) (bool, error) {
			select {
			case pushed <- m:
			case <-ctx.Done():
				return true, nil
			}
			return false, nil
		})
	}()
	next := func() *msg {
		t.Helper()
		for {
			select {
			case m, ok := <-pushed:
				if !ok {
					t.Fatal("the stream on replica 3 ended")
				}
				if m.Method != "notifications/events/heartbeat" {
					return m
				}
			case <-time.After(10 * time.Second):
				t.Fatal("nothing on the stream of replica 3 within 10s")
			}
		}
	}
	if m := next(); m.Method != "notifications/events/active" || !bytes.Contains(m.Params, []byte(`"io.modelcontextprotocol/subscriptionId":"push-1"`)) {
		t.Fatalf("the stream's first message: %s %s", m.Method, m.Params)
	}

	// Replica 2 gives a poller its cursor.
	var first struct{ Cursor *string }
	json.Unmarshal(eventsCall(t, ctx, rs[1].url, "events/poll", map[string]any{"name": "note_added", "arguments": args}).Result, &first)
	if first.Cursor == nil {
		t.Fatal("the first poll gave no cursor")
	}

	// Replica 1 emits.
	for i, title := range []string{"work 1", "home", "work 2"} {
		eventsCall(t, ctx, rs[0].url, "tools/call", map[string]any{"name": "emit_note", "arguments": map[string]any{"id": i + 1, "title": title}})
	}
	var got []string
	for range 2 {
		m := next()
		var ev struct {
			EventID string `json:"eventId"`
			Cursor  string `json:"cursor"`
		}
		json.Unmarshal(m.Params, &ev)
		if m.Method != "notifications/events/event" || ev.Cursor == "" {
			t.Fatalf("pushed %s %s", m.Method, m.Params)
		}
		got = append(got, ev.EventID)
	}
	if strings.Join(got, ",") != "note-1,note-3" {
		t.Errorf("replica 3 pushed %v, want note-1 and note-3", got)
	}

	// Replica 2 serves the poll from its cursor; replica 3 resumes it too.
	for _, r := range []*replica{rs[1], rs[2]} {
		var polled struct {
			Events []struct {
				EventID string `json:"eventId"`
			} `json:"events"`
			Truncated bool `json:"truncated"`
		}
		json.Unmarshal(eventsCall(t, ctx, r.url, "events/poll", map[string]any{"name": "note_added", "arguments": args, "cursor": *first.Cursor}).Result, &polled)
		var ids []string
		for _, ev := range polled.Events {
			ids = append(ids, ev.EventID)
		}
		if strings.Join(ids, ",") != "note-1,note-3" || polled.Truncated {
			t.Errorf("the poll on %s: %v (truncated %v)", r.url, ids, polled.Truncated)
		}
	}
}
