// Command benchall runs every workload against every implementation, with
// the server and the driver pinned to different cores, runs the in-process
// Go benchmarks, and writes the tables to a Markdown file:
//
//	go run ./cmd/benchall              # the full run, writes RESULTS.md
//	go run ./cmd/benchall -smoke -out /tmp/smoke.md   # seconds, for CI
//
// It exits non-zero when an implementation fails a workload it claims to
// support. Everything it starts listens on 127.0.0.1 and is stopped before
// it returns.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/bench/driver"
	"github.com/mcpgen/mcpgen/bench/impl"
)

type settings struct {
	Smoke       bool
	Out         string
	Impls       []string
	Duration    time.Duration
	Warmup      time.Duration
	Concurrency int
	Sessions    int
	Slow        int
	SlowDelay   time.Duration
	Reps        int
	BenchTime   string
	ServerCore  string
	DriverCore  string
	// Profile, when set, is a folder that gets a CPU profile of every mcpgen
	// run (mcpgen_W1.pprof, ...), taken over the measured window.
	Profile string
	// RedisServer is the redis-server binary of the Redis runs (mcpgen with
	// its sessions in Redis); "" skips them.
	RedisServer string
}

// onRedis names mcpgen's runs with its sessions in Redis in the results.
const onRedis = "mcpgen+redis"

// redisWorkloads are the workloads also run with mcpgen on Redis.
var redisWorkloads = []string{driver.W1, driver.W3}

// redisKeepAlive is the server's keep-alive interval in workload R, short
// so that its keep-alive rows take seconds.
const redisKeepAlive = 200 * time.Millisecond

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchall:", err)
		os.Exit(1)
	}
}

