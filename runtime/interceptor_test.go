package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// eventLog collects what interceptors saw, safe for concurrent handlers.
type eventLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *eventLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *eventLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}

type ctxKey struct{}

// TestInterceptorOrderAndRefusal: in a legacy session over HTTP, in
// 2026-07-28 over HTTP and in both eras over stdio, interceptors run
// outermost first, see the request's method, tool, transport and era, can
// decorate the handler's context, and can refuse a request with a JSON-RPC
// error before its handler runs.
func TestInterceptorOrderAndRefusal(t *testing.T) {
	noLeaks(t)
	var log eventLog
	var handled eventLog
	named := func(name string) Interceptor {
		return Interceptor{Incoming: func(next IncomingFunc) IncomingFunc {
			return func(ctx context.Context, req *IncomingRequest) *Response {
				if req.Method != "tools/call" {
					return next(ctx, req)
				}
				log.add("%s> %s %s", name, req.Method, req.Name)
				if name == "outer" {
					ctx = context.WithValue(ctx, ctxKey{}, "decorated by outer")
				}
				if name == "inner" && req.Name == "forbidden" {
					log.add("inner refuses")
					return Refuse(&Error{Code: -32010, Message: "not for you"})
				}
				r := next(ctx, req)
				log.add("<%s error=%v isError=%v", name, r.Error != nil, r.IsError)
				return r
			}
		}}
	}
	var seen eventLog
	info := Interceptor{Incoming: func(next IncomingFunc) IncomingFunc {
		return func(ctx context.Context, req *IncomingRequest) *Response {
			if req.Method == "tools/call" {
				seen.add("transport=%s stateless=%v session=%v version=%s id=%s params=%v http=%v",
					req.Transport, req.Stateless(), req.SessionID != "", req.ProtocolVersion, req.ID,
					strings.Contains(string(req.Params), `"name"`), req.HTTP != nil)
			}
			return next(ctx, req)
		}
	}}
	tools := []Tool{
		toolOf("ctx", `{"type":"object"}`, func(ctx context.Context, _ *Call, _ json.RawMessage) (*ToolResult, error) {
			handled.add("ctx")
			return &ToolResult{Content: []Content{Text(fmt.Sprint(ctx.Value(ctxKey{})))}}, nil
		}),
		toolOf("forbidden", `{"type":"object"}`, func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
			handled.add("forbidden ran")
			return &ToolResult{}, nil
		}),
	}
	opts := Options{Interceptors: []Interceptor{named("outer"), named("inner"), info}}
	want := map[string]string{
		"legacy HTTP":      "transport=http stateless=false session=true version=2025-11-25 id=7 params=true http=true",
		"2026-07-28 HTTP":  "transport=http stateless=true session=false version=2026-07-28 id=7 params=true http=true",
		"legacy stdio":     "transport=stdio stateless=false session=true version=2025-11-25 id=7 params=true http=false",
		"2026-07-28 stdio": "transport=stdio stateless=true session=false version=2026-07-28 id=7 params=true http=false",
	}
	for _, tr := range parityTransportsWith(t, opts, tools) {
		t.Run(tr.name, func(t *testing.T) {
			m := tr.send(t, 7, "tools/call", map[string]any{"name": "ctx"})
			if got := resultText(t, m); got != "decorated by outer" {
				t.Errorf("handler context value = %q", got)
			}
			if got := log.take(); !slices.Equal(got, []string{
				"outer> tools/call ctx", "inner> tools/call ctx", "<inner error=false isError=false", "<outer error=false isError=false",
			}) {
				t.Errorf("order: %q", got)
			}
			if got := seen.take(); len(got) != 1 || got[0] != want[tr.name] {
				t.Errorf("request info: %q, want %q", got, want[tr.name])
			}

			m = tr.send(t, 8, "tools/call", map[string]any{"name": "forbidden"})
			if m.Error == nil || m.Error.Code != -32010 || m.Error.Message != "not for you" || string(m.ID) != "8" {
				t.Errorf("refusal: %+v", m)
			}
			if got := log.take(); !slices.Equal(got, []string{
				"outer> tools/call forbidden", "inner> tools/call forbidden", "inner refuses", "<outer error=true isError=false",
			}) {
				t.Errorf("refusal order: %q", got)
			}
			if got := handled.take(); !slices.Equal(got, []string{"ctx"}) {
				t.Errorf("handlers that ran: %q", got)
			}
			seen.take()
		})
	}
}

