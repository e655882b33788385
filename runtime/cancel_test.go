package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestClientCancelMidElicitation: notifications/cancelled from the client
// ends the handler's context, the server cancels its outbound elicitation on
// the same stream, and no result is sent. A late answer then gets "request
// expired".
func TestClientCancelMidElicitation(t *testing.T) {
	handlerErr := make(chan error, 1)
	tool := toolOf("confirm", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		err := call.Elicit(ctx, confirmForm, "", nil)
		handlerErr <- ctx.Err()
		return nil, err
	}, confirmForm)
	_, ts := legacyServer(t, Options{KeepAlive: -1}, tool)
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	ch := events(t, c.post(callBody(3, "confirm", `{}`)))
	el := next(t, ch)
	resp := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"user"}}`)
	if resp.StatusCode != 202 {
		t.Fatalf("cancel: %d", resp.StatusCode)
	}
	if err := <-handlerErr; err == nil {
		t.Fatal("the handler's context did not end")
	}
	note := next(t, ch)
	var p struct{ RequestID json.RawMessage }
	json.Unmarshal(note.msg.Params, &p)
	if note.msg.Method != "notifications/cancelled" || string(p.RequestID) != string(el.msg.ID) {
		t.Fatalf("got %s, want notifications/cancelled for %s", note.data, el.msg.ID)
	}
	for ev := range ch {
		if ev.data != "" {
			t.Fatalf("after cancellation the stream carried %s", ev.data)
		}
	}
	if code := c.answer(el.msg.ID, `{"action":"accept","content":{"confirm":true}}`); code != http.StatusGone {
		t.Fatalf("late answer: %d, want 410", code)
	}
}

// TestLateAnswerExpiredVersusUnknownID: when the wait times out the server
// sends notifications/cancelled on the same stream and the call ends; a late
// answer gets -32001 "request expired", an ID never sent gets -32003.
func TestLateAnswerExpiredVersusUnknownID(t *testing.T) {
	_, ts := legacyServer(t, Options{KeepAlive: -1, RequestTimeout: 50 * time.Millisecond}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	ch := events(t, c.post(callBody(1, "confirm", `{}`)))
	el := next(t, ch)
	if note := next(t, ch); note.msg.Method != "notifications/cancelled" {
		t.Fatalf("got %s, want notifications/cancelled", note.data)
	}
	if got := resultText(t, next(t, ch).msg); !strings.Contains(got, "expired") {
		t.Fatalf("result %q", got)
	}
	late := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":`+string(el.msg.ID)+`,"result":{"action":"accept","content":{"confirm":true}}}`))
	if late.Error == nil || late.Error.Code != CodeRequestExpired || string(late.ID) != string(el.msg.ID) {
		t.Fatalf("late answer: %+v", late)
	}
	unknown := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":987654,"result":{}}`))
	if unknown.Error == nil || unknown.Error.Code != CodeUnknownResponseID {
		t.Fatalf("unknown ID: %+v", unknown)
	}
}

// TestPingAndElicitationNeverShareAnID: keep-alive pings and an elicitation
// that falls back to the GET stream (the POST accepted no SSE) share one
// stream and one ID space, and never an ID.
func TestPingAndElicitationNeverShareAnID(t *testing.T) {
	_, ts := legacyServer(t, Options{KeepAlive: 5 * time.Millisecond}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	get := events(t, c.do(c.request(http.MethodGet, "")))
	done := make(chan *http.Response, 1)
	go func() {
		resp, _ := c.hc.Do(c.request(http.MethodPost, callBody(1, "confirm", `{}`), func(r *http.Request) { r.Header.Set("Accept", "application/json") }))
		done <- resp
	}()
	ids := map[string]string{}
	pings := 0
	answered := false
	for pings < 5 || !answered {
		ev := next(t, get)
		id := string(ev.msg.ID)
		if prev, dup := ids[id]; dup {
			t.Fatalf("ID %s used by %s and %s", id, prev, ev.msg.Method)
		}
		ids[id] = ev.msg.Method
		switch ev.msg.Method {
		case "ping":
			pings++
			if pings%2 == 0 {
				c.answer(ev.msg.ID, `{}`)
			}
		case "elicitation/create":
			c.answer(ev.msg.ID, `{"action":"accept","content":{"confirm":true}}`)
			answered = true
		}
	}
	resp := <-done
	defer resp.Body.Close()
	if got := resultText(t, jsonBody(t, resp)); got != "confirm=true note=none" {
		t.Fatalf("result %q", got)
	}
}

// TestPOSTOnlyClientKeepsSession: a client that never opens a GET stream
// keeps its session through 10 keep-alive intervals.
func TestPOSTOnlyClientKeepsSession(t *testing.T) {
	s, ts := legacyServer(t, Options{KeepAlive: 2 * time.Millisecond, SessionIdleTimeout: time.Minute})
	ticked := make(chan struct{}, 100)
	s.sessions.onTick = func() {
		select {
		case ticked <- struct{}{}:
		default:
		}
	}
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	for range 10 {
		<-ticked
	}
	m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if m.Error != nil || string(m.Result) != "{}" {
		t.Fatalf("after 10 keep-alive intervals: %+v", m)
	}
}

// TestUnansweredPingsKeepSession: a client that holds a GET stream but never
// answers the keep-alive pings keeps its session too; a late answer to an
// old ping is "request expired".
func TestUnansweredPingsKeepSession(t *testing.T) {
	s, ts := legacyServer(t, Options{KeepAlive: 2 * time.Millisecond, SessionIdleTimeout: time.Minute})
	ticked := make(chan struct{}, 100)
	s.sessions.onTick = func() {
		select {
		case ticked <- struct{}{}:
		default:
		}
	}
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	get := events(t, c.do(c.request(http.MethodGet, "")))
	first := next(t, get)
	if first.msg.Method != "ping" {
		t.Fatalf("got %s", first.data)
	}
	for range 10 {
		<-ticked
	}
	if m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); m.Error != nil {
		t.Fatalf("after 10 unanswered pings: %+v", m)
	}
	if code := c.answer(first.msg.ID, `{}`); code != http.StatusGone {
		t.Fatalf("late ping answer: %d, want 410", code)
	}
}
