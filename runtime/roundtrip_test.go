package runtime

import (
	"strings"
	"testing"
	"time"
)

// TestElicitationOnPOSTStreamNoGET is the deadlock regression: with no GET
// stream at all, elicitation/create rides the tools/call POST's own stream,
// the answer goes in on a second POST, and the result comes off the first.
func TestElicitationOnPOSTStreamNoGET(t *testing.T) {
	_, ts := legacyServer(t, Options{}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	start := time.Now()
	resp := c.post(callBody(1, "confirm", `{}`))
	ch := events(t, resp)
	ev := next(t, ch)
	if ev.msg.Method != "elicitation/create" {
		t.Fatalf("first message %s, want elicitation/create", ev.data)
	}
	if !strings.Contains(string(ev.msg.Params), `"requestedSchema"`) {
		t.Fatalf("params %s", ev.msg.Params)
	}
	if code := c.answer(ev.msg.ID, `{"action":"accept","content":{"confirm":true}}`); code != 202 {
		t.Fatalf("answer: status %d", code)
	}
	res := next(t, ch)
	if got := resultText(t, res.msg); got != "confirm=true note=none" {
		t.Fatalf("result %q", got)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Fatalf("took %v", d)
	}
}
