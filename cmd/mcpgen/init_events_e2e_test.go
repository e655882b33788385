package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/ext/events/eventstest"
)

// testHTTPEvents: the scaffold's note_added event, served by the built
// binary over HTTP, reaches a 2026-07-28 push stream (filtered by the
// subscription's title prefix, tagged with the stream's request id) and a
// 2025-11-25 session's poll from its cursor, as add_note saves new notes;
// a webhook subscription is refused, for want of a principal.
func testHTTPEvents(t *testing.T, bin string) {
	url := startHTTPServer(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := &mcpHTTP{t: t, client: &http.Client{Transport: &http.Transport{}}, url: url}
	defer c.client.CloseIdleConnections()
	resp := c.post(ctx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	c.sid = resp.Header.Get("Mcp-Session-Id")
	initMsg := newMessages(t, resp).untilID(t, "1")
	resp.Body.Close()
	if !bytes.Contains(initMsg.Result, []byte(`"io.modelcontextprotocol/events":{"listChanged":true}`)) {
		t.Errorf("initialize declares no events extension: %s", initMsg.Result)
	}
	resp = c.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()

	if got := c.call(ctx, 2, "events/list", `{}`).Result; !bytes.Contains(got, []byte(`"name":"note_added"`)) {
		t.Fatalf("events/list: %s", got)
	}
	var first struct{ Cursor *string }
	if err := json.Unmarshal(c.call(ctx, 3, "events/poll", `{"name":"note_added","arguments":{"prefix":"apple"}}`).Result, &first); err != nil || first.Cursor == nil {
		t.Fatalf("the first poll: %v %+v", err, first)
	}

	// A 2026-07-28 push stream on a request of its own.
	streamCtx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	req, err := http.NewRequestWithContext(streamCtx, http.MethodPost, url,
		strings.NewReader(`{"jsonrpc":"2.0","id":"push-1","method":"events/stream","params":{"name":"note_added","arguments":{"prefix":"apple"},`+meta+`}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "events/stream")
	sresp, err := c.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer sresp.Body.Close()
	stream := newMessages(t, sresp)
	if m := stream.next(t); m.Method != "notifications/events/active" || !bytes.Contains(m.Params, []byte(`"io.modelcontextprotocol/subscriptionId":"push-1"`)) {
		t.Fatalf("the stream's first message: %s %s", m.Method, m.Params)
	}

	for i, title := range []string{"apple pie", "banana bread", "apple crumble"} {
		r := decodeResult(t, c.call(ctx, 10+i, "tools/call", fmt.Sprintf(`{"name":"add_note","arguments":{"title":%q,"body":"..."}}`, title)))
		if r.IsError {
			t.Fatalf("add_note %q: %s", title, r.text())
		}
	}
	for _, want := range []string{`"eventId":"note-1"`, `"eventId":"note-3"`} {
		m := stream.next(t)
		for m.Method == "notifications/events/heartbeat" {
			m = stream.next(t)
		}
		if m.Method != "notifications/events/event" || !bytes.Contains(m.Params, []byte(want)) || bytes.Contains(m.Params, []byte("banana")) {
			t.Errorf("pushed %s %s, want the event %s", m.Method, m.Params, want)
		}
	}
	stopStream()

	// Webhooks need an authenticated principal (SEP-3415): this scaffold,
	// made without --auth, has none to give them, and says so.
	rc := eventstest.NewReceiver(t)
	if m := statelessCall(ctx, t, c.client, url, "", 30, "events/subscribe",
		fmt.Sprintf(`{"name":"note_added","delivery":{"mode":"webhook","url":%q,"secret":%q}}`, rc.URL, rc.Secret)); m.Error == nil ||
		!bytes.Contains(m.Error, []byte("authenticated principal")) || rc.Verifications() != 0 {
		t.Errorf("events/subscribe without a principal: %s %s (%d verifications)", m.Result, m.Error, rc.Verifications())
	}

	var polled struct {
		Events []struct {
			EventID string `json:"eventId"`
			Data    struct {
				ID    int    `json:"id"`
				Title string `json:"title"`
			} `json:"data"`
		} `json:"events"`
		Cursor *string `json:"cursor"`
	}
	cur, _ := json.Marshal(*first.Cursor)
	if err := json.Unmarshal(c.call(ctx, 20, "events/poll", `{"name":"note_added","arguments":{"prefix":"apple"},"cursor":`+string(cur)+`}`).Result, &polled); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range polled.Events {
		got = append(got, fmt.Sprintf("%s %d %s", ev.EventID, ev.Data.ID, ev.Data.Title))
	}
	if want := "note-1 1 apple pie, note-3 3 apple crumble"; strings.Join(got, ", ") != want || polled.Cursor == nil {
		t.Errorf("polled %q, want %q", strings.Join(got, ", "), want)
	}
}
