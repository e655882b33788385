package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/conformance/fixtures"
)

// watchedResource is the resource test_trigger_resource_update announces.
const watchedResource = fixtures.WatchedResourceResourceURI

// interopTools are the diagnostic tools beyond the suite's that the
// real-client interop checks (interop/) call.
var interopTools = []string{"test_trigger_resource_update"}

// A 2025 session subscribed to the watched resource gets
// notifications/resources/updated for it when test_trigger_resource_update
// runs (over stdio, where the session's connection carries unsolicited
// notifications), and none after it unsubscribed.
func TestTriggerResourceUpdateNotifiesSubscribers(t *testing.T) {
	s, err := newServer(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- s.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	lines := make(chan map[string]any, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var msg map[string]any
			if json.Unmarshal(sc.Bytes(), &msg) == nil {
				lines <- msg
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-served:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return within 5 s")
		}
		for range lines {
		}
		_ = s.Close()
	})

	send := func(msg map[string]any) {
		t.Helper()
		b, _ := json.Marshal(msg)
		if _, err := inW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	timeout := time.After(10 * time.Second)
	// until reads messages until the response to id, and returns the
	// notifications/resources/updated uris it saw on the way.
	until := func(id float64) (updated []string) {
		t.Helper()
		for {
			select {
			case msg, ok := <-lines:
				if !ok {
					t.Fatalf("the server closed stdout before answering request %v", id)
				}
				if msg["method"] == "notifications/resources/updated" {
					params, _ := msg["params"].(map[string]any)
					uri, _ := params["uri"].(string)
					updated = append(updated, uri)
				}
				if msg["id"] == id {
					if msg["error"] != nil {
						t.Fatalf("request %v: %v", id, msg["error"])
					}
					return updated
				}
			case <-timeout:
				t.Fatalf("no response to request %v within 10 s", id)
			}
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "resource-updates-test", "version": "1"}}})
	until(1)
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": map[string]any{"uri": watchedResource}})
	until(2)
	trigger := map[string]any{"name": "test_trigger_resource_update", "arguments": map[string]any{}}
	send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": trigger})
	// NotifyResourceUpdated queues the notification on the connection
	// before the handler returns, so it precedes the tool's response.
	updated := until(3)
	if len(updated) != 1 || updated[0] != watchedResource {
		t.Fatalf("subscribed: notifications/resources/updated for %v, want exactly [%s]", updated, watchedResource)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 5, "method": "resources/unsubscribe", "params": map[string]any{"uri": watchedResource}})
	until(5)
	send(map[string]any{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": trigger})
	if after := until(6); len(after) != 0 {
		t.Fatalf("unsubscribed: still got notifications/resources/updated for %v", after)
	}
}