// twiceTool elicits confirmForm twice and reports both answers; a declined
// or cancelled answer is the tool's error.
func twiceTool() Tool {
	return toolOf("twice", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		var a, b confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "", &a); err != nil {
			return nil, err
		}
		if err := call.Elicit(ctx, confirmForm, "again?", &b); err != nil {
			return nil, err
		}
		return &ToolResult{Content: []Content{Text(fmt.Sprintf("%v %v", a.Confirm, b.Confirm))}}, nil
	}, confirmForm)
}

// outgoingLog records every server-to-client request and its outcome.
func outgoingLog(log *eventLog) Interceptor {
	return Interceptor{Outgoing: func(next OutgoingFunc) OutgoingFunc {
		return func(ctx context.Context, req *OutgoingRequest) (json.RawMessage, error) {
			res, err := next(ctx, req)
			w := ""
			if req.Waited > 0 {
				w = " waited=" + req.Waited.String()
			}
			log.add("%s %s %s parent=%s%s", req.Method, req.Key, AnswerOutcomeOf(req.Method, res, err), req.Parent.Name, w)
			return res, err
		}
	}}
}

// TestInterceptorOutgoingLegacyStdio: a legacy call's questions pass the
// outgoing chain with their outcome: accepted, declined, expired.
func TestInterceptorOutgoingLegacyStdio(t *testing.T) {
	noLeaks(t)
	var log eventLog
	s := NewServer(Options{Interceptors: []Interceptor{outgoingLog(&log)}, RequestTimeout: 50 * time.Millisecond})
	if err := s.AddTool(twiceTool()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := startStdio(t, s)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	p.send(callBody(2, "twice", `{}`))
	el := p.recv()
	p.send(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,"result":{"action":"accept","content":{"confirm":true}}}`)
	el = p.recv()
	p.send(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,"result":{"action":"decline"}}`)
	if m := p.recv(); !strings.Contains(resultText(t, m), "declined") {
		t.Fatalf("declined call: %+v", m)
	}
	if got := log.take(); !slices.Equal(got, []string{
		"elicitation/create confirm answered parent=twice", "elicitation/create confirm_2 declined parent=twice",
	}) {
		t.Errorf("outgoing: %q", got)
	}

	p.send(callBody(3, "twice", `{}`))
	p.recv() // the question, left unanswered until RequestTimeout
	if m := p.recv(); m.Method != "notifications/cancelled" {
		t.Fatalf("expired question: %+v", m)
	}
	if m := p.recv(); string(m.ID) != "3" {
		t.Fatalf("expired call: %+v", m)
	}
	if got := log.take(); !slices.Equal(got, []string{"elicitation/create confirm expired parent=twice"}) {
		t.Errorf("outgoing: %q", got)
	}
}

