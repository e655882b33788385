package redisstore

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/redisstore/internal/redisconn"
	"github.com/redis/go-redis/v9"
)

// TestSentinelFailoverDuringTraffic runs on the Sentinel deployment
// (MCPGEN_REDIS_SENTINEL): three replicas under elicitation round trips
// (each answered through another replica) and plain calls while
// SENTINEL FAILOVER promotes the replica. Every call ends with its answer
// or a clear error within its bound; no answer is refused as expired
// while its call still waits (before, every cross-replica answer from
// 1.5s to 11s after the trigger was); answers refused with 503 are posted
// again, as a client honouring Retry-After does; calls succeed again on
// every replica soon after, and sessions made after the failover work,
// with no replica restarted.
func TestSentinelFailoverDuringTraffic(t *testing.T) {
	spec, err := redisconn.Parse(redisSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Shape != redisconn.Sentinel {
		t.Skip("needs the Sentinel deployment (MCPGEN_REDIS_SENTINEL)")
	}
	sentinel := redis.NewSentinelClient(&redis.Options{Addr: spec.Addrs[0], DialTimeout: time.Second})
	defer sentinel.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	oldPrimary, err := sentinel.GetMasterAddrByName(ctx, spec.Master).Result()
	if err != nil {
		t.Fatal(err)
	}
	rs := startReplicas(t, 3, spec.String(), testPrefix(t), "-op-timeout", "1s", "-request-timeout", "20s")
	c := newCluster(rs)
	var sessions []*session
	for range 4 {
		s, err := c.initialize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}

	const bound = 30 * time.Second // a call still running after this is hung
	type op struct {
		kind       string
		start, end time.Time
		err        string // "" for success
		answers    []int  // the statuses of its answer's posts
	}
	var mu sync.Mutex
	var ops []op
	record := func(o op) {
		mu.Lock()
		defer mu.Unlock()
		ops = append(ops, o)
	}
	successesSince := func(since time.Time) map[string]int {
		mu.Lock()
		defer mu.Unlock()
		n := map[string]int{}
		for _, o := range ops {
			if o.err == "" && o.start.After(since) {
				n[o.kind]++
			}
		}
		return n
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		s := sessions[w%len(sessions)]
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				cctx, ccancel := context.WithTimeout(ctx, bound)
				o := op{start: time.Now()}
				if w%2 == 0 {
					o.kind = "ask"
					n := w*100000 + i
					out := s.ask(cctx, n, func(a *askOutcome) bool {
						o.answers = answerUntilTaken(cctx, s, a, n)
						return false
					})
					switch {
					case cctx.Err() != nil:
						o.err = "hung"
					case out.result != nil && out.result.Value == answerValue(n):
					case out.err != nil:
						o.err = out.err.Error()
					case out.toolError != "":
						o.err = "tool error: " + out.toolError
					default:
						o.err = fmt.Sprintf("wrong result %+v", out.result)
					}
				} else {
					o.kind = "echo"
					x := callEcho(cctx, s, c.pick())
					switch {
					case cctx.Err() != nil:
						o.err = "hung"
					case x.err != nil:
						o.err = x.err.Error()
					case x.status != http.StatusOK || x.rpcCode != 0:
						o.err = fmt.Sprintf("HTTP %d %s", x.status, x.body)
					}
				}
				ccancel()
				o.end = time.Now()
				record(o)
				if o.err != "" {
					time.Sleep(100 * time.Millisecond) // as a client honouring a short Retry-After
				}
			}
		})
	}
	waitUntil(ctx, t, "20 calls before the failover", func() bool {
		n := successesSince(time.Time{})
		return n["ask"]+n["echo"] >= 20
	})
	if err := sentinel.Failover(ctx, spec.Master).Err(); err != nil {
		t.Fatal(err)
	}
	trigger := time.Now()
	waitUntil(ctx, t, "the sentinels to name the new primary", func() bool {
		addr, err := sentinel.GetMasterAddrByName(ctx, spec.Master).Result()
		return err == nil && strings.Join(addr, ":") != strings.Join(oldPrimary, ":")
	})
	switched := time.Since(trigger)
	// Past the moment the sentinels reconfigure the old primary (about ten
	// seconds), when the subscriptions that stayed on it used to move.
	time.Sleep(time.Until(trigger.Add(14 * time.Second)))
	// Sessions made after the failover, through every replica.
	for i := range 3 {
		s, err := c.initialize(ctx)
		if err != nil {
			t.Fatalf("a session made after the failover: %v", err)
		}
		if o := s.ask(ctx, 900+i, nil); o.result == nil {
			t.Errorf("an elicitation of a session made after the failover: %v %q", o.err, o.toolError)
		}
	}
	after := time.Now()
	waitUntil(ctx, t, "calls and elicitations to succeed again after the failover", func() bool {
		n := successesSince(after)
		return n["ask"] >= 8 && n["echo"] >= 8
	})
	close(stop)
	wg.Wait()

	// What the clients saw, by second from the trigger.
	mu.Lock()
	defer mu.Unlock()
	sort.Slice(ops, func(i, j int) bool { return ops[i].start.Before(ops[j].start) })
	bySecond := map[int][2]int{}
	errs := map[string]int{}
	var slowest time.Duration
	refusedAnswers, expiredAnswers := 0, 0
	for _, o := range ops {
		sec := int(math.Floor(o.start.Sub(trigger).Seconds()))
		v := bySecond[sec]
		if o.err == "" {
			v[0]++
		} else {
			v[1]++
			errs[o.kind+": "+shorten(o.err)]++
		}
		bySecond[sec] = v
		slowest = max(slowest, o.end.Sub(o.start))
		for _, st := range o.answers {
			switch st {
			case http.StatusServiceUnavailable:
				refusedAnswers++
			case http.StatusGone:
				expiredAnswers++
			}
		}
	}
	var secs []int
	for s := range bySecond {
		secs = append(secs, s)
	}
	sort.Ints(secs)
	var b strings.Builder
	for _, s := range secs {
		fmt.Fprintf(&b, " %+ds:%d/%d", s, bySecond[s][0], bySecond[s][1])
	}
	t.Logf("the sentinels named the new primary %v after the trigger; ok/failed calls by second from the trigger:%s", switched.Round(time.Millisecond), b.String())
	t.Logf("answers refused with 503 and posted again: %d; refused as expired: %d; the slowest call took %v",
		refusedAnswers, expiredAnswers, slowest.Round(time.Millisecond))
	for e, n := range errs {
		t.Logf("%4d x %s", n, e)
		if strings.Contains(e, "hung") || !clearFailoverError(e) {
			t.Errorf("unclear or hung: %d x %s", n, e)
		}
	}
	if expiredAnswers > 0 {
		t.Errorf("%d answers were refused as expired while their call waited", expiredAnswers)
	}
}

// answerUntilTaken posts the answer of call n's elicitation through another
// replica than the call's, again while it is refused with 503 (a store
// blinking), and returns the status of every post.
func answerUntilTaken(ctx context.Context, s *session, o *askOutcome, n int) []int {
	var statuses []int
	ans := map[string]any{"jsonrpc": "2.0", "id": o.elicitationID, "result": map[string]any{"action": "accept", "content": map[string]any{"value": answerValue(n)}}}
	for ctx.Err() == nil {
		o.answerURL = s.c.pickOther(o.callURL)
		resp, err := s.do(ctx, http.MethodPost, o.answerURL, ans)
		if err != nil {
			return statuses
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode != http.StatusServiceUnavailable {
			return statuses
		}
		time.Sleep(200 * time.Millisecond) // Retry-After
	}
	return statuses
}

// clearFailoverError reports whether a failure during a failover says what
// happened: the store was unavailable (503, or a handler's elicitation that
// could not be sent), or the call's event stream ended because its events
// could not be stored (the client resumes it with Last-Event-ID).
func clearFailoverError(e string) bool {
	for _, ok := range []string{storeUnavailableMessage, "session store unavailable", "unexpected EOF"} {
		if strings.Contains(e, ok) {
			return true
		}
	}
	return false
}
