package events

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkFanOutToStreams emits events to 1,000 push streams held by one
// process (each read by its own goroutine, as the transport would) and
// reports events/s (each reaching every stream) and deliveries/s: with no
// Match hook, and with the test's Match (which decodes the subscription's
// arguments and the payload as JSON for every delivery).
func BenchmarkFanOutToStreams(b *testing.B) {
	plain := noteAdded()
	plain.Hooks.Match = nil
	b.Run("match=none", func(b *testing.B) { fanOut(b, plain) })
	b.Run("match=prefix", func(b *testing.B) { fanOut(b, noteAdded()) })
}

func fanOut(b *testing.B, typ EventType) {
	const streams = 1000
	e := newEngine(b, Options{MaxStreams: streams * 2, CallerShare: 1, StreamBuffer: 1024}, typ)
	var wg sync.WaitGroup
	var got atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range streams {
		s, err := e.OpenStream(ctx, nil, json.RawMessage(fmt.Sprint(i)), StreamParams{Name: "note_added"})
		if err != nil {
			b.Fatal(err)
		}
		s.Next(ctx) // the confirmation
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.Close()
			for {
				n, err := s.Next(ctx)
				if err != nil {
					return
				}
				if n.Method == NotificationEvent {
					got.Add(1)
				}
			}
		}()
	}
	ev := note(1, "fan-out")
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := e.Emit(ctx, "note_added", Broadcast(), ev); err != nil {
			b.Fatal(err)
		}
	}
	want := int64(b.N) * streams
	for got.Load() < want {
		time.Sleep(time.Millisecond)
	}
	el := time.Since(start).Seconds()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/el, "events/s")
	b.ReportMetric(float64(want)/el, "deliveries/s")
	cancel()
	wg.Wait()
}

// BenchmarkWebhookDeliveries delivers events to 16 webhook subscriptions
// on one loopback receiver and reports deliveries/s (signed POSTs
// answered 204).
func BenchmarkWebhookDeliveries(b *testing.B) {
	const subs = 16
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	o := loopback()
	o.Webhook.AllowedCallbacks = []string{srv.URL}
	o.Webhook.MaxPending = 1 << 20
	e := newEngine(b, o, noteAdded())
	for i := range subs {
		subscribe(b, e, alice, srv.URL+fmt.Sprint("/", i), newSecret(32), `{}`)
	}
	ev := note(1, "webhook")
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := e.Emit(context.Background(), "note_added", Broadcast(), ev); err != nil {
			b.Fatal(err)
		}
	}
	want := int64(b.N) * subs
	for got.Load() < want {
		time.Sleep(time.Millisecond)
	}
	b.ReportMetric(float64(want)/time.Since(start).Seconds(), "deliveries/s")
}

// BenchmarkIdleSubscriptionMemory reports the heap one idle subscription
// holds in the in-process store: a webhook subscription, and a push stream.
func BenchmarkIdleSubscriptionMemory(b *testing.B) {
	const n = 2000
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// Measured once, whatever b.N: it is a size, not a speed.
	{
		o := loopback()
		o.Webhook.AllowedCallbacks = []string{"http://127.0.0.1:9/"}
		o.MaxSubscriptions, o.MaxStreams, o.CallerShare = n*2, n*2, 1
		e := newEngine(b, o, noteAdded())
		before := heap()
		for i := range n {
			subscribe(b, e, alice, fmt.Sprintf("http://127.0.0.1:9/hooks/%d", i), newSecret(32), `{"prefix":"work"}`)
		}
		mid := heap()
		var ss []*Stream
		for i := range n {
			s, err := e.OpenStream(context.Background(), alice, json.RawMessage(fmt.Sprint(i)), StreamParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"work"}`)})
			if err != nil {
				b.Fatal(err)
			}
			ss = append(ss, s)
		}
		after := heap()
		b.ReportMetric(float64(mid-before)/n, "B/webhook-sub")
		b.ReportMetric(float64(after-mid)/n, "B/stream")
		for _, s := range ss {
			s.Close()
		}
		e.Close()
	}
}
