package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	goruntime "runtime"
	"sync"
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
// running one finish, answers to its elicitation included.
func TestShutdownDrainsInFlightCalls(t *testing.T) {
	s, ts := legacyServer(t, Options{KeepAlive: -1}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	ch := events(t, c.post(callBody(1, "confirm", `{}`)))
	el := next(t, ch)
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(context.Background()) }()
	for s.closing.Load() == false {
		goruntime.Gosched()
	}
	if resp := c.post(callBody(2, "confirm", `{}`)); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("new call during shutdown: %d", resp.StatusCode)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v before the call finished", err)
	default:
	}
	c.answer(el.msg.ID, `{"action":"accept","content":{"confirm":true}}`)
	if got := resultText(t, next(t, ch).msg); got != "confirm=true note=none" {
		t.Fatal(got)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestShutdownDeadlineCancelsCalls: when ctx ends first, running calls are
// cancelled and Shutdown reports it.
func TestShutdownDeadlineCancelsCalls(t *testing.T) {
	s, ts := legacyServer(t, Options{KeepAlive: -1}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	ch := events(t, c.post(callBody(1, "confirm", `{}`)))
	next(t, ch)
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
