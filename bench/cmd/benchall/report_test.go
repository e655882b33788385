package main

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/bench/driver"
)

func TestReportTargets(t *testing.T) {
	r := &report{
		settings: settings{Impls: []string{"mcpgen", "gosdk", "mcpgo", "floor"}, Reps: 1},
		results:  map[string]map[string]*driver.Result{},
		failures: map[string]map[string]string{},
		benches:  map[string]map[string]benchResult{driver.W1: {"mcpgen": {AllocsPerOp: 100}, "floor": {AllocsPerOp: 50}}},
	}
	r.add(driver.W1, "mcpgen", &driver.Result{CallsPerCPUSecond: 900, P99Micros: 100})
	r.add(driver.W1, "floor", &driver.Result{CallsPerCPUSecond: 1000, P99Micros: 90})
	r.add(driver.W1, "mcpgo", &driver.Result{CallsPerCPUSecond: 600, P99Micros: 120})
	r.add(driver.W3, "mcpgen", &driver.Result{CallsPerCPUSecond: 100})
	r.add(driver.W3, "mcpgo", &driver.Result{CallsPerCPUSecond: 90})
	r.add(driver.W4, "mcpgen", &driver.Result{BytesPerSession: 5000})
	r.fail(driver.W3, "gosdk", "HTTP 500")

	md := r.markdown()
	for _, want := range []string{
		"| W1 calls per server CPU second ≥ 0.8x the floor | 0.90x | yes |",
		"| W1 p99 no worse than any peer | 100 µs vs best peer 120 µs | yes |",
		"| W3 ≥ 1.3x the fastest peer that completes it (mcpgo) | 1.11x | **no** |",
		"| W4 < 1 KB per idle session | 5000 B | **no** |",
		"| mcpgen | 0 | 0 µs | 100 µs | 900 | 1.00x | 0.90x | 100 | 0 |",
		"| gosdk | failed: HTTP 500 |",
		"| W3 | gosdk | HTTP 500 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if r.failureCount() != 1 {
		t.Errorf("failureCount = %d, want 1", r.failureCount())
	}
	if t.Failed() {
		t.Log(md)
	}
}

func TestReportRedis(t *testing.T) {
	r := &report{
		settings: settings{Impls: []string{"mcpgen"}, Reps: 1, RedisServer: "redis-server"},
		results:  map[string]map[string]*driver.Result{},
		failures: map[string]map[string]string{},
	}
	r.add(driver.W1, "mcpgen", &driver.Result{CallsPerCPUSecond: 40000})
	r.add(driver.W1, onRedis, &driver.Result{Calls: 1000, CallsPerCPUSecond: 10000,
		Redis: &driver.RedisCost{RoundTrips: 1002, Commands: 1002, ByCommand: map[string]int64{"getex": 1002}}})
	r.fail(driver.W3, onRedis, "HTTP 503")
	cost := func(rt, cmds int64, by map[string]int64) driver.RedisCost {
		return driver.RedisCost{RoundTrips: rt, Commands: cmds, ByCommand: by}
	}
	r.add(driver.R, onRedis, &driver.Result{Workload: driver.R, Ops: []driver.RedisOp{
		{Name: driver.OpCall, Per: 1, Cost: cost(1, 1, map[string]int64{"getex": 1})},
		{Name: driver.OpElicit, Per: 1, Cost: cost(4, 13, map[string]int64{"getex": 2, "xadd": 11})},
		{Name: driver.OpIdleTick, Per: 200, Cost: cost(0, 0, nil)},
	}})
	md := r.markdown()
	for _, want := range []string{
		"| W1 | 40000 | 10000 | 0.25x | 1 | 1 | 1002 GETEX |",
		"| W3 | | failed: HTTP 503 |",
		"| plain tools/call on Redis: ≤ 1 round trip | 1 round trips, 1 commands | yes |",
		"| elicitation round trip on Redis: ≤ 4 round trips, ≤ 12 commands | 4 round trips, 13 commands | **no** |",
		"| GET stream opened and closed on Redis: ≤ 2 round trips | not measured | **no** |",
		"| an idle session costs Redis nothing between requests | 0 round trips, 0 commands | yes |",
		"| " + driver.OpIdleTick + " | 0 | 0 | in 200: nothing |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}

func TestMedian(t *testing.T) {
	runs := []*driver.Result{
		{CallsPerCPUSecond: 3, P99Micros: 10, Calls: 30},
		{CallsPerCPUSecond: 1, P99Micros: 500, Calls: 10},
		{CallsPerCPUSecond: 2, P99Micros: 20, Calls: 20},
	}
	m := median(runs)
	if m.CallsPerCPUSecond != 2 || m.P99Micros != 20 || m.Calls != 20 {
		t.Fatalf("median %+v, want 2 calls per CPU second, p99 20, 20 calls", m)
	}
}
