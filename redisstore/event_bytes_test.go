package redisstore

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSessionEventBytesAreBounded: 60 calls of one session whose event
// streams each carry a 900 KB result, through three replicas, leave at most
// Options.SessionEventBytes of event data in Redis (1 MiB by default), and
// the newest stream still replays on every replica. Before the bound, each
// stream kept its own events for the event TTL, and the session held 55 MiB.
func TestSessionEventBytesAreBounded(t *testing.T) {
	rd := startPrivateRedis(t, false)
	rs := startReplicas(t, 3, rd.addr, testPrefix(t))
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rdb := newClient(t, rd.addr)
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The tool's log makes its response an event stream, whose events the
	// store keeps for Last-Event-ID.
	if m, _, err := s.rpc(ctx, c.pick(), "logging/setLevel", map[string]any{"level": "info"}); err != nil || m.Error != nil {
		t.Fatalf("logging/setLevel: %v %+v", err, m)
	}
	usedMemory := func() int64 {
		info := rdb.Info(ctx, "memory").Val()
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		t.Fatal("no used_memory in INFO memory")
		return 0
	}
	// 20 results of 900 KB: 17 MiB offered, 17 times the session's bound.
	const calls, size = 20, 900_000
	before := usedMemory()
	var lastURL, lastPrime string
	for i := range calls {
		url := c.pick()
		var prime string
		resp, err := s.do(ctx, "POST", url, map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
			"params": map[string]any{"name": "big", "arguments": map[string]any{"bytes": size}}})
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		err = readEvents(resp, func(_ string, m *msg) (bool, error) {
			if m.Method == "" {
				got = len(m.Result)
				return true, nil
			}
			return false, nil
		}, func(id string) { prime = id })
		resp.Body.Close()
		if err != nil || got < size {
			t.Fatalf("call %d: %v (result of %d bytes)", i, err, got)
		}
		if prime == "" {
			t.Fatalf("call %d: no priming event: its response was not an event stream", i)
		}
		lastURL, lastPrime = url, prime
	}
	after := usedMemory()
	var sessionBytes int64
	keys := allKeys(ctx, t, rdb, "*{"+s.id+"}*")
	for _, k := range keys {
		sessionBytes += rdb.MemoryUsage(ctx, k).Val()
	}
	t.Logf("%d calls with %d KB results: Redis used_memory grew %.1f MiB; the session's %d keys hold %.2f MiB (MEMORY USAGE)",
		calls, size/1000, float64(after-before)/(1<<20), len(keys), float64(sessionBytes)/(1<<20))
	if limit := int64(2 << 20); sessionBytes > limit {
		t.Errorf("the session's keys hold %d bytes, past %d (1 MiB of event data and its overhead)", sessionBytes, limit)
	}
	// The newest stream is kept whole, and replays on every replica.
	for i := range rs {
		url := c.urls[i]
		events := replay(t, ctx, s, url, lastPrime)
		if len(events) != 2 || !strings.Contains(events[1], strings.Repeat("x", 100)) {
			t.Errorf("replaying the last call's stream on replica %d (the call ran on %d): %d events", i, replicaIndex(rs, lastURL), len(events))
		}
	}
}
