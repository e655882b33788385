package driver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Workload L: what Redis costs under load. Replicas of mcpgen on one Redis
// (or a Redis Cluster) behind a round-robin proxy; the driver opens Idle
// sessions that then do nothing, measures Redis's memory before and after
// (per idle session), then runs Busy sessions doing plain calls back to
// back for the duration and counts what Redis did (per call), summed over
// every node. What the replicas do on their own meanwhile (heartbeats,
// keep-alive ticks) is in the count: it is what the load costs.

// LoadConfig is one run of workload L.
type LoadConfig struct {
	URL      string        // the proxy in front of the replicas
	Nodes    []string      // every Redis node (primaries) the replicas use
	Busy     int           // sessions calling back to back
	Idle     int           // sessions opened and left idle
	Duration time.Duration // of the busy phase
}

// LoadResult is what workload L measured.
type LoadResult struct {
	Nodes              int       `json:"nodes"`
	Busy               int       `json:"busy"`
	Idle               int       `json:"idle"`
	Calls              int64     `json:"calls"`
	CallsPerSecond     float64   `json:"callsPerSecond"`
	Cost               RedisCost `json:"cost"` // of the busy phase, every node
	CommandsPerCall    float64   `json:"commandsPerCall"`
	RoundTripsPerCall  float64   `json:"roundTripsPerCall"`
	BytesPerIdle       float64   `json:"bytesPerIdleSession"`    // used_memory growth over Idle sessions (connection buffers move it too)
	KeyBytesPerIdle    float64   `json:"keyBytesPerIdleSession"` // MEMORY USAGE of the sessions' keys
	KeysPerIdle        float64   `json:"keysPerIdleSession"`
	UsedMemoryAfterAll int64     `json:"usedMemory"`
}

// nodeMeter reads the counters and memory of every node.
type nodeMeter struct{ nodes []*RedisMeter }

func newNodeMeter(addrs []string) *nodeMeter {
	m := &nodeMeter{}
	for _, a := range addrs {
		m.nodes = append(m.nodes, NewRedisMeter(a))
	}
	return m
}

func (m *nodeMeter) Close() {
	for _, n := range m.nodes {
		n.Close()
	}
}

// read sums the counters of every node.
func (m *nodeMeter) read(ctx context.Context) (RedisCounts, error) {
	sum := RedisCounts{Commands: map[string]int64{}}
	for _, n := range m.nodes {
		c, err := n.Read(ctx)
		if err != nil {
			return sum, err
		}
		sum.Reads += c.Reads
		for k, v := range c.Commands {
			sum.Commands[k] += v
		}
	}
	return sum, nil
}

// memory sums used_memory and the number of keys of every node.
func (m *nodeMeter) memory(ctx context.Context) (used, keys int64, err error) {
	for _, n := range m.nodes {
		info, err := n.rdb.Info(ctx, "memory").Result()
		if err != nil {
			return 0, 0, fmt.Errorf("reading Redis memory: %w", err)
		}
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
				u, _ := strconv.ParseInt(v, 10, 64)
				used += u
			}
		}
		k, err := n.rdb.DBSize(ctx).Result()
		if err != nil {
			return 0, 0, err
		}
		keys += k
	}
	return used, keys, nil
}

// sessionKeys sums MEMORY USAGE of every session key ("*:s:{*}") on
// every node.
func (m *nodeMeter) sessionKeys(ctx context.Context) (int64, error) {
	var sum int64
	for _, n := range m.nodes {
		iter := n.rdb.Scan(ctx, 0, "*:s:{*}", 1000).Iterator()
		for iter.Next(ctx) {
			sum += n.rdb.MemoryUsage(ctx, iter.Val()).Val()
		}
		if err := iter.Err(); err != nil {
			return 0, fmt.Errorf("scanning the session keys: %w", err)
		}
	}
	return sum, nil
}