// TestInterceptorOutgoingModern: in 2026-07-28 an unanswered question is
// reported input_required when its round ends; the retry carrying the
// answer reports the answer and how long the user took since that round
// (an answer of an earlier round, replayed, took nothing).
func TestInterceptorOutgoingModern(t *testing.T) {
	leakCheck(t)
	var log eventLog
	s := NewServer(Options{Interceptors: []Interceptor{outgoingLog(&log)}})
	var clock sync.Mutex
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	s.http.modern.rounds.sealer.Now = func() time.Time { clock.Lock(); defer clock.Unlock(); return now }
	think := func(d time.Duration) { clock.Lock(); now = now.Add(d); clock.Unlock() }
	if err := s.AddTool(twiceTool()); err != nil {
		t.Fatal(err)
	}
	c := modernServer(t, s)
	c.caps = map[string]any{"elicitation": map[string]any{}}
	_, state := inputRequired(t, c.call("tools/call", map[string]any{"name": "twice"}))
	if got := log.take(); !slices.Equal(got, []string{"elicitation/create confirm input_required parent=twice"}) {
		t.Errorf("round 1: %q", got)
	}
	think(90 * time.Second)
	_, state = inputRequired(t, c.call("tools/call", map[string]any{"name": "twice", "requestState": state,
		"inputResponses": map[string]any{"confirm": accept(map[string]any{"confirm": true})}}))
	if got := log.take(); !slices.Equal(got, []string{
		"elicitation/create confirm answered parent=twice waited=1m30s", "elicitation/create confirm_2 input_required parent=twice",
	}) {
		t.Errorf("round 2: %q", got)
	}
	think(5 * time.Second)
	r := c.call("tools/call", map[string]any{"name": "twice", "requestState": state,
		"inputResponses": map[string]any{"confirm_2": map[string]any{"action": "decline"}}})
	if res := r.result(t); res["isError"] != true {
		t.Errorf("round 3: %v", res)
	}
	if got := log.take(); !slices.Equal(got, []string{
		"elicitation/create confirm answered parent=twice", "elicitation/create confirm_2 declined parent=twice waited=5s",
	}) {
		t.Errorf("round 3: %q", got)
	}
}

// TestInterceptorEvents: a legacy session reports its opening and closing,
// over HTTP (initialize, DELETE) and stdio (initialize, EOF).
func TestInterceptorEvents(t *testing.T) {
	var log eventLog
	observe := Interceptor{Observe: func(_ context.Context, e Event) {
		if e.Kind == SessionOpened || e.Kind == SessionClosed {
			log.add("%d %s %s %v", e.Kind, e.Transport, e.ProtocolVersion, e.SessionID != "")
		}
	}}
	_, ts := legacyServer(t, Options{Interceptors: []Interceptor{observe}})
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	resp := c.do(c.request("DELETE", ""))
	resp.Body.Close()
	if got := log.take(); !slices.Equal(got, []string{"1 http 2025-11-25 true", "2 http 2025-11-25 true"}) {
		t.Errorf("HTTP session events: %q", got)
	}

	s := NewServer(Options{Interceptors: []Interceptor{observe}})
	t.Cleanup(func() { s.Close() })
	p := startStdio(t, s)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	p.recv()
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return after EOF")
	}
	p.done <- nil // for the cleanup
	if got := log.take(); !slices.Equal(got, []string{"1 stdio 2025-06-18 true", "2 stdio 2025-06-18 true"}) {
		t.Errorf("stdio session events: %q", got)
	}
}

// TestInterceptorOutgoingMeta: members an Outgoing interceptor puts in Meta
// reach a legacy client in params._meta, and the params stay as they were.
func TestInterceptorOutgoingMeta(t *testing.T) {
	noLeaks(t)
	tag := Interceptor{Outgoing: func(next OutgoingFunc) OutgoingFunc {
		return func(ctx context.Context, req *OutgoingRequest) (json.RawMessage, error) {
			req.Meta = map[string]string{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
			return next(ctx, req)
		}
	}}
	s := NewServer(Options{Interceptors: []Interceptor{tag}})
	if err := s.AddTool(confirmTool()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := startStdio(t, s)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(callBody(2, "confirm", `{}`))
	el := p.recv()
	var params struct {
		Mode string            `json:"mode"`
		Meta map[string]string `json:"_meta"`
	}
	if err := json.Unmarshal(el.Params, &params); err != nil || params.Mode != "form" ||
		params.Meta["traceparent"] != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Fatalf("elicitation params %s (%v)", el.Params, err)
	}
	p.send(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,"result":{"action":"accept","content":{"confirm":true}}}`)
	if got := resultText(t, p.recv()); got != "confirm=true note=none" {
		t.Fatalf("result %q", got)
	}
	if b, err := json.Marshal(paramsWithMeta{struct{}{}, map[string]string{"a": "b"}}); err != nil || string(b) != `{"_meta":{"a":"b"}}` {
		t.Errorf("empty params with meta: %s %v", b, err)
	}
}
