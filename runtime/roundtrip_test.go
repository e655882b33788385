package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// noGETDeadlockOptions make a misrouted message hang instead of failing
// fast: with no GET stream, a message sent to the standalone stream would
// wait an hour for one, so the events helper's 5 s bound reports the
// deadlock as "no event". The test asserts the route, not a duration; the
// duration is logged (it is milliseconds when the route is right).
var noGETDeadlockOptions = Options{FallbackWait: time.Hour}

// TestElicitationOnPOSTStreamNoGET is the deadlock regression: with no GET
// stream at all, elicitation/create rides the tools/call POST's own stream,
// the answer goes in on a second POST, and the result comes off the first.
func TestElicitationOnPOSTStreamNoGET(t *testing.T) {
	_, ts := legacyServer(t, noGETDeadlockOptions, confirmTool())
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
	t.Logf("round trip with no GET stream: %v", time.Since(start))
}

// TestSamplingAndRootsOnPOSTStreamNoGET: sampling/createMessage and
// roots/list ride the POST stream exactly like elicitation.
func TestSamplingAndRootsOnPOSTStreamNoGET(t *testing.T) {
	sample := toolOf("sample", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		res, err := call.CreateMessage(ctx, UserText("hello", 10))
		if err != nil {
			return nil, err
		}
		return ContentResult(call, []Content{Text(res.Model)}), nil
	})
	roots := toolOf("roots", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		rs, err := call.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		return ContentResult(call, []Content{Text(rs[0].URI)}), nil
	})
	_, ts := legacyServer(t, noGETDeadlockOptions, sample, roots)
	c := newClient(t, ts)
	c.initialize(Version20250618, `{"sampling":{},"roots":{"listChanged":true}}`)
	for _, tc := range []struct{ tool, method, answer, want string }{
		{"sample", "sampling/createMessage", `{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m1"}`, "m1"},
		{"roots", "roots/list", `{"roots":[{"uri":"file:///r","name":"r"}]}`, "file:///r"},
	} {
		start := time.Now()
		ch := events(t, c.post(callBody(1, tc.tool, `{}`)))
		ev := next(t, ch)
		if ev.msg.Method != tc.method {
			t.Fatalf("%s: got %s", tc.tool, ev.data)
		}
		if code := c.answer(ev.msg.ID, tc.answer); code != 202 {
			t.Fatalf("%s: answer status %d", tc.tool, code)
		}
		if got := resultText(t, next(t, ch).msg); got != tc.want {
			t.Fatalf("%s: result %q", tc.tool, got)
		}
		t.Logf("%s round trip with no GET stream: %v", tc.tool, time.Since(start))
	}
}

// TestConcurrentPOSTsNeverCrossAnswers: two calls of one session, no GET
// stream; each answer reaches its own call. An answer posted with another
// session's ID is refused and the right call still completes.
func TestConcurrentPOSTsNeverCrossAnswers(t *testing.T) {
	_, ts := legacyServer(t, Options{}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{"form":{}}}`)
	other := newClient(t, ts)
	other.initialize(Version20251125, `{"elicitation":{}}`)

	a := events(t, c.post(callBody(1, "confirm", `{}`)))
	b := events(t, c.post(callBody(2, "confirm", `{}`)))
	ea, eb := next(t, a), next(t, b)
	if string(ea.msg.ID) == string(eb.msg.ID) {
		t.Fatalf("both elicitations have ID %s", ea.msg.ID)
	}
	// Another session cannot answer a's question.
	if code := other.answer(ea.msg.ID, `{"action":"accept","content":{"confirm":false,"note":"intruder"}}`); code != http.StatusBadRequest {
		t.Fatalf("answer from another session: status %d, want 400", code)
	}
	// Answer b first, then a, with distinct notes.
	if code := c.answer(eb.msg.ID, `{"action":"accept","content":{"confirm":true,"note":"for-b"}}`); code != 202 {
		t.Fatal(code)
	}
	if code := c.answer(ea.msg.ID, `{"action":"accept","content":{"confirm":false,"note":"for-a"}}`); code != 202 {
		t.Fatal(code)
	}
	ra, rb := next(t, a), next(t, b)
	if got := resultText(t, ra.msg); got != "confirm=false note=for-a" || string(ra.msg.ID) != "1" {
		t.Fatalf("a: %q id %s", got, ra.msg.ID)
	}
	if got := resultText(t, rb.msg); got != "confirm=true note=for-b" || string(rb.msg.ID) != "2" {
		t.Fatalf("b: %q id %s", got, rb.msg.ID)
	}
}

// TestDeclineAndCancelAreDistinct: the three actions are three outcomes.
func TestDeclineAndCancelAreDistinct(t *testing.T) {
	_, ts := legacyServer(t, Options{}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	for _, tc := range []struct{ answer, want string }{
		{`{"action":"decline"}`, "ERROR: " + ErrDeclined.Error()},
		{`{"action":"cancel"}`, "ERROR: " + ErrCancelled.Error()},
		{`{"action":"accept","content":{"confirm":"yes"}}`, "ERROR: "},
	} {
		ch := events(t, c.post(callBody(1, "confirm", `{}`)))
		ev := next(t, ch)
		c.answer(ev.msg.ID, tc.answer)
		if got := resultText(t, next(t, ch).msg); !strings.HasPrefix(got, tc.want) {
			t.Fatalf("%s: %q", tc.answer, got)
		}
	}
}
