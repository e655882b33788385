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
	"testing"
	"time"
)

// servedOnLoopback runs s.Serve on a loopback listener until the test ends
// and returns the listener's address.
func servedOnLoopback(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("Serve did not return after its context ended")
		}
	})
	return ln.Addr().String()
}

// closedWithin reads from conn until the server closes it and reports
// whether that happened before d. Anything the server writes is returned.
func closedWithin(t *testing.T, conn net.Conn, d time.Duration) (string, bool) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return string(b), false
	}
	return string(b), true
}

// TestSlowBodyIsCut: a POST body trickled one byte at a time is cut after
// BodyReadTimeout with 408 and the connection is closed, however steadily
// the bytes come.
func TestSlowBodyIsCut(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{BodyReadTimeout: 300 * time.Millisecond})
	addr := servedOnLoopback(t, s)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", addr, len(body)+1000)
	// Trickle the body, one byte per tick, until the server gives up.
	stop := make(chan struct{})
	trickled := make(chan struct{})
	go func() {
		defer close(trickled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte{body[i%len(body)]}); err != nil {
					return
				}
			}
		}
	}()
	start := time.Now()
	out, closed := closedWithin(t, conn, 5*time.Second)
	close(stop)
	<-trickled
	if !closed {
		t.Fatalf("the connection was still open %v after a trickled body began (BodyReadTimeout 300ms)", time.Since(start))
	}
	if !strings.HasPrefix(out, "HTTP/1.1 408") {
		t.Fatalf("response %q, want 408", out)
	}
}

// TestIdleConnectionIsClosed: a keep-alive connection with no request is
// closed after IdleTimeout.
func TestIdleConnectionIsClosed(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{IdleTimeout: 300 * time.Millisecond})
	addr := servedOnLoopback(t, s)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = br.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("an idle keep-alive connection was still open after 5s (IdleTimeout 300ms)")
	}
	if err != io.EOF {
		t.Fatalf("read after idle: %v, want EOF", err)
	}
}

// TestLongStreamOutlivesReadAndIdleTimeouts: a POST whose response is an
// event stream stays open far longer than BodyReadTimeout and IdleTimeout,
// and a GET stream too: the bounds cover the body and idle connections only.
func TestLongStreamOutlivesReadAndIdleTimeouts(t *testing.T) {
	noLeaks(t)
	const bound = 100 * time.Millisecond
	s := NewServer(Options{BodyReadTimeout: bound, IdleTimeout: bound, ReadHeaderTimeout: bound, KeepAlive: 20 * time.Millisecond})
	if err := s.AddTool(confirmTool()); err != nil {
		t.Fatal(err)
	}
	addr := servedOnLoopback(t, s)
	c := &client{t: t, url: "http://" + addr + "/mcp", hc: &http.Client{Transport: &http.Transport{}}}
	t.Cleanup(c.hc.CloseIdleConnections)
	c.initialize(Version20251125, `{"elicitation":{}}`)

	get := c.do(c.request(http.MethodGet, ""))
	if get.StatusCode != 200 {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	call := c.post(callBody(1, "confirm", `{}`))
	evs := events(t, call)
	var elicit rpc
	for elicit.Method == "" {
		e := next(t, evs)
		if e.data != "" {
			elicit = e.msg
		}
	}
	// Keep-alive comments are not events; wait for the stream to outlive the
	// bounds by reading keep-alive pings on the GET stream, which the
	// janitor sends every 20ms.
	gevs := events(t, get)
	deadline := time.Now().Add(10 * bound)
	for time.Now().Before(deadline) {
		e := next(t, gevs)
		if e.data == "" {
			continue
		}
		if m := e.msg; m.Method == "ping" {
			c.answer(m.ID, `{}`)
		}
	}
	if code := c.answer(elicit.ID, `{"action":"accept","content":{"confirm":true}}`); code != http.StatusAccepted {
		t.Fatalf("answer: %d", code)
	}
	for {
		e := next(t, evs)
		if e.data == "" {
			continue
		}
		if m := e.msg; string(m.ID) == "1" {
			if got := resultText(t, m); got != "confirm=true note=none" {
				t.Fatal(got)
			}
			return
		}
	}
}

// TestShutdownTimeout: once Serve's context ends, a call that does not
// finish is cut after ShutdownTimeout, and Serve returns.
func TestShutdownTimeout(t *testing.T) {
	noLeaks(t)
	started := make(chan struct{})
	stuck := toolOf("stuck", `{"type":"object"}`, func(ctx context.Context, _ *Call, _ json.RawMessage) (*ToolResult, error) {
		close(started)
		<-ctx.Done() // ends only when the session does
		return nil, ctx.Err()
	})
	s := NewServer(Options{ShutdownTimeout: 200 * time.Millisecond})
	if err := s.AddTool(stuck); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	c := &client{t: t, url: "http://" + ln.Addr().String() + "/mcp", hc: &http.Client{Transport: &http.Transport{}}}
	t.Cleanup(c.hc.CloseIdleConnections)
	c.initialize(Version20251125, `{}`)
	go func() {
		resp, err := c.hc.Do(c.request(http.MethodPost, callBody(1, "stuck", `{}`)))
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-started
	cancel()
	select {
	case err := <-served:
		if err != nil { // the cut is logged; a shutdown that kept its bounds is clean
			t.Fatalf("Serve returned %v after its shutdown, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve still waits 5s after its context ended (ShutdownTimeout 200ms)")
	}
}

// TestEveryWaitHasADefaultBound: the zero Options bound the wait for a
// client's answer (a call whose client went away would otherwise wait, and
// keep its session alive, forever); a negative value still turns it off.
func TestEveryWaitHasADefaultBound(t *testing.T) {
	if d := (Options{}).withDefaults().RequestTimeout; d != 10*time.Minute {
		t.Fatalf("default RequestTimeout %v, want 10m", d)
	}
	if d := (Options{RequestTimeout: -1}).withDefaults().RequestTimeout; d >= 0 {
		t.Fatalf("RequestTimeout -1 became %v", d)
	}
}