func run() error {
	var st settings
	impls := flag.String("impls", strings.Join(impl.Names(), ","), "implementations to run, comma-separated")
	workloads := flag.String("workloads", "W1,W2,W3,W4,W5", "workloads to run, comma-separated")
	flag.BoolVar(&st.Smoke, "smoke", false, "a short run (seconds) that only checks every workload completes")
	flag.StringVar(&st.Out, "out", "RESULTS.md", "Markdown file to write")
	flag.DurationVar(&st.Duration, "d", 5*time.Second, "measured duration of one run")
	flag.DurationVar(&st.Warmup, "warmup", time.Second, "warm-up before each measured run")
	flag.IntVar(&st.Concurrency, "c", 16, "concurrent clients")
	flag.IntVar(&st.Sessions, "sessions", 10000, "W4: idle sessions")
	flag.IntVar(&st.Slow, "slow", 16, "W5: slow clients")
	flag.DurationVar(&st.SlowDelay, "slow-delay", 2*time.Millisecond, "W5: a slow client's pause between 8-byte writes and 16-byte reads")
	flag.IntVar(&st.Reps, "reps", 5, "runs per implementation and workload; each figure in the table is the median across them")
	flag.StringVar(&st.BenchTime, "benchtime", "3000x", "go test -benchtime for the in-process benchmarks")
	flag.StringVar(&st.ServerCore, "server-core", "1", "CPU the server is pinned to")
	flag.StringVar(&st.DriverCore, "driver-core", "0", "CPU the driver is pinned to")
	flag.StringVar(&st.Profile, "profile", "", "folder for CPU profiles of the mcpgen server during each workload (go tool pprof)")
	defaultRedis, _ := exec.LookPath("redis-server")
	flag.StringVar(&st.RedisServer, "redis-server", defaultRedis, "redis-server binary for the runs of mcpgen on Redis (\"\" skips them)")
	flag.Parse()
	st.Impls = strings.Split(*impls, ",")
	if st.Smoke {
		st.Duration, st.Warmup, st.Concurrency, st.Sessions, st.Slow, st.Reps, st.BenchTime = time.Second, 200*time.Millisecond, 4, 300, 2, 1, "50x"
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Hour)
	defer cancel()

	bin, err := os.MkdirTemp("", "mcpgen-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	for _, cmd := range []string{"serve", "drive"} {
		out, err := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, cmd), "./cmd/"+cmd).CombinedOutput()
		if err != nil {
			return fmt.Errorf("building %s: %v\n%s", cmd, err, out)
		}
	}
	pin := pinning(st)
	report := &report{settings: st, pinned: pin != nil, loadStart: loadAvg(), results: map[string]map[string]*driver.Result{}, failures: map[string]map[string]string{}}
	var redisAddr string
	if st.RedisServer != "" {
		rd, err := startRedis(ctx, pin, st.RedisServer)
		if err != nil {
			return err
		}
		defer rd.stop()
		redisAddr = rd.addr
	}

	// record keeps one run's result and, after the last of a workload's
	// runs, their median in the report; false when the run failed.
	runs := map[string][]*driver.Result{} // by workload and name
	failed := map[string]bool{}
	record := func(w, name string, r *driver.Result, err error, last bool) bool {
		key := w + " " + name
		if err != nil {
			if ctx.Err() == nil {
				failed[key] = true
				report.fail(w, name, err.Error())
				fmt.Fprintf(os.Stderr, "%s %-6s FAILED: %s\n", w, name, err)
			}
			return false
		}
		runs[key] = append(runs[key], r)
		if last {
			m := median(runs[key])
			report.add(w, name, m)
			fmt.Fprintf(os.Stderr, "%s %-6s %s\n", w, name, summary(m))
		}
		return true
	}
	for _, w := range strings.Split(*workloads, ",") {
		reps := st.Reps
		if w == driver.W4 {
			reps = 1
		}
		// Repetitions go round the implementations, so that a burst of other
		// work on the machine does not land on one implementation's runs only.
		for rep := range reps {
			for _, name := range st.Impls {
				im, err := impl.Get(name)
				if err != nil {
					return err
				}
				if !supports(im, w) || failed[w+" "+name] {
					continue
				}
				r, err := runOne(ctx, bin, pin, st, name, w, "")
				record(w, name, r, err, rep == reps-1)
			}
			if redisAddr != "" && slices.Contains(redisWorkloads, w) && !failed[w+" "+onRedis] {
				r, err := runOne(ctx, bin, pin, st, "mcpgen", w, redisAddr)
				record(w, onRedis, r, err, rep == reps-1)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	if redisAddr != "" {
		r, err := runOne(ctx, bin, pin, st, "mcpgen", driver.R, redisAddr)
		record(driver.R, onRedis, r, err, true)
	}

	benches, err := goBenchmarks(ctx, pin, st)
	if err != nil {
		report.fail("bench", "go test", err.Error())
		fmt.Fprintln(os.Stderr, "go benchmarks FAILED:", err)
	}
	report.benches = benches
	report.loadEnd = loadAvg()

	if err := os.WriteFile(st.Out, []byte(report.markdown()), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "wrote", st.Out)
	if n := report.failureCount(); n > 0 {
		return fmt.Errorf("%d workload(s) failed", n)
	}
	return nil
}

func supports(im impl.Impl, w string) bool {
	switch w {
	case driver.W2:
		return im.Modern
	case driver.W3:
		return im.Elicit
	case driver.W4:
		return im.Sessions
	}
	return true
}

// pinning returns the taskset prefixes for server and driver, or nil when the
// machine has one core or no taskset.
func pinning(st settings) map[string][]string {
	if runtime.NumCPU() < 2 {
		return nil
	}
	ts, err := exec.LookPath("taskset")
	if err != nil {
		return nil
	}
	return map[string][]string{"server": {ts, "-c", st.ServerCore}, "driver": {ts, "-c", st.DriverCore}}
}

func command(ctx context.Context, pin map[string][]string, role string, args ...string) *exec.Cmd {
	if pin != nil {
		args = append(append([]string{}, pin[role]...), args...)
	}
	return exec.CommandContext(ctx, args[0], args[1:]...)
}

var servingLine = regexp.MustCompile(`at (http://\S+/mcp)`)

// runOne starts a fresh server, drives one workload at it, and stops it.
// With redisAddr, the server (mcpgen) keeps its sessions in that Redis,
// emptied first, and the driver counts what the run costs it.
func runOne(ctx context.Context, bin string, pin map[string][]string, st settings, name, w, redisAddr string) (*driver.Result, error) {
	profile := st.Profile != "" && name == "mcpgen" && w != driver.W4 && redisAddr == ""
	serveArgs := []string{filepath.Join(bin, "serve"), "-impl", name, "-addr", "127.0.0.1:0"}
	if profile {
		serveArgs = append(serveArgs, "-pprof")
	}
	var driveArgs []string
	if redisAddr != "" {
		if err := flushRedis(ctx, redisAddr); err != nil {
			return nil, err
		}
		serveArgs = append(serveArgs, "-redis", redisAddr)
		driveArgs = append(driveArgs, "-redis", redisAddr)
		if w == driver.R {
			// The replica's heartbeat (one round trip a second, whatever its
			// sessions do) past the run: R counts what sessions cost; the
			// heartbeat's cost is in redisstore's round-trip test.
			serveArgs = append(serveArgs, "-keepalive", redisKeepAlive.String(), "-heartbeat", "1h")
			driveArgs = append(driveArgs, "-keepalive", redisKeepAlive.String())
		}
	}
	srv := command(ctx, pin, "server", serveArgs...)
	var srvErr bytes.Buffer
	srv.Stderr = &srvErr
	stdout, err := srv.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		return nil, err
	}
	defer func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = srv.Process.Kill()
			<-done
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("server did not start: %v %s", err, srvErr.String())
	}
	m := servingLine.FindStringSubmatch(line)
	if m == nil {
		return nil, fmt.Errorf("unexpected server output %q", line)
	}
	args := []string{filepath.Join(bin, "drive"), "-json", "-url", m[1], "-w", w,
		"-c", strconv.Itoa(st.Concurrency), "-d", st.Duration.String(), "-warmup", st.Warmup.String(),
		"-sessions", strconv.Itoa(st.Sessions), "-slow", strconv.Itoa(st.Slow), "-slow-delay", st.SlowDelay.String()}
	args = append(args, driveArgs...)
	drv := command(ctx, pin, "driver", args...)
	var out, errOut bytes.Buffer
	drv.Stdout, drv.Stderr = &out, &errOut
	if err := drv.Start(); err != nil {
		return nil, err
	}
	var profErr error
	if profile {
		profErr = takeProfile(ctx, strings.TrimSuffix(m[1], "/mcp"), st, filepath.Join(st.Profile, "mcpgen_"+w+".pprof"))
	}
	runErr := drv.Wait()
	if profErr != nil {
		fmt.Fprintln(os.Stderr, "profile:", profErr)
	}
	var r driver.Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("driver: %v: %s", runErr, strings.TrimSpace(errOut.String()))
	}
	if runErr != nil {
		return nil, fmt.Errorf("%d of %d calls failed, first: %s", r.Errors, r.Calls+r.Errors, r.FirstError)
	}
	return &r, nil
}

