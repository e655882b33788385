package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/bench/internal/memstat"
)

// Workloads, by name.
const (
	W1 = "W1" // tools/call add in a legacy session
	W2 = "W2" // tools/call add, stateless 2026-07-28
	W3 = "W3" // confirm: elicitation round trip, POST-only client
	W4 = "W4" // memory per idle legacy session
	W5 = "W5" // W1's latency while slow clients trickle their requests
	R  = "R"  // what each operation of a session costs the server's Redis
)

// Config is one run of one workload against one server.
type Config struct {
	// URL is the MCP endpoint; the debug endpoint is found beside it.
	URL string
	// Workload is W1..W5.
	Workload string
	// Concurrency is the number of clients sending back to back (W1-W3, W5),
	// or opening sessions (W4).
	Concurrency int
	// Duration and Warmup bound the measured and the unmeasured part.
	Duration, Warmup time.Duration
	// Sessions is how many idle sessions W4 opens.
	Sessions int
	// SlowClients and SlowDelay shape W5: each slow client writes its request
	// and reads its response a few bytes at a time, SlowDelay apart.
	SlowClients int
	SlowDelay   time.Duration
	// RedisAddr is the Redis the server keeps its sessions in, if any: the
	// driver then counts what the measured window (or, in R, each
	// operation) cost it. Nothing else may use that Redis meanwhile.
	RedisAddr string
	// KeepAlive is the server's keep-alive interval (R's keep-alive rows).
	KeepAlive time.Duration
}

// Result is what one run measured.
type Result struct {
	Workload    string  `json:"workload"`
	Concurrency int     `json:"concurrency"`
	Calls       int64   `json:"calls"`
	Errors      int64   `json:"errors"`
	FirstError  string  `json:"firstError,omitempty"`
	Seconds     float64 `json:"seconds"`
	Throughput  float64 `json:"throughput"` // completed calls per second
	P50Micros   float64 `json:"p50us"`
	P99Micros   float64 `json:"p99us"`
	// ServerCPUSeconds is user+system CPU time the server process used while
	// measured; CallsPerCPUSecond is Calls divided by it.
	ServerCPUSeconds  float64 `json:"serverCpuSeconds"`
	CallsPerCPUSecond float64 `json:"callsPerCpuSecond"`
	// W4: growth per idle session of live heap plus goroutine stacks (the
	// headline number), of the live heap alone, and of RSS.
	Sessions          int     `json:"sessions,omitempty"`
	BytesPerSession   float64 `json:"bytesPerSession,omitempty"`
	HeapPerSession    float64 `json:"heapPerSession,omitempty"`
	RSSPerSession     float64 `json:"rssPerSession,omitempty"`
	GoroutinesPerSess float64 `json:"goroutinesPerSession,omitempty"`
	// W5: calls the slow clients completed.
	SlowCalls int64 `json:"slowCalls,omitempty"`
	// Redis is what the measured window cost the server's Redis (with
	// Config.RedisAddr).
	Redis *RedisCost `json:"redis,omitempty"`
	// Ops is what each operation cost the server's Redis (R).
	Ops []RedisOp `json:"ops,omitempty"`
}

// Run runs cfg.Workload against cfg.URL. It stops by itself: every loop is
// bounded by cfg's durations (and W4 by cfg.Sessions).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	stats, err := ReadStats(ctx, cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("reading the server's debug endpoint: %w", err)
	}
	c := NewClient(cfg.URL, 2*cfg.Concurrency+cfg.SlowClients+4)
	defer c.Close()
	switch cfg.Workload {
	case W1, W2, W3, W5:
		return runCalls(ctx, c, cfg, stats.PID)
	case W4:
		return runSessions(ctx, c, cfg)
	case R:
		return runRedisOps(ctx, c, cfg)
	}
	return nil, fmt.Errorf("unknown workload %q", cfg.Workload)
}

