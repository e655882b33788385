package runtime

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestModernListen(t *testing.T) {
	leakCheck(t)
	s := newTestServer(t, elicitationTool())
	c := modernServer(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Two streams: one for tool changes, one filtered to prompts only.
	resp, toolsBody := c.send("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, withCtx(ctx), withID("listen-tools"))
	defer toolsBody.Close()
	if resp.Header.Get("X-Accel-Buffering") != "no" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("listen stream headers: %v", resp.Header)
	}
	_, promptsBody := c.send("subscriptions/listen", map[string]any{"notifications": map[string]any{"promptsListChanged": true}}, withCtx(ctx), withID(77))
	defer promptsBody.Close()
	tools, prompts := newSSEReader(toolsBody), newSSEReader(promptsBody)

	ack := tools.next(t)
	if ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %v, want the acknowledgement", ack)
	}
	if got := jsonOf(ack["params"]); got != `{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-tools"},"notifications":{"toolsListChanged":true}}` {
		t.Errorf("ack params = %s", got)
	}
	ack = prompts.next(t)
	if got := jsonOf(ack["params"]); got != `{"_meta":{"io.modelcontextprotocol/subscriptionId":77},"notifications":{}}` {
		t.Errorf("a server without prompts honours none of that filter; ack params = %s", got)
	}

	// A tool change made on another POST reaches the tools stream only.
	s.NotifyToolListChanged()
	n := tools.next(t)
	if n["method"] != "notifications/tools/list_changed" || jsonOf(n["params"]) != `{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-tools"}}` {
		t.Errorf("got %v, want tools/list_changed tagged with the subscription id", n)
	}

	// Graceful shutdown ends both streams with a final complete result; the
	// prompts stream must have received nothing in between.
	s.d.listeners.shutdown()
	for name, r := range map[string]*sseReader{"tools": tools, "prompts": prompts} {
		final := r.next(t)
		res, _ := final["result"].(map[string]any)
		if final["id"] == nil || res["resultType"] != "complete" {
			t.Errorf("%s stream: got %v, want the final complete result", name, final)
		}
		if m := r.next(t); m != nil {
			t.Errorf("%s stream: %v after the final result", name, m)
		}
	}
}

func TestModernListenClientCloses(t *testing.T) {
	leakCheck(t)
	s := newTestServer(t)
	c := modernServer(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	_, body := c.send("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, withCtx(ctx))
	if m := newSSEReader(body).next(t); m["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("got %v", m)
	}
	cancel()
	body.Close()
	// The stream's goroutine must end (leakCheck) and publishing after the
	// client left must not block.
	s.NotifyToolListChanged()
}

func TestModernListenNeedsFilter(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t))
	if r := c.call("subscriptions/listen", map[string]any{}); r.errCode(t) != CodeInvalidParams {
		t.Errorf("want -32602 without params.notifications, got %s", r.body)
	}
	r := c.call("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, withHeader("Accept", "application/json"))
	if r.status != http.StatusNotAcceptable || r.errCode(t) != CodeInvalidRequest {
		t.Errorf("a client that takes no event stream: want 406, got HTTP %d %s", r.status, r.body)
	}
}

// TestModernListenIsBounded: subscriptions/listen streams need no session,
// so they count against MaxGETStreams: one more than the bound gets 429.
func TestModernListenIsBounded(t *testing.T) {
	leakCheck(t)
	s := NewServer(Options{MaxGETStreams: 2, CallerShare: 1})
	t.Cleanup(func() { s.Close() })
	c := modernServer(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listen := map[string]any{"notifications": map[string]any{"toolsListChanged": true}}
	for i := range 2 {
		_, body := c.send("subscriptions/listen", listen, withCtx(ctx))
		defer body.Close()
		if m := newSSEReader(body).next(t); m["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("listen %d: got %v", i+1, m)
		}
	}
	// The status comes before any body: a stream that was wrongly admitted
	// fails here instead of blocking the test.
	resp, body := c.send("subscriptions/listen", listen, withCtx(ctx))
	defer body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a third listen stream with MaxGETStreams 2: HTTP %d; want 429", resp.StatusCode)
	}
	if r := readModernResp(t, resp, body); r.errCode(t) != CodeLimitExceeded || r.errData(t)["bound"] != "Options.MaxGETStreams" {
		t.Fatalf("a third listen stream: %s; want CodeLimitExceeded naming Options.MaxGETStreams", r.body)
	}
}