// takeProfile waits out the driver's warm-up, then saves a CPU profile of the
// server covering the measured window.
func takeProfile(ctx context.Context, base string, st settings, path string) error {
	select {
	case <-time.After(st.Warmup + 100*time.Millisecond):
	case <-ctx.Done():
		return ctx.Err()
	}
	secs := max(1, int(st.Duration.Seconds())-1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/debug/pprof/profile?seconds="+strconv.Itoa(secs), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// median combines repeated runs: every reported figure is the median of its
// own values across the runs (so one noisy run moves no figure), and the
// counts (calls, errors, slow calls) are those of the run with the median
// calls per server CPU second.
func median(runs []*driver.Result) *driver.Result {
	med := func(get func(*driver.Result) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = get(r)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].CallsPerCPUSecond < runs[j].CallsPerCPUSecond })
	m := *runs[len(runs)/2]
	m.Throughput = med(func(r *driver.Result) float64 { return r.Throughput })
	m.P50Micros = med(func(r *driver.Result) float64 { return r.P50Micros })
	m.P99Micros = med(func(r *driver.Result) float64 { return r.P99Micros })
	m.ServerCPUSeconds = med(func(r *driver.Result) float64 { return r.ServerCPUSeconds })
	return &m
}

func summary(r *driver.Result) string {
	switch {
	case r.Workload == driver.W4:
		return fmt.Sprintf("%.0f B/session (heap %.0f, RSS %.0f)", r.BytesPerSession, r.HeapPerSession, r.RSSPerSession)
	case r.Workload == driver.R:
		var b strings.Builder
		for _, op := range r.Ops {
			fmt.Fprintf(&b, "\n    %s: %.3g round trips, %.3g commands", op.Name, op.RoundTrips(), op.Commands())
		}
		return "Redis per operation:" + b.String()
	case r.Redis != nil && r.Calls > 0:
		return fmt.Sprintf("%.0f calls/s, %.0f calls per server CPU second, %.3g Redis round trips and %.3g commands per call",
			r.Throughput, r.CallsPerCPUSecond, float64(r.Redis.RoundTrips)/float64(r.Calls), float64(r.Redis.Commands)/float64(r.Calls))
	}
	return fmt.Sprintf("%.0f calls/s, p50 %.0fµs, p99 %.0fµs, %.0f calls per server CPU second", r.Throughput, r.P50Micros, r.P99Micros, r.CallsPerCPUSecond)
}

// benchResult is one line of go test -bench output.
type benchResult struct {
	NsPerOp, BytesPerOp, AllocsPerOp float64
}

var benchLine = regexp.MustCompile(`^Benchmark(W\d)/impl=(\w+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) B/op\s+([\d.]+) allocs/op`)

// goBenchmarks runs the in-process benchmarks pinned to the server's core.
func goBenchmarks(ctx context.Context, pin map[string][]string, st settings) (map[string]map[string]benchResult, error) {
	cmd := command(ctx, pin, "server", "go", "test", "-run", "^$", "-bench", "^BenchmarkW", "-benchmem", "-benchtime", st.BenchTime, "./impl")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, tail(out))
	}
	res := map[string]map[string]benchResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
		if res[m[1]] == nil {
			res[m[1]] = map[string]benchResult{}
		}
		res[m[1]][m[2]] = benchResult{f(m[3]), f(m[4]), f(m[5])}
	}
	if len(res) == 0 {
		return nil, errors.New("no benchmark results in the output:\n" + tail(out))
	}
	return res, nil
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
