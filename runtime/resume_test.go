package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// twoLogsThenConfirm logs twice, then asks confirmForm.
func twoLogsThenConfirm() Tool {
	return toolOf("steps", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		for i := 1; i <= 2; i++ {
			if err := call.Log(ctx, LevelInfo, "steps", fmt.Sprintf("log %d", i)); err != nil {
				return nil, err
			}
		}
		var a confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "", &a); err != nil {
			return nil, err
		}
		return ContentResult(call, []Content{Text(fmt.Sprint(a.Confirm))}), nil
	}, confirmForm)
}

// TestResumeReplaysExactlyTheMissedEvents: the client reads the priming
// event and the first log, drops the connection, and resumes with the first
// log's ID: it gets exactly the second log and the pending
// elicitation/create, answers it, and the result follows on the resumed
// stream.
func TestResumeReplaysExactlyTheMissedEvents(t *testing.T) {
	_, ts := legacyServer(t, Options{KeepAlive: -1}, twoLogsThenConfirm())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`))

	resp := c.post(callBody(2, "steps", `{}`))
	ch := events(t, resp)
	prime := <-ch
	if prime.id == "" || prime.data != "" {
		t.Fatalf("first event %+v, want a priming event", prime)
	}
	first := next(t, ch)
	if first.msg.Method != "notifications/message" || first.id == "" {
		t.Fatalf("got %+v", first)
	}
	resp.Body.Close() // the connection drops; the call goes on

	get := c.request(http.MethodGet, "")
	get.Header.Set("Last-Event-ID", first.id)
	rch := events(t, c.do(get))
	second := next(t, rch)
	var p struct{ Data string }
	json.Unmarshal(second.msg.Params, &p)
	if second.msg.Method != "notifications/message" || p.Data != "log 2" {
		t.Fatalf("first replayed event %s, want log 2", second.data)
	}
	el := next(t, rch)
	if el.msg.Method != "elicitation/create" {
		t.Fatalf("second replayed event %s, want elicitation/create", el.data)
	}
	if code := c.answer(el.msg.ID, `{"action":"accept","content":{"confirm":true}}`); code != 202 {
		t.Fatalf("answer: %d", code)
	}
	res := next(t, rch)
	if got := resultText(t, res.msg); got != "true" || string(res.msg.ID) != "2" {
		t.Fatalf("result %q id %s", got, res.msg.ID)
	}
	// Event IDs are unique and name the stream.
	seen := map[string]bool{}
	for _, id := range []string{prime.id, first.id, second.id, el.id, res.id} {
		if seen[id] {
			t.Fatalf("event ID %s repeated", id)
		}
		seen[id] = true
	}
}

// TestDisconnectIsNotCancellation: the client drops the POST stream in the
// middle of an elicitation; the call goes on, the client resumes from the
// priming event and still answers.
func TestDisconnectIsNotCancellation(t *testing.T) {
	_, ts := legacyServer(t, Options{KeepAlive: -1}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	resp := c.post(callBody(5, "confirm", `{}`))
	ch := events(t, resp)
	prime := <-ch
	el := next(t, ch)
	resp.Body.Close()

	get := c.request(http.MethodGet, "")
	get.Header.Set("Last-Event-ID", prime.id)
	rch := events(t, c.do(get))
	again := next(t, rch)
	if again.msg.Method != "elicitation/create" || string(again.msg.ID) != string(el.msg.ID) || again.id != el.id {
		t.Fatalf("replayed %+v, want the same elicitation %s", again, el.data)
	}
	c.answer(again.msg.ID, `{"action":"accept","content":{"confirm":false}}`)
	if got := resultText(t, next(t, rch).msg); got != "confirm=false note=none" {
		t.Fatalf("result %q", got)
	}
}

// TestStreamAfterPrimesLongCalls: with StreamAfter, a call still running
// gets an event stream with a priming event and a retry hint; the client may
// drop it and collect the result with Last-Event-ID (SEP-1699 polling).
func TestStreamAfterPrimesLongCalls(t *testing.T) {
	release := make(chan struct{})
	slow := toolOf("slow", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		<-release
		return ContentResult(call, []Content{Text("late")}), nil
	})
	_, ts := legacyServer(t, Options{KeepAlive: -1, StreamAfter: 5 * time.Millisecond, RetryInterval: 250 * time.Millisecond}, slow)
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	resp := c.post(callBody(1, "slow", `{}`))
	prime := <-events(t, resp)
	if prime.id == "" || prime.data != "" {
		t.Fatalf("first event %+v, want priming", prime)
	}
	resp.Body.Close()
	close(release)
	get := c.request(http.MethodGet, "")
	get.Header.Set("Last-Event-ID", prime.id)
	res := next(t, events(t, c.do(get)))
	if got := resultText(t, res.msg); got != "late" || string(res.msg.ID) != "1" {
		t.Fatalf("result %q id %s", got, res.msg.ID)
	}
}
