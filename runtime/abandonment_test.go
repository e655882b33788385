package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor polls cond until it holds, failing after limit. It stands for no
// synchronisation: the conditions are what the runtime's janitor and timers
// change, on their own clocks.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func sessionCount(s *Server) int {
	return s.sessions.count()
}

// TestAbandonedCallsEndWithTheirSession: a client that starts an eliciting
// call and goes away (its connection closed, no more requests) loses its
// session after SessionIdleTimeout although the call still waits for an
// answer; the call ends, and nothing of it is left running.
func TestAbandonedCallsEndWithTheirSession(t *testing.T) {
	ended := make(chan error, 8)
	tool := toolOf("confirm", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		err := call.Elicit(ctx, confirmForm, "", nil)
		ended <- err
		return nil, err
	}, confirmForm)
	s, ts := legacyServer(t, Options{KeepAlive: 5 * time.Millisecond, SessionIdleTimeout: 100 * time.Millisecond}, tool)
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	for i := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		resp := c.post(callBody(10+i, "confirm", `{}`), func(r *http.Request) { *r = *r.WithContext(ctx) })
		if ev := next(t, events(t, resp)); ev.msg.Method != "elicitation/create" {
			t.Fatalf("got %+v", ev)
		}
		cancel() // the client goes away without answering
	}
	for range 3 {
		select {
		case err := <-ended:
			if !errors.Is(err, ErrExpired) {
				t.Errorf("Elicit returned %v, want ErrExpired", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("an abandoned call is still waiting after its session's idle timeout")
		}
	}
	waitFor(t, 5*time.Second, "the session expires", func() bool { return sessionCount(s) == 0 })
	if r := c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.StatusCode != http.StatusNotFound {
		t.Fatalf("after expiry: HTTP %d", r.StatusCode)
	}
}

// TestConnectedSessionIsNotIdle: a client whose call's stream is still open
// keeps its session past the idle timeout, though it sends nothing.
func TestConnectedSessionIsNotIdle(t *testing.T) {
	var ticks atomic.Int32
	s, ts := legacyServer(t, Options{KeepAlive: 5 * time.Millisecond, SessionIdleTimeout: 30 * time.Millisecond}, confirmTool())
	s.sessions.onTick = func() { ticks.Add(1) }
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	resp := c.post(callBody(2, "confirm", `{}`))
	ch := events(t, resp)
	ev := next(t, ch)
	waitFor(t, 5*time.Second, "ten janitor rounds", func() bool { return ticks.Load() >= 10 })
	if sessionCount(s) != 1 {
		t.Fatal("a session whose client still reads its call's stream expired")
	}
	if got := c.answer(ev.msg.ID, `{"action":"accept","content":{"confirm":true}}`); got != http.StatusAccepted {
		t.Fatalf("answer: HTTP %d", got)
	}
	if got := resultText(t, next(t, ch).msg); got != "confirm=true note=none" {
		t.Fatalf("result %q", got)
	}
}

func TestRequestTimeoutHasABoundByDefault(t *testing.T) {
	if d := (Options{}).withDefaults().RequestTimeout; d != 10*time.Minute {
		t.Fatalf("default RequestTimeout %v, want 10m", d)
	}
	if d := (Options{RequestTimeout: -1}).withDefaults().RequestTimeout; d >= 0 {
		t.Fatalf("a negative RequestTimeout must stay unbounded, got %v", d)
	}
}

// TestDetachedStreamDoesNotPinItsHandler: a tool streams progress to a
// client that stops reading and then disconnects. Once the stream has been
// detached for ResumeWindow without a resume, the handler's sends fail
// instead of waiting for room forever, and the buffered frames are let go.
func TestDetachedStreamDoesNotPinItsHandler(t *testing.T) {
	returned := make(chan error, 1)
	big := strings.Repeat("x", 64<<10)
	tool := toolOf("flood", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		for i := 0; ; i++ {
			if err := call.Progress(ctx, float64(i), 0, big); err != nil {
				returned <- err
				return nil, err
			}
		}
	})
	opts := Options{StreamBuffer: 4, ResumeWindow: 100 * time.Millisecond, FallbackWait: 10 * time.Millisecond, KeepAlive: -1}
	_, ts := legacyServer(t, opts, tool)
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"flood","_meta":{"progressToken":"p"}}}`
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Session-Id: %s\r\nMCP-Protocol-Version: %s\r\nContent-Length: %d\r\n\r\n%s",
		ts.Listener.Addr(), c.session, c.version, len(body), body)
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil || !strings.Contains(line, "200") {
		t.Fatalf("status line %q: %v", line, err)
	}
	// Read a little, then stop reading: the server's writes back up, then
	// the stream's buffer fills and the handler waits for room.
	if _, err := io.ReadFull(br, make([]byte, 128<<10)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-returned:
		t.Fatalf("the handler returned while the client was connected: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	conn.Close() // the client disconnects for good
	select {
	case err := <-returned:
		if err == nil {
			t.Fatal("Progress succeeded on an abandoned stream")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler is still waiting for room on a stream nobody can drain")
	}
}

// TestSessionEndAnswersRunningCalls: a call whose session is deleted while
// it runs gets a JSON-RPC error response, not an empty 202.
func TestSessionEndAnswersRunningCalls(t *testing.T) {
	started := make(chan struct{})
	tool := toolOf("slow", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	_, ts := legacyServer(t, Options{}, tool)
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	done := make(chan *http.Response, 1)
	go func() { done <- c.post(callBody(3, "slow", `{}`)) }()
	<-started
	del := c.do(c.request(http.MethodDelete, ""))
	del.Body.Close()
	resp := <-done
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the call's POST got HTTP %d", resp.StatusCode)
	}
	m := jsonBody(t, resp)
	if m.Error == nil || !strings.Contains(m.Error.Message, "session") {
		t.Fatalf("response %+v, want an error saying the session ended", m)
	}
}

// TestShutdownAnswersEveryAcceptedRequest: calls still running when the
// grace period ends get an error response in both eras, on a JSON response
// and on an event stream alike; requests that arrive while draining are
// refused with 503.
func TestShutdownAnswersEveryAcceptedRequest(t *testing.T) {
	noLeaks(t)
	started := make(chan string, 8)
	slow := toolOf("slow", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		started <- "slow"
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ask := toolOf("ask", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		return nil, call.Elicit(ctx, confirmForm, "", nil)
	}, confirmForm)
	s := NewServer(Options{KeepAlive: -1, ShutdownTimeout: 200 * time.Millisecond})
	for _, tool := range []Tool{slow, ask} {
		if err := s.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()

	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	lc := &client{t: t, url: url, hc: hc}
	lc.initialize(Version20251125, `{"elicitation":{}}`)
	mc := &modernClient{t: t, url: url, hc: hc, caps: map[string]any{}}

	legacyJSON := make(chan *http.Response, 1)
	go func() { legacyJSON <- lc.post(callBody(4, "slow", `{}`)) }()
	<-started
	modern := make(chan *modernResp, 1)
	go func() { modern <- mc.call("tools/call", map[string]any{"name": "slow"}) }()
	<-started
	sse := events(t, lc.post(callBody(5, "ask", `{}`)))
	el := next(t, sse)
	if el.msg.Method != "elicitation/create" {
		t.Fatalf("got %+v", el)
	}

	stop() // SIGTERM: drain for 200ms, then end what still runs
	waitFor(t, 5*time.Second, "draining starts", func() bool { return s.closing.Load() })
	if r := mc.call("tools/call", map[string]any{"name": "slow"}); r.status != http.StatusServiceUnavailable {
		t.Errorf("a 2026-07-28 call during the grace period: HTTP %d, want 503", r.status)
	}

	resp := <-legacyJSON
	if m := jsonBody(t, resp); m.Error == nil || !strings.Contains(m.Error.Message, "shutting down") {
		t.Errorf("legacy JSON call: %+v, want the shutting-down error", m)
	}
	if r := <-modern; r.errCode(t) != CodeInternalError {
		t.Errorf("2026-07-28 call: HTTP %d %s, want the shutting-down error", r.status, r.body)
	}
	// The question ends at once, told to the client, and the call answers.
	if ev := next(t, sse); ev.msg.Method != "notifications/cancelled" || !strings.Contains(string(ev.msg.Params), string(el.msg.ID)) {
		t.Errorf("eliciting call's stream: %+v, want notifications/cancelled for request %s", ev.msg, el.msg.ID)
	}
	// Its handler returned Elicit's error: a tool error naming the shutdown.
	ev := next(t, sse)
	if string(ev.msg.ID) != "5" || !strings.Contains(string(ev.msg.Result), `"isError":true`) || !strings.Contains(string(ev.msg.Result), "shutting down") {
		t.Errorf("eliciting call's stream: %s %s, want its error result", ev.msg.ID, ev.msg.Result)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve after a shutdown that cut calls short: %v, want nil", err)
	}
}
