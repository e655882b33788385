package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/ext/events"
	"github.com/redis/go-redis/v9"
)

// countingHook counts the round trips a client makes: a command or a
// pipeline is one.
type countingHook struct{ n atomic.Int64 }

func (h *countingHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}
func (h *countingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.n.Add(1); return next(ctx, cmds) }
}

func countedEngine(b *testing.B, prefix string, o events.Options) (*events.Engine, *countingHook) {
	rdb := newClient(b, redisSpec(b))
	hook := &countingHook{}
	rdb.AddHook(hook)
	st := NewEventStore(rdb, EventOptions{Prefix: prefix})
	b.Cleanup(func() { st.Close() })
	o.Store = st
	o.CursorKey = []byte(strings.Repeat("c", 32))
	e, err := events.New(o, noteType())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e, hook
}

// BenchmarkEventsOnRedis measures, on one real Redis:
//   - emit/webhooks=0: Redis round trips the emitting replica makes per
//     event of a type with no webhook subscription;
//   - emit/webhooks=1: the same with one subscription (the delivery's own
//     claim, status and finish are counted too);
//   - fanout/replicas=1 and =3: events/s to 1,000 push streams, held by
//     one replica or spread over three, emitted by the first;
//   - webhooks/replicas=1 and =3: webhook deliveries/s, 20 subscriptions
//     to a loopback receiver, made by one replica or any of three;
//   - idle-webhook: Redis memory per idle webhook subscription.
func BenchmarkEventsOnRedis(b *testing.B) {
	prefix := func(b *testing.B) string { return "bench:" + b.Name() + ":" + randomHex(4) + ":" }
	for _, subs := range []int{0, 1} {
		b.Run(fmt.Sprintf("emit/webhooks=%d", subs), func(b *testing.B) {
			var got atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
			defer srv.Close()
			o := events.Options{Webhook: events.WebhookOptions{AllowLoopbackCallbacks: true, AllowedCallbacks: []string{srv.URL}, PollEvery: time.Hour}}
			e, hook := countedEngine(b, prefix(b), o)
			for i := range subs {
				if _, err := e.Subscribe(context.Background(), owner, events.SubscribeParams{Name: "note_added",
					Delivery: events.Delivery{URL: srv.URL + "/" + strconv.Itoa(i), Secret: "whsec_" + strings.Repeat("QUJD", 8)}}); err != nil {
					b.Fatal(err)
				}
			}
			time.Sleep(50 * time.Millisecond)
			ev := noteEvent(1, "x")
			b.ResetTimer()
			start := hook.n.Load()
			for range b.N {
				if _, err := e.Emit(context.Background(), "note_added", events.Broadcast(), ev); err != nil {
					b.Fatal(err)
				}
			}
			for got.Load() < int64(b.N*subs) {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond) // the last finishes
			b.ReportMetric(float64(hook.n.Load()-start)/float64(b.N), "roundtrips/event")
		})
	}
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("fanout/replicas=%d", n), func(b *testing.B) {
			const streams = 1000
			p := prefix(b)
			var es []*events.Engine
			var hooks []*countingHook
			for range n {
				e, h := countedEngine(b, p, events.Options{MaxStreams: streams, CallerShare: 1, StreamBuffer: 1024})
				es, hooks = append(es, e), append(hooks, h)
			}
			total := func() (n int64) {
				for _, h := range hooks {
					n += h.n.Load()
				}
				return n
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got atomic.Int64
			var wg sync.WaitGroup
			for i := range streams {
				s, err := es[i%n].OpenStream(ctx, nil, json.RawMessage(strconv.Itoa(i)), events.StreamParams{Name: "note_added"})
				if err != nil {
					b.Fatal(err)
				}
				s.Next(ctx)
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer s.Close()
					for {
						m, err := s.Next(ctx)
						if err != nil {
							return
						}
						if m.Method == events.NotificationEvent {
							got.Add(1)
						}
					}
				}()
			}
			ev := noteEvent(1, "x")
			b.ResetTimer()
			start, rt := time.Now(), total()
			for range b.N {
				if _, err := es[0].Emit(ctx, "note_added", events.Broadcast(), ev); err != nil {
					b.Fatal(err)
				}
			}
			emitted := time.Since(start)
			for got.Load() < int64(b.N*streams) {
				time.Sleep(time.Millisecond)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
			b.ReportMetric(float64(emitted.Microseconds())/float64(b.N), "µs/emit")
			b.ReportMetric(float64(total()-rt)/float64(b.N), "roundtrips/event")
			cancel()
			wg.Wait()
		})
	}
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("webhooks/replicas=%d", n), func(b *testing.B) {
			// 20 webhook subscriptions made on the first replica; each event
			// it emits is 20 deliveries, queued in Redis and made by whichever
			// replica claims them first (the others look every 20ms).
			const subs = 20
			var got atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
			defer srv.Close()
			p := prefix(b)
			var es []*events.Engine
			for range n {
				o := events.Options{Webhook: events.WebhookOptions{AllowLoopbackCallbacks: true, AllowedCallbacks: []string{srv.URL}, PollEvery: 20 * time.Millisecond}}
				e, _ := countedEngine(b, p, o)
				es = append(es, e)
			}
			for i := range subs {
				if _, err := es[0].Subscribe(context.Background(), owner, events.SubscribeParams{Name: "note_added",
					Delivery: events.Delivery{URL: srv.URL + "/" + strconv.Itoa(i), Secret: "whsec_" + strings.Repeat("QUJD", 8)}}); err != nil {
					b.Fatal(err)
				}
			}
			time.Sleep(100 * time.Millisecond) // the verifications are over
			base := got.Load()
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				if _, err := es[0].Emit(context.Background(), "note_added", events.Broadcast(), noteEvent(i, "x")); err != nil {
					b.Fatal(err)
				}
			}
			for got.Load()-base < int64(b.N*subs) {
				time.Sleep(time.Millisecond)
			}
			b.ReportMetric(float64(b.N*subs)/time.Since(start).Seconds(), "deliveries/s")
		})
	}
	b.Run("idle-webhook", func(b *testing.B) {
		const n = 1000
		rdb := newClient(b, redisSpec(b))
		used := func() int64 {
			info, _ := rdb.Info(context.Background(), "memory").Result()
			for _, line := range strings.Split(info, "\r\n") {
				if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
					x, _ := strconv.ParseInt(v, 10, 64)
					return x
				}
			}
			return 0
		}
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		l.Close()
		base := "http://" + l.Addr().String() + "/"
		// Measured once, whatever b.N: it is a size, not a speed.
		{
			o := events.Options{MaxSubscriptions: n * 2, CallerShare: 1,
				Webhook: events.WebhookOptions{AllowLoopbackCallbacks: true, AllowedCallbacks: []string{base}}}
			e, _ := countedEngine(b, prefix(b), o)
			before := used()
			for i := range n {
				if _, err := e.Subscribe(context.Background(), owner, events.SubscribeParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"work"}`),
					Delivery: events.Delivery{URL: base + "hooks/" + strconv.Itoa(i), Secret: "whsec_" + strings.Repeat("QUJD", 8)}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(used()-before)/n, "B/webhook-sub")
			e.Close()
		}
	})
}
