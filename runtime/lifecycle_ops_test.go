package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a slog.Handler keeping records as flat maps.
type recorder struct {
	mu    *sync.Mutex
	recs  *[]map[string]string
	attrs []slog.Attr
}

func newRecorder() *recorder { return &recorder{mu: &sync.Mutex{}, recs: &[]map[string]string{}} }

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) WithAttrs(as []slog.Attr) slog.Handler {
	return &recorder{mu: r.mu, recs: r.recs, attrs: append(append([]slog.Attr{}, r.attrs...), as...)}
}
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	m := map[string]string{"msg": rec.Message}
	for _, a := range r.attrs {
		m[a.Key] = a.Value.String()
	}
	rec.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	r.mu.Lock()
	*r.recs = append(*r.recs, m)
	r.mu.Unlock()
	return nil
}

func (r *recorder) find(msg string) []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]string
	for _, m := range *r.recs {
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// TestOutboundLifecycleIsLogged: one outbound request's parent request, ID,
// route and outcome are visible in debug logs.
func TestOutboundLifecycleIsLogged(t *testing.T) {
	rec := newRecorder()
	_, ts := legacyServer(t, Options{Logger: slog.New(rec), KeepAlive: -1}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	ch := events(t, c.post(callBody(42, "confirm", `{}`)))
	el := next(t, ch)
	c.answer(el.msg.ID, `{"action":"accept","content":{"confirm":true}}`)
	next(t, ch)
	steps := rec.find("outbound request")
	if len(steps) != 2 {
		t.Fatalf("got %v", steps)
	}
	for i, want := range []string{"sent", "answered"} {
		s := steps[i]
		if s["outcome"] != want || s["id"] != string(el.msg.ID) || s["parent"] != "42" ||
			s["method"] != "elicitation/create" || s["session"] != c.session {
			t.Fatalf("step %d: %v", i, s)
		}
	}
	if steps[1]["route"] == "" || steps[1]["route"][:5] != "post:" {
		t.Fatalf("route %q", steps[1]["route"])
	}
}

// TestShutdownDrainsInFlightCalls: Shutdown refuses new calls but lets a
// running one finish.
func TestShutdownDrainsInFlightCalls(t *testing.T) {
	var running atomic.Int64
	var over atomic.Bool
	release := make(chan struct{})
	s, ts := legacyServer(t, Options{KeepAlive: -1}, slowTool(1, &running, &over, release))
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	answered := make(chan rpc, 1)
	go func() {
		resp, err := c.hc.Do(c.request(http.MethodPost, callBody(1, "slow", `{}`)))
		if err != nil {
			t.Error(err)
			answered <- rpc{}
			return
		}
		defer resp.Body.Close()
		var m rpc
		_ = json.NewDecoder(resp.Body).Decode(&m)
		answered <- m
	}()
	waitRunning(t, &running, 1)
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(context.Background()) }()
	for s.closing.Load() == false {
		goruntime.Gosched()
	}
	if resp := c.post(callBody(2, "slow", `{}`)); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("new call during shutdown: %d", resp.StatusCode)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v before the call finished", err)
	default:
	}
	release <- struct{}{}
	if got := resultText(t, <-answered); got != "slept" {
		t.Fatal(got)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestShutdownEndsPendingQuestionsAtOnce: a question nobody answers does
// not hold the shutdown: Shutdown ends it at once, the client gets
// notifications/cancelled for it, the call's Elicit returns ErrShuttingDown
// (wrapped in ErrExpired) and its answer goes out, and Shutdown returns nil
// long before its deadline. The stream's events never reuse an ID.
func TestShutdownEndsPendingQuestionsAtOnce(t *testing.T) {
	got := make(chan error, 1)
	ask := toolOf("ask", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		err := call.Elicit(ctx, confirmForm, "", nil)
		got <- err
		return nil, err
	}, confirmForm)
	s, ts := legacyServer(t, Options{KeepAlive: -1}, ask)
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	ch := events(t, c.post(callBody(1, "ask", `{}`)))
	ids := map[string]bool{} // every event ID of the stream, the priming event's too
	var el event
	for timeout := time.After(5 * time.Second); el.msg.Method != "elicitation/create"; {
		select {
		case el = <-ch:
			if ids[el.id] {
				t.Fatalf("event ID %q used twice on one stream", el.id)
			}
			ids[el.id] = el.id != ""
		case <-timeout:
			t.Fatal("no elicitation/create within 5s")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a question pending: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Shutdown took %v with a question pending", d)
	}
	if err := <-got; !errors.Is(err, ErrShuttingDown) || !errors.Is(err, ErrExpired) {
		t.Errorf("Elicit during shutdown: %v, want ErrShuttingDown and ErrExpired", err)
	}
	var sawCancel, sawAnswer bool
	for ev := range ch {
		if ev.id != "" {
			if ids[ev.id] {
				t.Errorf("event ID %q used twice on one stream", ev.id)
			}
			ids[ev.id] = true
		}
		switch {
		case ev.msg.Method == "notifications/cancelled":
			sawCancel = strings.Contains(string(ev.msg.Params), `"requestId":`+string(el.msg.ID))
		case string(ev.msg.ID) == "1":
			sawAnswer = ev.msg.Error != nil || ev.msg.Result != nil
		}
	}
	if !sawCancel || !sawAnswer {
		t.Errorf("the call's stream after Shutdown: notifications/cancelled for the question %v, the call answered %v", sawCancel, sawAnswer)
	}
}

// TestShutdownDeadlineCancelsCalls: when ctx ends first, running calls are
// cancelled and Shutdown reports it.
func TestShutdownDeadlineCancelsCalls(t *testing.T) {
	var running atomic.Int64
	var over atomic.Bool
	s, ts := legacyServer(t, Options{KeepAlive: -1}, slowTool(1, &running, &over, make(chan struct{})))
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		if resp, err := c.hc.Do(c.request(http.MethodPost, callBody(1, "slow", `{}`))); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	waitRunning(t, &running, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); err == nil {
		t.Fatal("Shutdown: nil error with a call still running")
	}
	for range ch {
	}
}

// TestNotifyToolListChanged reaches open GET streams.
func TestNotifyToolListChanged(t *testing.T) {
	s, ts := legacyServer(t, Options{KeepAlive: -1})
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	get := events(t, c.do(c.request(http.MethodGet, "")))
	<-get // priming event: the stream is attached
	s.NotifyToolListChanged()
	if ev := next(t, get); ev.msg.Method != "notifications/tools/list_changed" {
		t.Fatalf("got %s", ev.data)
	}
}

// TestIdleSessionMemory: an idle session costs under 4 KB.
func TestIdleSessionMemory(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{KeepAlive: -1})
	defer s.Close()
	const n = 2000
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	caps := json.RawMessage(`{"elicitation":{},"sampling":{}}`)
	info := json.RawMessage(`{"name":"client","version":"1.0.0"}`)
	for range n {
		if _, err := s.sessions.createSession(context.Background(), SessionState{ProtocolVersion: Version20251125, ClientCapabilities: caps, ClientInfo: info}); err != nil {
			t.Fatal(err)
		}
	}
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("%d bytes per idle session", per)
	if per > 4096 {
		t.Fatalf("%d bytes per idle session, want < 4096", per)
	}
}

func slogOf(r *recorder) *slog.Logger { return slog.New(r) }

// TestStdioStopEndsPendingQuestions: a stdio server told to stop (its
// context ends: SIGTERM in a scaffold) while a question waits ends the
// question at once (notifications/cancelled, the call's answer written) and
// ServeStdio returns nil.
func TestStdioStopEndsPendingQuestions(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{})
	if err := s.AddTool(confirmTool()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	defer inW.Close()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		err := s.ServeStdio(ctx, inR, outW)
		outW.Close()
		served <- err
	}()
	p := &stdioPeer{t: t, in: inW, out: bufio.NewReader(outR)}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(callBody(2, "confirm", `{}`))
	el := p.recv()
	if el.Method != "elicitation/create" {
		t.Fatalf("got %+v", el)
	}
	stop()
	if m := p.recv(); m.Method != "notifications/cancelled" || !strings.Contains(string(m.Params), "shutting down") {
		t.Errorf("after the stop: %+v, want notifications/cancelled saying the server is shutting down", m)
	}
	if m := p.recv(); string(m.ID) != "2" || (m.Error == nil && !strings.Contains(string(m.Result), "shutting down")) {
		t.Errorf("the call's answer: %s %s %+v", m.ID, m.Result, m.Error)
	}
	go io.Copy(io.Discard, outR)
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeStdio after its context ended: %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio still runs 5s after its context ended")
	}
}
