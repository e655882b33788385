package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestModernProgressOnSSE(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t, progressLogTool()))
	r := c.call("tools/call", map[string]any{"name": "test_tool_with_progress"}, withMeta("progressToken", "progress-test-1"))
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q, want an SSE response: %s", ct, r.body)
	}
	if r.header.Get("X-Accel-Buffering") != "no" {
		t.Errorf("X-Accel-Buffering = %q, want no", r.header.Get("X-Accel-Buffering"))
	}
	prog := r.notifications("notifications/progress")
	if len(prog) != 3 {
		t.Fatalf("want 3 progress notifications, got %d: %s", len(prog), r.body)
	}
	for i, want := range []float64{0, 50, 100} {
		p := prog[i]["params"].(map[string]any)
		if p["progressToken"] != "progress-test-1" || p["progress"] != want || p["total"] != float64(100) {
			t.Errorf("progress #%d = %v", i, p)
		}
	}
	if n := len(r.notifications("notifications/message")); n != 0 {
		t.Errorf("%d notifications/message without _meta logLevel, want none", n)
	}
	if last := r.msgs[len(r.msgs)-1]; last["id"] == nil {
		t.Errorf("the response must come last, got %v", last)
	}
	if got := completeText(t, r); got != "done" {
		t.Errorf("text = %q", got)
	}
}

func TestModernLogLevel(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t, progressLogTool()))
	t.Run("no logLevel, plain JSON, no messages", func(t *testing.T) {
		r := c.call("tools/call", map[string]any{"name": "test_tool_with_progress"})
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("a call that sends nothing else stays JSON, got %q", ct)
		}
		if len(r.msgs) != 1 {
			t.Errorf("want only the response, got %s", r.body)
		}
	})
	t.Run("logLevel info", func(t *testing.T) {
		r := c.call("tools/call", map[string]any{"name": "test_tool_with_progress"}, withMeta(metaLogLevel, "info"))
		var levels []string
		for _, m := range r.notifications("notifications/message") {
			levels = append(levels, m["params"].(map[string]any)["level"].(string))
		}
		if strings.Join(levels, ",") != "info,error" {
			t.Errorf("levels = %v, want info,error", levels)
		}
	})
}

func TestModernNoRequestsOnStream(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t, streamingElicitationTool()))
	r := c.call("tools/call", map[string]any{"name": "test_streaming_elicitation"},
		withCaps(map[string]any{"elicitation": map[string]any{}}), withMeta("progressToken", 7))
	if len(r.msgs) < 2 {
		t.Fatalf("want progress then the result: %s", r.body)
	}
	for _, m := range r.msgs {
		if method, ok := m["method"].(string); ok && !strings.HasPrefix(method, "notifications/") {
			t.Errorf("a request on the response stream: %v", m)
		}
	}
	if rt := r.result(t)["resultType"]; rt != "input_required" {
		t.Errorf("resultType = %v", rt)
	}
}

// TestModernCancellation: closing the response stream cancels the handler;
// nothing more is sent for it.
func TestModernCancellation(t *testing.T) {
	leakCheck(t)
	started := make(chan struct{})
	ended := make(chan error, 1)
	slow := Tool{
		Name: "slow", Definition: toolDef("slow", ""),
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			if err := call.Progress(ctx, 1, 0, "started"); err != nil {
				ended <- err
				return nil, err
			}
			close(started)
			<-ctx.Done()
			// Whatever the handler tries after cancellation goes nowhere.
			ended <- call.Progress(ctx, 2, 0, "too late")
			return ContentResult(call, []Content{Text("too late")}), nil
		},
	}
	c := modernServer(t, newTestServer(t, slow))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, body := c.send("tools/call", map[string]any{"name": "slow"}, withCtx(ctx), withMeta("progressToken", "p"))
	sse := newSSEReader(body)
	if m := sse.next(t); m["method"] != "notifications/progress" {
		t.Fatalf("first message %v", m)
	}
	<-started
	cancel()
	body.Close()
	_ = resp
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("after cancellation Progress returned %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context was not cancelled when the client closed the stream")
	}
}

func TestModernNoSSEWithoutAccept(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t, progressLogTool()))
	r := c.call("tools/call", map[string]any{"name": "test_tool_with_progress"}, withMeta("progressToken", "p"), withHeader("Accept", "application/json"))
	if r.status != http.StatusOK || len(r.msgs) != 1 || completeText(t, r) != "done" {
		t.Errorf("a client that takes no SSE gets the plain result: HTTP %d %s", r.status, r.body)
	}
}
