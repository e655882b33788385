package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestScaffoldAnnouncesNoteChanges: the scaffolded server, run as a
// process, tells a session subscribed to a note's resource that it changed
// when add_note saves it, and every session that the resource list changed,
// on the session's GET stream.
func TestScaffoldAnnouncesNoteChanges(t *testing.T) {
	e2eEnv(t)
	dir := filepath.Join(t.TempDir(), "notes-server")
	if code, stdout, stderr := run(t, "init", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	mustGo(t, dir, "generate", "./...")
	bin := filepath.Join(t.TempDir(), "notes-server")
	mustGo(t, dir, "build", "-o", bin, ".")
	url := startHTTPServer(t, bin)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := &mcpHTTP{t: t, client: &http.Client{Transport: &http.Transport{}}, url: url}
	defer c.client.CloseIdleConnections()
	resp := c.post(ctx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	c.sid = resp.Header.Get("Mcp-Session-Id")
	resp.Body.Close()
	c.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()

	get, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", c.sid)
	get.Header.Set("MCP-Protocol-Version", "2025-11-25")
	stream, err := c.client.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	events := newMessages(t, stream)

	c.call(ctx, 2, "resources/subscribe", `{"uri":"notes://groceries"}`)
	c.call(ctx, 3, "tools/call", `{"name":"add_note","arguments":{"title":"groceries","body":"milk"}}`)

	// Both arrive before the deadline of ctx, which ends the stream.
	want := map[string]bool{"notifications/resources/updated notes://groceries": true, "notifications/resources/list_changed": true}
	for len(want) > 0 {
		msg := events.next(t)
		var params struct {
			URI string `json:"uri"`
		}
		if msg.Params != nil {
			if err := json.Unmarshal(msg.Params, &params); err != nil {
				t.Fatalf("%s: params %s: %v", msg.Method, msg.Params, err)
			}
		}
		delete(want, strings.TrimSpace(msg.Method+" "+params.URI))
	}
}