// RunLoad runs workload L.
func RunLoad(ctx context.Context, cfg LoadConfig) (*LoadResult, error) {
	if cfg.URL == "" || len(cfg.Nodes) == 0 || cfg.Busy <= 0 || cfg.Duration <= 0 {
		return nil, errors.New("workload L needs the proxy's URL, the Redis nodes, busy sessions and a duration")
	}
	m := newNodeMeter(cfg.Nodes)
	defer m.Close()
	c := NewClient(cfg.URL, cfg.Busy+16)
	defer c.Close()
	r := &LoadResult{Nodes: len(cfg.Nodes), Busy: cfg.Busy, Idle: cfg.Idle}

	// Warm up: connections dialled (as many as the idle phase opens at
	// once), scripts loaded on every replica.
	for i := range 9 {
		s, err := c.Initialize(ctx, false)
		if err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
		if err := s.CallAdd(ctx, int64(i)); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	if err := openIdle(ctx, c, 96); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	time.Sleep(time.Second) // the replicas' own start-up work settles
	before0, _ := m.sessionKeys(ctx)
	used0, keys0, err := m.memory(ctx)
	if err != nil {
		return nil, err
	}
	if err := openIdle(ctx, c, cfg.Idle); err != nil {
		return nil, err
	}
	used1, keys1, err := m.memory(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.Idle > 0 {
		r.BytesPerIdle = float64(used1-used0) / float64(cfg.Idle)
		r.KeysPerIdle = float64(keys1-keys0) / float64(cfg.Idle)
		after0, err := m.sessionKeys(ctx)
		if err != nil {
			return nil, err
		}
		r.KeyBytesPerIdle = float64(after0-before0) / float64(cfg.Idle)
	}

	busy := make([]*Session, cfg.Busy)
	for i := range busy {
		if busy[i], err = c.Initialize(ctx, false); err != nil {
			return nil, fmt.Errorf("opening busy session %d: %w", i, err)
		}
	}
	before, err := m.read(ctx)
	if err != nil {
		return nil, err
	}
	var calls atomic.Int64
	var firstErr atomic.Value
	wctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	start := time.Now()
	var wg sync.WaitGroup
	for i, s := range busy {
		wg.Go(func() {
			for a := int64(i); wctx.Err() == nil; a++ {
				if err := s.CallAdd(wctx, a); err != nil {
					if wctx.Err() == nil {
						firstErr.CompareAndSwap(nil, err)
					}
					return
				}
				calls.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cancel()
	if e := firstErr.Load(); e != nil {
		return nil, fmt.Errorf("a busy session's call: %w", e.(error))
	}
	after, err := m.read(ctx)
	if err != nil {
		return nil, err
	}
	r.Calls = calls.Load()
	r.CallsPerSecond = float64(r.Calls) / elapsed.Seconds()
	r.Cost = Since(before, after) // the meter's INFO on each node left out
	if r.Calls > 0 {
		r.CommandsPerCall = float64(r.Cost.Commands) / float64(r.Calls)
		r.RoundTripsPerCall = float64(r.Cost.RoundTrips) / float64(r.Calls)
	}
	r.UsedMemoryAfterAll, _, _ = m.memory(ctx)
	return r, nil
}

// openIdle opens n sessions, 32 at a time, that then send nothing.
func openIdle(ctx context.Context, c *Client, n int) error {
	var wg sync.WaitGroup
	var firstErr atomic.Value
	sem := make(chan struct{}, 32)
	for range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if _, err := c.Initialize(ctx, false); err != nil {
				firstErr.CompareAndSwap(nil, err)
			}
		})
	}
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		return fmt.Errorf("opening an idle session: %w", e.(error))
	}
	return nil
}

// ClusterNodes returns the primaries of the Redis Cluster seed belongs to.
func ClusterNodes(ctx context.Context, seed string) ([]string, error) {
	c := redis.NewClient(&redis.Options{Addr: seed, DisableIdentity: true})
	defer c.Close()
	slots, err := c.ClusterSlots(ctx).Result()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range slots {
		if a := s.Nodes[0].Addr; !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out, nil
}
