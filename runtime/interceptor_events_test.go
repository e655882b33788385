package runtime

import (
	"context"
	"io"
	goruntime "runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// streamLog records stream events as "opened sse http" and the like.
func streamLog(log *eventLog) Interceptor {
	return Interceptor{Observe: func(_ context.Context, e Event) {
		switch e.Kind {
		case StreamOpened:
			log.add("opened %s %s session=%v", e.Stream, e.Transport, e.SessionID != "")
		case StreamClosed:
			log.add("closed %s %s session=%v", e.Stream, e.Transport, e.SessionID != "")
		}
	}}
}

// TestInterceptorStreamEvents: a legacy POST that becomes an event stream
// (its elicitation) reports the stream while a connection writes it, and a
// 2026-07-28 subscriptions/listen stream reports itself while it is open.
func TestInterceptorStreamEvents(t *testing.T) {
	var log eventLog
	_, ts := legacyServer(t, Options{KeepAlive: -1, Interceptors: []Interceptor{streamLog(&log)}}, confirmTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	resp := c.post(callBody(1, "confirm", `{}`))
	ch := events(t, resp)
	el := next(t, ch)
	if got := log.take(); !slices.Equal(got, []string{"opened sse http session=true"}) {
		t.Errorf("while the elicitation is open: %q", got)
	}
	c.answer(el.msg.ID, `{"action":"accept","content":{"confirm":true}}`)
	next(t, ch)
	for range ch { // the body's end: the handler has returned
	}
	resp.Body.Close()
	if got := log.take(); !slices.Equal(got, []string{"closed sse http session=true"}) {
		t.Errorf("after the result: %q", got)
	}

	leakCheck(t)
	s := NewServer(Options{Interceptors: []Interceptor{streamLog(&log)}})
	mc := modernServer(t, s)
	_, body := mc.send("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
	defer body.Close()
	r := newSSEReader(body)
	if m := r.next(t); m["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("got %v", m)
	}
	if got := log.take(); !slices.Equal(got, []string{"opened listen http session=false"}) {
		t.Errorf("listen stream open: %q", got)
	}
	s.d.listeners.shutdown()
	r.next(t) // the final result: the method has returned
	io.Copy(io.Discard, body)
	if got := log.take(); !slices.Equal(got, []string{"closed listen http session=false"}) {
		t.Errorf("listen stream closed: %q", got)
	}
}

// TestBackpressureWaitReportsWaits: a push that finds the buffer full
// reports how long it waited once room came; one that finds room reports
// nothing.
func TestBackpressureWaitReportsWaits(t *testing.T) {
	var mu sync.Mutex
	var waits []time.Duration
	b := newBackpressureWait(1)
	onWait := func(d time.Duration) {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
	}
	ctx := context.Background()
	if err := b.pushObserved(ctx, frame{data: []byte("1")}, onWait); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- b.pushObserved(ctx, frame{data: []byte("2")}, onWait) }()
	for deadline := time.Now().Add(5 * time.Second); ; goruntime.Gosched() {
		b.mu.Lock()
		waiting := b.room != nil
		b.mu.Unlock()
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second push never waited")
		}
	}
	if _, ok, _ := b.pop(); !ok {
		t.Fatal("nothing to pop")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(waits) != 1 || waits[0] <= 0 {
		t.Errorf("waits = %v, want one positive wait", waits)
	}
}
