package driver

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// What a server costs its Redis, counted by Redis itself: commands from
// INFO commandstats (a script's own calls included), round trips from
// total_reads_processed (a pipeline sent at once is one read). Left out:
// the pub/sub connection's health-check PING, the HELLO of a connection a
// pool dials as it grows, and the meter's own INFO. The Redis must serve
// the measured server only.

// RedisCounts is a snapshot of a Redis server's counters.
type RedisCounts struct {
	Reads    int64            // total_reads_processed
	Commands map[string]int64 // calls per command, lower case
}

// RedisCost is what some work cost Redis.
type RedisCost struct {
	RoundTrips int64            `json:"roundTrips"`
	Commands   int64            `json:"commands"`
	ByCommand  map[string]int64 `json:"byCommand,omitempty"`
}

// String lists the commands, "2 GETEX, 1 XADD".
func (c RedisCost) String() string {
	names := make([]string, 0, len(c.ByCommand))
	for n := range c.ByCommand {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%d %s", c.ByCommand[n], strings.ToUpper(n)))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// RedisMeter reads the counters of the Redis a measured server uses.
type RedisMeter struct{ rdb *redis.Client }

// NewRedisMeter connects to the Redis at addr; Close releases it.
func NewRedisMeter(addr string) *RedisMeter {
	return &RedisMeter{rdb: redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, PoolSize: 1})}
}

// Close drops the meter's connection.
func (m *RedisMeter) Close() error { return m.rdb.Close() }

// Read takes a snapshot.
func (m *RedisMeter) Read(ctx context.Context) (RedisCounts, error) {
	info, err := m.rdb.Info(ctx, "commandstats", "stats").Result()
	if err != nil {
		return RedisCounts{}, fmt.Errorf("reading Redis counters: %w", err)
	}
	c := RedisCounts{Commands: map[string]int64{}}
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "total_reads_processed:"); ok {
			c.Reads, _ = strconv.ParseInt(v, 10, 64)
			continue
		}
		rest, ok := strings.CutPrefix(line, "cmdstat_")
		if !ok {
			continue
		}
		name, stats, ok := strings.Cut(rest, ":calls=")
		if !ok {
			continue
		}
		calls, _, _ := strings.Cut(stats, ",")
		c.Commands[name], _ = strconv.ParseInt(calls, 10, 64)
	}
	return c, nil
}

// Since is the cost of the work between snapshots from and to, the meter's
// own INFO commands taken out.
func Since(from, to RedisCounts) RedisCost {
	c := RedisCost{ByCommand: map[string]int64{}}
	left := func(name string) int64 { return to.Commands[name] - from.Commands[name] }
	c.RoundTrips = to.Reads - from.Reads - left("info") - left("ping") - left("hello")
	for name, n := range to.Commands {
		if d := n - from.Commands[name]; d > 0 && name != "info" && name != "ping" && name != "hello" {
			c.ByCommand[name] = d
			c.Commands += d
		}
	}
	return c
}

// quietFor is how long Redis must see no command before the meter takes
// the measured server as done with an operation.
const quietFor = 150 * time.Millisecond

// Settle polls the counters from snapshot from on until Redis saw no
// command for quietFor (bounded by 10s), and returns the last snapshot: a
// server finishes some of an operation's work after the client saw its end
// (a GET stream's cleanup after its connection closed), and nothing tells
// a client when.
func (m *RedisMeter) Settle(ctx context.Context, from RedisCounts) (RedisCounts, error) {
	const poll = 25 * time.Millisecond
	last, quiet := from, time.Duration(0)
	deadline := time.Now().Add(10 * time.Second)
	for quiet < quietFor {
		if time.Now().After(deadline) {
			return last, fmt.Errorf("redis kept seeing commands for 10s: %v", Since(from, last))
		}
		select {
		case <-time.After(poll):
		case <-ctx.Done():
			return last, ctx.Err()
		}
		now, err := m.Read(ctx)
		if err != nil {
			return last, err
		}
		if Since(last, now).Commands == 0 {
			quiet += poll
		} else {
			quiet = 0
		}
		last = now
	}
	return last, nil
}

// Measure runs op once the server's earlier work settled and returns what
// it cost Redis, including what the server finished after op returned.
func (m *RedisMeter) Measure(ctx context.Context, op func() error) (RedisCost, error) {
	start, err := m.Read(ctx)
	if err == nil {
		start, err = m.Settle(ctx, start)
	}
	if err != nil {
		return RedisCost{}, err
	}
	if err := op(); err != nil {
		return RedisCost{}, err
	}
	end, err := m.Read(ctx)
	if err == nil {
		end, err = m.Settle(ctx, end)
	}
	return Since(start, end), err
}