// caller is one client's loop body; newCaller prepares one client (its
// session, if any) before the clock starts.
type caller func(ctx context.Context, i int64) error

func newCaller(ctx context.Context, c *Client, workload string) (caller, error) {
	switch workload {
	case W1, W5:
		s, err := c.Initialize(ctx, false)
		if err != nil {
			return nil, err
		}
		return s.CallAdd, nil
	case W2:
		m := c.Stateless()
		return m.CallAdd, nil
	case W3:
		s, err := c.Initialize(ctx, true)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, _ int64) error { return s.Confirm(ctx) }, nil
	}
	return nil, fmt.Errorf("unknown workload %q", workload)
}

// maxSamples bounds the latency samples one client keeps.
const maxSamples = 1 << 20

func runCalls(ctx context.Context, c *Client, cfg Config, pid int) (*Result, error) {
	callers := make([]caller, cfg.Concurrency)
	for i := range callers {
		f, err := newCaller(ctx, c, cfg.Workload)
		if err != nil {
			return nil, fmt.Errorf("client %d: %w", i, err)
		}
		callers[i] = f
	}
	// One context bounds the whole run; a stuck call cannot outlive it.
	runCtx, cancel := context.WithTimeout(ctx, cfg.Warmup+cfg.Duration+10*time.Second)
	defer cancel()

	var measuring atomic.Bool
	var stop atomic.Bool
	var errs atomic.Int64
	var firstErr atomic.Value
	samples := make([][]time.Duration, cfg.Concurrency)
	var wg sync.WaitGroup
	for i, call := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := make([]time.Duration, 0, 4096)
			for n := int64(1); !stop.Load(); n++ {
				callCtx, cancelCall := context.WithTimeout(runCtx, 10*time.Second)
				start := time.Now()
				err := call(callCtx, n)
				d := time.Since(start)
				cancelCall()
				if !measuring.Load() {
					continue
				}
				if err != nil {
					if errs.Add(1) == 1 {
						firstErr.Store(err.Error())
					}
					if runCtx.Err() != nil {
						break
					}
					continue
				}
				if len(own) < maxSamples {
					own = append(own, d)
				}
			}
			samples[i] = own
		}()
	}
	var slowCalls atomic.Int64
	var slowWG sync.WaitGroup
	if cfg.Workload == W5 {
		for range cfg.SlowClients {
			s, err := c.Initialize(ctx, false)
			if err != nil {
				stop.Store(true)
				wg.Wait()
				return nil, fmt.Errorf("slow client: %w", err)
			}
			slowWG.Add(1)
			go func() {
				defer slowWG.Done()
				for n := int64(1); !stop.Load(); n++ {
					if err := s.slowCallAdd(runCtx, n, cfg.SlowDelay); err != nil {
						if measuring.Load() && errs.Add(1) == 1 {
							firstErr.Store("slow client: " + err.Error())
						}
						if runCtx.Err() != nil {
							return
						}
						continue
					}
					if measuring.Load() {
						slowCalls.Add(1)
					}
				}
			}()
		}
	}

	timer := time.NewTimer(cfg.Warmup)
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
	cpu0, err := ProcessCPU(pid)
	var meter *RedisMeter
	var redis0 RedisCounts
	if err == nil && cfg.RedisAddr != "" {
		meter = NewRedisMeter(cfg.RedisAddr)
		defer meter.Close()
		redis0, err = meter.Read(ctx)
	}
	if err != nil {
		stop.Store(true)
		wg.Wait()
		slowWG.Wait()
		return nil, err
	}
	start := time.Now()
	measuring.Store(true)
	timer.Reset(cfg.Duration)
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
	measuring.Store(false)
	elapsed := time.Since(start)
	cpu1, err := ProcessCPU(pid)
	var redisCost *RedisCost
	if err == nil && meter != nil {
		var redis1 RedisCounts
		if redis1, err = meter.Read(ctx); err == nil {
			c := Since(redis0, redis1)
			redisCost = &c
		}
	}
	stop.Store(true)
	wg.Wait()
	slowWG.Wait()
	if err != nil {
		return nil, err
	}

	all := slices.Concat(samples...)
	slices.Sort(all)
	r := &Result{
		Workload:         cfg.Workload,
		Concurrency:      cfg.Concurrency,
		Calls:            int64(len(all)),
		Errors:           errs.Load(),
		Seconds:          elapsed.Seconds(),
		ServerCPUSeconds: (cpu1 - cpu0).Seconds(),
		SlowCalls:        slowCalls.Load(),
		Redis:            redisCost,
	}
	if s, ok := firstErr.Load().(string); ok {
		r.FirstError = s
	}
	r.Throughput = float64(r.Calls) / r.Seconds
	if r.ServerCPUSeconds > 0 {
		r.CallsPerCPUSecond = float64(r.Calls) / r.ServerCPUSeconds
	}
	if len(all) > 0 {
		r.P50Micros = micros(all[len(all)*50/100])
		r.P99Micros = micros(all[min(len(all)-1, len(all)*99/100)])
	}
	return r, nil
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// runSessions opens cfg.Sessions idle sessions and reports how much the
// server's live heap and RSS grew per session.
func runSessions(ctx context.Context, c *Client, cfg Config) (*Result, error) {
	// Every 100th session is kept to check afterwards that the server still
	// holds it: memory freed by dropping sessions would otherwise look good.
	var sample []*Session
	var sampleMu sync.Mutex
	open := func(n int) error {
		var next atomic.Int64
		var firstErr error
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range min(cfg.Concurrency, n) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1)
					if i > int64(n) {
						return
					}
					s, err := c.Initialize(ctx, false)
					if err != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						return
					}
					if i%100 == 0 {
						sampleMu.Lock()
						sample = append(sample, s)
						sampleMu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		return firstErr
	}
	// Warm up lazily built structures (maps, pools) before the baseline.
	if err := open(100); err != nil {
		return nil, err
	}
	before, err := ReadStats(ctx, cfg.URL)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := open(cfg.Sessions); err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	after, err := ReadStats(ctx, cfg.URL)
	if err != nil {
		return nil, err
	}
	for i, s := range sample {
		if err := s.CallAdd(ctx, int64(i)); err != nil {
			return nil, fmt.Errorf("session %d of %d no longer works after the measurement: %w", i+1, len(sample), err)
		}
	}
	n := float64(cfg.Sessions)
	return &Result{
		Workload:          W4,
		Concurrency:       cfg.Concurrency,
		Calls:             int64(cfg.Sessions),
		Seconds:           elapsed.Seconds(),
		Throughput:        n / elapsed.Seconds(),
		Sessions:          cfg.Sessions,
		BytesPerSession:   (float64(after.HeapAlloc+after.StackInuse) - float64(before.HeapAlloc+before.StackInuse)) / n,
		HeapPerSession:    (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n,
		RSSPerSession:     (float64(after.RSS) - float64(before.RSS)) / n,
		GoroutinesPerSess: float64(after.Goroutines-before.Goroutines) / n,
	}, nil
}

// ReadStats fetches the serve command's /debug/memstats beside url.
func ReadStats(ctx context.Context, url string) (*memstat.Stats, error) {
	base := strings.TrimSuffix(url, "/mcp")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+memstat.Path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", memstat.Path, resp.StatusCode)
	}
	var s memstat.Stats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return nil, err
	}
	return &s, nil
}

var clockTicks = sync.OnceValue(func() float64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if n, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); err == nil && n > 0 {
			return n
		}
	}
	return 100 // the Linux default
})

// ProcessCPU returns the user+system CPU time of process pid, from
// /proc/PID/stat (fields 14 and 15, in clock ticks).
func ProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields after it start past
	// its closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("malformed /proc stat times")
	}
	return time.Duration((utime + stime) / clockTicks() * float64(time.Second)), nil
}
