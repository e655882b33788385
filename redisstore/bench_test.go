package redisstore

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkElicitationRoundTrip measures whole elicitation round trips
// (tools/call, elicitation/create on its stream, the answer POSTed, the
// result) with 1 and with 16 concurrent callers, against:
//   - memory:     one replica, in-memory stores (no Redis at all);
//   - replicas=1: one replica on Redis (answers resolve locally);
//   - replicas=3: three replicas on Redis, every answer POSTed to a replica
//     other than the one running the call (forwarded through Redis pub/sub).
//
// Metrics: roundtrips/s, and ms/answer, the time from POSTing the answer to
// reading the call's result, which holds the forwarding cost.
func BenchmarkElicitationRoundTrip(b *testing.B) {
	addr := redisSpec(b)
	for _, bc := range []struct {
		name    string
		n       int
		callers int
		extra   []string
	}{
		{"memory/callers=1", 1, 1, []string{"-memory"}},
		{"replicas=1/callers=1", 1, 1, nil},
		{"replicas=3/callers=1", 3, 1, nil},
		{"memory/callers=16", 1, 16, []string{"-memory"}},
		{"replicas=1/callers=16", 1, 16, nil},
		{"replicas=3/callers=16", 3, 16, nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rs := startReplicas(b, bc.n, addr, testPrefix(b), bc.extra...)
			c := newCluster(rs)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			s, err := c.initialize(ctx)
			if err != nil {
				b.Fatal(err)
			}
			// Warm up connections.
			for i := range 16 {
				if o := s.ask(ctx, i, nil); o.result == nil {
					b.Fatalf("warm-up: %+v", o)
				}
			}
			var next atomic.Int64
			var answerNanos atomic.Int64
			var failed atomic.Int32
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for range bc.callers {
				wg.Go(func() {
					for {
						k := int(next.Add(1))
						if k > b.N {
							return
						}
						o := s.ask(ctx, k, nil)
						if o.result == nil || o.result.N != k {
							failed.Add(1)
							continue
						}
						answerNanos.Add(int64(o.answerLatency))
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if f := failed.Load(); f > 0 {
				b.Fatalf("%d round trips failed", f)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "roundtrips/s")
			b.ReportMetric(float64(answerNanos.Load())/float64(b.N)/1e6, "ms/answer")
		})
	}
}
