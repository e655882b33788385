package redisstore

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/redisstore/internal/redisconn"
	"github.com/redis/go-redis/v9"
)

// TestReshardingDuringTrafficLosesNothing runs on the Redis Cluster
// deployment (MCPGEN_REDIS_CLUSTER): while three replicas serve
// elicitation round trips (answered through another replica), plain calls
// and new sessions, the hash slots of every session and of every
// replica's liveness record move to another primary, key by key (CLUSTER
// SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE: what redis-cli
// --cluster reshard does). Afterwards every session a client was told
// exists serves on every replica, and the event stream of every call that
// completed replays on another replica. A request may fail while its
// slot moves (a clear error, which the client retries); none is lost
// once acknowledged.
func TestReshardingDuringTrafficLosesNothing(t *testing.T) {
	spec, err := redisconn.Parse(redisSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Shape != redisconn.Cluster {
		t.Skip("needs the Redis Cluster deployment (MCPGEN_REDIS_CLUSTER)")
	}
	cc := newClient(t, spec.String()).(*redis.ClusterClient)
	prefix := testPrefix(t)
	rs := startReplicas(t, 3, spec.String(), prefix, "-op-timeout", "2s", "-request-timeout", "20s")
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var mu sync.Mutex
	var sessions []*session // acknowledged: initialize answered with a session ID
	type done struct {
		s     *session
		prime string // the call stream's priming event: a replay from it has the whole stream
	}
	var completed []done
	errs := map[string]int{}
	failed := func(what string) {
		mu.Lock()
		defer mu.Unlock()
		errs[shorten(what)]++
	}
	for range 6 {
		s, err := c.initialize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 6 {
		s := sessions[w]
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
				switch {
				case w < 4:
					n := w*100000 + i
					o := s.ask(cctx, n, func(a *askOutcome) bool {
						answerUntilTaken(cctx, s, a, n)
						return false
					})
					switch {
					case o.result != nil && o.result.Value == answerValue(n):
						mu.Lock()
						completed = append(completed, done{s, o.primeID})
						mu.Unlock()
					case o.err != nil:
						failed("ask: " + o.err.Error())
					default:
						failed("ask: " + o.toolError)
					}
				case w == 4:
					if x := callEcho(cctx, s, c.pick()); x.err != nil || x.status != http.StatusOK || x.rpcCode != 0 {
						failed(fmt.Sprintf("echo: HTTP %d %v %s", x.status, x.err, x.body))
					}
				default:
					ns, err := c.initialize(cctx)
					if err != nil {
						failed("initialize: " + err.Error())
						break
					}
					mu.Lock()
					sessions = append(sessions, ns)
					mu.Unlock()
				}
				ccancel()
			}
		})
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(completed)
	}
	waitUntil(ctx, t, "20 elicitations before the resharding", func() bool { return count() >= 20 })

	// The slots to move: every session's and every replica's liveness record's.
	slots := map[int64]bool{}
	mu.Lock()
	keys := []string{}
	for _, s := range sessions {
		keys = append(keys, prefix+"s:{"+s.id+"}")
	}
	mu.Unlock()
	for _, r := range rs {
		keys = append(keys, prefix+"replica:{"+r.id+"}")
	}
	for _, k := range keys {
		slot, err := cc.ClusterKeySlot(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		slots[slot] = true
	}
	before := count()
	start := time.Now()
	moved := 0
	for slot := range slots {
		moved += migrateSlot(ctx, t, cc, slot)
	}
	took := time.Since(start)
	waitUntil(ctx, t, "20 more elicitations after the resharding", func() bool { return count() >= before+40 })
	close(stop)
	wg.Wait()
	t.Logf("moved %d slots (%d keys) to other primaries in %v while %d elicitations completed; %d in all",
		len(slots), moved, took.Round(time.Millisecond), count()-before, count())
	for e, n := range errs {
		t.Logf("%4d x %s", n, e)
		if !clearFailoverError(e) {
			t.Errorf("unclear failure while slots moved: %d x %s", n, e)
		}
	}

	// Nothing acknowledged was lost: every session serves on every
	// replica, every completed call's stream replays (a sample of them, on a
	// replica other than the one next in turn).
	for n, s := range sessions {
		for i := range rs {
			if m, _, err := s.rpc(ctx, c.urls[i], "tools/list", map[string]any{}); err != nil || m.Error != nil {
				t.Errorf("session %d of %d on replica %d after the resharding: %v", n, len(sessions), i, err)
			}
		}
	}
	step := max(1, len(completed)/40)
	for i := 0; i < len(completed); i += step {
		d := completed[i]
		events := replay(t, ctx, d.s, c.pick(), d.prime)
		if len(events) < 2 || !strings.Contains(events[len(events)-1], `\"value\"`) {
			t.Errorf("the stream of completed call %d (priming event %s) replays %d events: %q", i, d.prime, len(events), events)
		}
	}
}

// migrateSlot moves a hash slot from its primary to the next one, key by
// key, as redis-cli --cluster reshard does, and returns how many keys it
// moved. Clients that reach the old primary meanwhile are sent on (ASK,
// then MOVED), which go-redis follows.
func migrateSlot(ctx context.Context, t *testing.T, cc *redis.ClusterClient, slot int64) int {
	t.Helper()
	shards, err := cc.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	type node struct{ id, addr string }
	var masters []node
	var src node
	for _, r := range shards {
		m := node{r.Nodes[0].ID, r.Nodes[0].Addr}
		seen := false
		for _, x := range masters {
			seen = seen || x.id == m.id
		}
		if !seen {
			masters = append(masters, m)
		}
		if int64(r.Start) <= slot && slot <= int64(r.End) {
			src = m
		}
	}
	var dst node
	for i, m := range masters {
		if m.id == src.id {
			dst = masters[(i+1)%len(masters)]
		}
	}
	client := func(addr string) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second})
		t.Cleanup(func() { c.Close() })
		return c
	}
	from, to := client(src.addr), client(dst.addr)
	must := func(c *redis.Client, args ...any) {
		t.Helper()
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	must(to, "CLUSTER", "SETSLOT", slot, "IMPORTING", src.id)
	must(from, "CLUSTER", "SETSLOT", slot, "MIGRATING", dst.id)
	host, port, _ := net.SplitHostPort(dst.addr)
	moved := 0
	for {
		keys, err := from.ClusterGetKeysInSlot(ctx, int(slot), 10).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) == 0 {
			break
		}
		args := []any{"MIGRATE", host, port, "", 0, 5000, "KEYS"}
		for _, k := range keys {
			args = append(args, k)
		}
		must(from, args...)
		moved += len(keys)
		time.Sleep(20 * time.Millisecond) // traffic meets a slot half moved
	}
	must(to, "CLUSTER", "SETSLOT", slot, "NODE", dst.id)
	must(from, "CLUSTER", "SETSLOT", slot, "NODE", dst.id)
	for _, m := range masters {
		if m.id != src.id && m.id != dst.id {
			must(client(m.addr), "CLUSTER", "SETSLOT", slot, "NODE", dst.id)
		}
	}
	return moved
}
