package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/bench/driver"
)

type report struct {
	settings settings
	// loadStart and loadEnd are /proc/loadavg when the run began and ended:
	// other work on the machine shows up in every number.
	loadStart, loadEnd string
	pinned             bool
	results            map[string]map[string]*driver.Result // workload -> impl -> result
	failures           map[string]map[string]string
	benches            map[string]map[string]benchResult
}

func (r *report) add(w, name string, res *driver.Result) {
	if r.results[w] == nil {
		r.results[w] = map[string]*driver.Result{}
	}
	r.results[w][name] = res
}

func (r *report) fail(w, name, msg string) {
	if r.failures[w] == nil {
		r.failures[w] = map[string]string{}
	}
	r.failures[w][name] = msg
}

func (r *report) failureCount() int {
	n := 0
	for _, m := range r.failures {
		n += len(m)
	}
	return n
}

var titles = map[string]string{
	driver.W1: "W1: tools/call add in a legacy (2025-11-25) session",
	driver.W2: "W2: tools/call add, stateless 2026-07-28",
	driver.W3: "W3: confirm, the full elicitation round trip from a POST-only client",
	driver.W4: "W4: memory per idle legacy session",
	driver.W5: "W5: W1 while slow clients trickle their requests",
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func (r *report) markdown() string {
	var b strings.Builder
	st := r.settings
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Benchmark results\n\n")
	if st.Smoke {
		p("**Smoke run**: durations too short for the numbers to mean anything; it only checks that every workload completes.\n\n")
	}
	p("Produced by `go run ./cmd/benchall` (in `bench/`) on %s.\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	p("| machine | |\n|---|---|\n")
	p("| cores (`nproc`) | %d |\n| CPU | %s |\n| Go | %s |\n| kernel | %s |\n", runtime.NumCPU(), cpuModel(), goVersion(), kernel())
	if r.pinned {
		p("| pinning | server on CPU %s, driver on CPU %s (`taskset`) |\n", st.ServerCore, st.DriverCore)
	} else {
		p("| pinning | none (one core or no `taskset`) |\n")
	}
	p("| load | %d concurrent clients, keep-alive; %s measured after %s warm-up; each figure the median of %d runs (taken in turn across the implementations); a fresh server per run |\n",
		st.Concurrency, st.Duration, st.Warmup, st.Reps)
	p("| load average (1, 5, 15 min) | %s at the start, %s at the end |\n", r.loadStart, r.loadEnd)
	p("| W4 | %d idle sessions (initialize + notifications/initialized, no GET stream) |\n", st.Sessions)
	p("| W5 | %d slow clients, each writing its request 8 bytes and reading its response 16 bytes at a time, %s apart |\n\n", st.Slow, st.SlowDelay)

	p("Implementations: **mcpgen** (a server generated from `bench/mcpgentools/schemas`), **gosdk** (github.com/modelcontextprotocol/go-sdk), ")
	p("**mcpgo** (github.com/mark3labs/mcp-go), **floor** (net/http that decodes the JSON-RPC message and encodes the result, nothing else). ")
	p("All but the floor validate tool input against its schema; all run with logging discarded.\n\n")
	p("*calls per server CPU second* = completed calls ÷ the server process's user+system CPU time (`/proc/PID/stat`) over the measured window: ")
	p("the floor saturates the driver before the server, so raw throughput understates the differences. ")
	p("*allocs/call* and *B/call* come from the in-process Go benchmarks (`go test -bench . -benchmem ./impl`, handler called directly, harness cost included; see the last table).\n\n")

	r.targets(&b)
	p("What the profiles of mcpgen show, and what changed because of them: [PROFILE.md](PROFILE.md).\n\n")

	for _, w := range []string{driver.W1, driver.W2, driver.W3} {
		p("## %s\n\n", titles[w])
		p("| implementation | calls/s | p50 | p99 | calls per server CPU s | vs mcpgen | vs floor | allocs/call | B/call |\n")
		p("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		base, floor := r.cpu(w, "mcpgen"), r.cpu(w, "floor")
		for _, name := range st.Impls {
			res := r.results[w][name]
			if res == nil {
				p("| %s | %s |  |  |  |  |  |  |  |\n", name, r.missing(w, name))
				continue
			}
			bn, ok := r.benches[w][name]
			allocs, bytes := "–", "–"
			if ok {
				allocs, bytes = fmt.Sprintf("%.0f", bn.AllocsPerOp), fmt.Sprintf("%.0f", bn.BytesPerOp)
			}
			p("| %s | %.0f | %s | %s | %.0f | %s | %s | %s | %s |\n", name, res.Throughput, us(res.P50Micros), us(res.P99Micros),
				res.CallsPerCPUSecond, ratio(res.CallsPerCPUSecond, base), ratio(res.CallsPerCPUSecond, floor), allocs, bytes)
		}
		p("\n")
	}

	p("## %s\n\n", titles[driver.W4])
	p("| implementation | bytes per session (heap + stacks) | live heap | RSS | goroutines | vs mcpgen |\n|---|---:|---:|---:|---:|---:|\n")
	var base float64
	if res := r.results[driver.W4]["mcpgen"]; res != nil {
		base = res.BytesPerSession
	}
	for _, name := range st.Impls {
		res := r.results[driver.W4][name]
		if res == nil {
			p("| %s | %s |  |  |  |  |\n", name, r.missing(driver.W4, name))
			continue
		}
		p("| %s | %.0f | %.0f | %.0f | %.2f | %s |\n", name, res.BytesPerSession, res.HeapPerSession, res.RSSPerSession, res.GoroutinesPerSess, ratio(res.BytesPerSession, base))
	}
	p("\nBytes are the growth of the server's live heap (after two full GCs) plus goroutine stacks, divided by the number of sessions. The floor keeps no sessions.\n\n")

	r.redis(&b)

	p("## %s\n\n", titles[driver.W5])
	p("| implementation | fast calls/s | p50 | p99 | p99 vs its W1 p99 | slow calls done | calls per server CPU s | vs mcpgen | vs floor |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	b5, f5 := r.cpu(driver.W5, "mcpgen"), r.cpu(driver.W5, "floor")
	for _, name := range st.Impls {
		res := r.results[driver.W5][name]
		if res == nil {
			p("| %s | %s |  |  |  |  |  |  |  |\n", name, r.missing(driver.W5, name))
			continue
		}
		w1 := 0.0
		if x := r.results[driver.W1][name]; x != nil {
			w1 = x.P99Micros
		}
		p("| %s | %.0f | %s | %s | %s | %d | %.0f | %s | %s |\n", name, res.Throughput, us(res.P50Micros), us(res.P99Micros), ratio(res.P99Micros, w1),
			res.SlowCalls, res.CallsPerCPUSecond, ratio(res.CallsPerCPUSecond, b5), ratio(res.CallsPerCPUSecond, f5))
	}
	p("\n")

	p("## In-process Go benchmarks (per call)\n\n")
	p("`go test -run '^$' -bench . -benchmem -benchtime %s ./impl`, pinned to the server's core. *harness* is a handler that only reads the body: its cost is in every other row.\n\n", st.BenchTime)
	p("| workload | implementation | ns/call | B/call | allocs/call | allocs vs mcpgen | allocs vs floor |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, w := range []string{driver.W1, driver.W2, driver.W3} {
		names := append(append([]string{}, st.Impls...), "harness")
		for _, name := range names {
			bn, ok := r.benches[w][name]
			if !ok {
				continue
			}
			p("| %s | %s | %.0f | %.0f | %.0f | %s | %s |\n", w, name, bn.NsPerOp, bn.BytesPerOp, bn.AllocsPerOp,
				ratio(bn.AllocsPerOp, r.benches[w]["mcpgen"].AllocsPerOp), ratio(bn.AllocsPerOp, r.benches[w]["floor"].AllocsPerOp))
		}
	}
	p("\n")

	if r.failureCount() > 0 {
		p("## Failures\n\n| workload | implementation | error |\n|---|---|---|\n")
		var ws []string
		for w := range r.failures {
			ws = append(ws, w)
		}
		sort.Strings(ws)
		for _, w := range ws {
			for name, msg := range r.failures[w] {
				p("| %s | %s | %s |\n", w, name, strings.ReplaceAll(strings.ReplaceAll(msg, "|", "\\|"), "\n", " "))
			}
		}
		p("\n")
	}
	return b.String()
}

// targets writes issue 7's targets and where mcpgen stands.
func (r *report) targets(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Targets\n\n| target | measured | met |\n|---|---|---|\n")
	mark := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	peers := []string{"gosdk", "mcpgo"}
	if w1 := r.results[driver.W1]["mcpgen"]; w1 != nil {
		floor := r.cpu(driver.W1, "floor")
		x := w1.CallsPerCPUSecond / floor
		p("| W1 calls per server CPU second ≥ 0.8x the floor | %.2fx | %s |\n", x, mark(floor > 0 && x >= 0.8))
		worst := 0.0
		for _, peer := range peers {
			if res := r.results[driver.W1][peer]; res != nil && (worst == 0 || res.P99Micros < worst) {
				worst = res.P99Micros
			}
		}
		p("| W1 p99 no worse than any peer | %s vs best peer %s | %s |\n", us(w1.P99Micros), us(worst), mark(worst > 0 && w1.P99Micros <= worst))
	} else {
		p("| W1 ≥ 0.8x the floor, p99 no worse than any peer | %s | **no** |\n", r.missing(driver.W1, "mcpgen"))
	}
	if w3 := r.results[driver.W3]["mcpgen"]; w3 != nil {
		best, bestName := 0.0, ""
		for _, peer := range peers {
			if c := r.cpu(driver.W3, peer); c > best {
				best, bestName = c, peer
			}
		}
		x := w3.CallsPerCPUSecond / best
		p("| W3 ≥ 1.3x the fastest peer that completes it (%s) | %.2fx | %s |\n", bestName, x, mark(best > 0 && x >= 1.3))
	} else {
		p("| W3 ≥ 1.3x the fastest peer | %s | **no** |\n", r.missing(driver.W3, "mcpgen"))
	}
	if w4 := r.results[driver.W4]["mcpgen"]; w4 != nil {
		p("| W4 < 1 KB per idle session | %.0f B | %s |\n", w4.BytesPerSession, mark(w4.BytesPerSession < 1024))
	} else {
		p("| W4 < 1 KB per idle session | %s | **no** |\n", r.missing(driver.W4, "mcpgen"))
	}
	if ops := r.results[driver.R][onRedis]; ops != nil {
		for _, t := range redisTargets {
			op, ok := findOp(ops.Ops, t.op)
			if !ok {
				p("| %s | not measured | **no** |\n", t.text)
				continue
			}
			within := op.RoundTrips() <= t.roundTrips && (t.commands < 0 || op.Commands() <= t.commands)
			p("| %s | %.3g round trips, %.3g commands | %s |\n", t.text, op.RoundTrips(), op.Commands(), mark(within))
		}
	} else if r.settings.RedisServer != "" {
		p("| Redis round trips per operation (issue 26) | %s | **no** |\n", r.missing(driver.R, onRedis))
	}
	p("\n")
}

// redisTargets are issue 26's budgets of the Redis-backed path, per
// operation of workload R; a negative commands budget means none.
var redisTargets = []struct {
	op, text             string
	roundTrips, commands float64
}{
	{driver.OpCall, "plain tools/call on Redis: ≤ 1 round trip", 1, -1},
	{driver.OpElicit, "elicitation round trip on Redis: ≤ 4 round trips, ≤ 12 commands", 4, 12},
	{driver.OpGET, "GET stream opened and closed on Redis: ≤ 2 round trips", 2, -1},
	{driver.OpDelete, "DELETE of a session with 101 streams on Redis: ≤ 2 round trips", 2, -1},
	{driver.OpIdleTick, "an idle session costs Redis nothing between requests", 0, 0},
}

func findOp(ops []driver.RedisOp, name string) (driver.RedisOp, bool) {
	for _, op := range ops {
		if op.Name == name {
			return op, true
		}
	}
	return driver.RedisOp{}, false
}

// redis writes the section of mcpgen on Redis: calls per server CPU second
// with and without Redis and what each call costs it (W1, W3), and what
// each operation of a session costs it (R).
func (r *report) redis(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if r.settings.RedisServer == "" {
		p("## mcpgen on Redis\n\nNot run: no redis-server (`-redis-server`).\n\n")
		return
	}
	p("## mcpgen on Redis: one replica with its sessions in Redis (redisstore)\n\n")
	p("`serve -impl mcpgen -redis ADDR`: sessions, events and routes in a redis-server of the run's own, pinned to the driver's core, ")
	p("which only the measured server uses. What Redis did is counted by Redis itself over the measured window: commands from `INFO commandstats` ")
	p("(a script's own calls included), round trips from `total_reads_processed` (a pipeline is one); left out are the pub/sub connection's ")
	p("health-check PING, the HELLO of a connection the pool dials and the meter's own INFO. The figures include the server's background work ")
	p("during the window.\n\n")
	p("| workload | calls per server CPU s, in memory | on Redis | on Redis vs in memory | Redis round trips per call | Redis commands per call | commands in the window |\n")
	p("|---|---:|---:|---:|---:|---:|---|\n")
	for _, w := range redisWorkloads {
		mem, res := r.results[w]["mcpgen"], r.results[w][onRedis]
		if res == nil || res.Redis == nil || res.Calls == 0 {
			p("| %s | | %s | | | | |\n", w, r.missing(w, onRedis))
			continue
		}
		memCPU := 0.0
		if mem != nil {
			memCPU = mem.CallsPerCPUSecond
		}
		calls := float64(res.Calls)
		p("| %s | %.0f | %.0f | %s | %.3g | %.3g | %s |\n", w, memCPU, res.CallsPerCPUSecond, ratio(res.CallsPerCPUSecond, memCPU),
			float64(res.Redis.RoundTrips)/calls, float64(res.Redis.Commands)/calls, res.Redis)
	}
	p("\n### What each operation of a session costs Redis (workload R)\n\n")
	p("Each operation once on its own, after a run of it unmeasured (connections dialled, scripts loaded), on a server ticking every %s; ", redisKeepAlive)
	p("a measurement ends when Redis has seen no command for 150 ms, so that work the server finishes after the client saw the end is counted. ")
	p("The keep-alive rows divide what 5 ticks (20 sessions over 10 ticks) cost.\n\n")
	ops := r.results[driver.R][onRedis]
	if ops == nil {
		p("%s\n\n", r.missing(driver.R, onRedis))
		return
	}
	p("| operation (2025-11-25 session unless said) | round trips | commands | counted |\n|---|---:|---:|---|\n")
	for _, op := range ops.Ops {
		counted := op.Cost.String()
		if op.Per > 1 {
			counted = fmt.Sprintf("in %d: %s", op.Per, counted)
		}
		p("| %s | %.3g | %.3g | %s |\n", op.Name, op.RoundTrips(), op.Commands(), counted)
	}
	p("\n")
}

func (r *report) cpu(w, name string) float64 {
	if res := r.results[w][name]; res != nil {
		return res.CallsPerCPUSecond
	}
	return 0
}

func (r *report) missing(w, name string) string {
	if msg, ok := r.failures[w][name]; ok {
		if len(msg) > 80 {
			msg = msg[:80] + "…"
		}
		return "failed: " + strings.ReplaceAll(msg, "|", "\\|")
	}
	return "not supported"
}

func us(v float64) string {
	if v >= 10000 {
		return fmt.Sprintf("%.1f ms", v/1000)
	}
	return fmt.Sprintf("%.0f µs", v)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func goVersion() string {
	out, err := exec.Command("go", "version").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "go version ")
}

// loadAvg returns the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return strings.TrimSpace(string(b))
}
