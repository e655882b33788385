// Command redisload measures what Redis costs under load (workload L):
// three replicas of the mcpgen server behind a round-robin proxy with no
// stickiness, on one Redis and on a Redis Cluster of three primaries, each
// started here on free loopback ports in a temporary folder. It opens
// -idle sessions that stay idle and runs -busy sessions doing plain calls
// back to back for -d, and prints, for each deployment, the commands and
// round trips per call (INFO commandstats and total_reads_processed, summed
// over the nodes) and Redis's memory per idle session (used_memory).
//
//	go run ./cmd/redisload                                  # 200 busy, 1,000 idle, 10s, both deployments
//	go run ./cmd/redisload -busy 20 -idle 100 -d 1s -shapes single   # the smoke run
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/bench/driver"
	"github.com/redis/go-redis/v9"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "redisload:", err)
		os.Exit(1)
	}
}

func run() error {
	defaultRedis, _ := exec.LookPath("redis-server")
	server := flag.String("redis-server", defaultRedis, "the redis-server binary")
	shapes := flag.String("shapes", "single,cluster", "deployments to measure: single, cluster")
	replicas := flag.Int("replicas", 3, "server replicas behind the proxy")
	busy := flag.Int("busy", 200, "sessions doing plain calls back to back")
	idle := flag.Int("idle", 1000, "sessions opened and left idle")
	d := flag.Duration("d", 10*time.Second, "duration of the busy phase")
	flag.Parse()
	if *server == "" {
		return errors.New("no redis-server (-redis-server)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "mcpgen-redisload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	serve := filepath.Join(dir, "serve")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", serve, "./cmd/serve").CombinedOutput(); err != nil {
		return fmt.Errorf("building serve: %v\n%s", err, out)
	}
	fmt.Printf("| deployment | busy sessions | calls/s | Redis commands per call | round trips per call | commands (busy phase) | idle sessions | keys per idle session | MEMORY USAGE per idle session | used_memory growth per idle session |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|\n")
	for _, shape := range strings.Split(*shapes, ",") {
		r, err := measure(ctx, shape, *server, serve, filepath.Join(dir, shape), *replicas, driver.LoadConfig{Busy: *busy, Idle: *idle, Duration: *d})
		if err != nil {
			return fmt.Errorf("%s: %w", shape, err)
		}
		name := "one Redis"
		if shape == "cluster" {
			name = "Redis Cluster, 3 primaries"
		}
		fmt.Printf("| %s | %d | %.0f | %.3f | %.3f | %s | %d | %.1f | %.0f B | %.0f B |\n", name, r.Busy, r.CallsPerSecond, r.CommandsPerCall,
			r.RoundTripsPerCall, r.Cost.String(), r.Idle, r.KeysPerIdle, r.KeyBytesPerIdle, r.BytesPerIdle)
	}
	return nil
}

// measure starts the deployment, the replicas and the proxy, runs the
// workload and stops everything.
func measure(ctx context.Context, shape, server, serve, dir string, replicas int, cfg driver.LoadConfig) (*driver.LoadResult, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var nodes []string
	var spec string
	switch shape {
	case "single":
		addr, stop, err := startRedis(ctx, server, filepath.Join(dir, "redis"))
		if err != nil {
			return nil, err
		}
		defer stop()
		nodes, spec = []string{addr}, addr
	case "cluster":
		addrs, stop, err := startCluster(ctx, server, dir)
		if err != nil {
			return nil, err
		}
		defer stop()
		nodes, spec = addrs, "cluster:"+strings.Join(addrs, ",")
	default:
		return nil, fmt.Errorf("unknown deployment %q", shape)
	}
	var backends []*url.URL
	for range replicas {
		u, stop, err := startServe(ctx, serve, spec)
		if err != nil {
			return nil, err
		}
		defer stop()
		backends = append(backends, u)
	}
	proxy, stop, err := roundRobin(backends)
	if err != nil {
		return nil, err
	}
	defer stop()
	cfg.URL, cfg.Nodes = proxy, nodes
	return driver.RunLoad(ctx, cfg)
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port, nil
}

// startRedis starts one redis-server persisting nothing; extra args follow.
func startRedis(ctx context.Context, server, dir string, extra ...string) (string, func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	addr := "127.0.0.1:" + port
	cmd := exec.CommandContext(ctx, server, append([]string{"--bind", "127.0.0.1", "--port", port, "--dir", dir,
		"--save", "", "--appendonly", "no", "--logfile", "redis.log"}, extra...)...)
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting redis-server: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() { _ = cmd.Process.Kill(); <-exited }
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		pctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		err := c.Ping(pctx).Err()
		cancel()
		if err == nil {
			return addr, stop, nil
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			return "", nil, fmt.Errorf("redis-server exited: %s", b)
		case <-time.After(20 * time.Millisecond): // a process that is starting
		}
	}
	stop()
	return "", nil, errors.New("redis-server did not answer within 10s")
}

// startCluster starts three primaries, gives each a third of the slots and
// joins them (what redis-cli --cluster create does), and waits until every
// node reports the cluster ok.
func startCluster(ctx context.Context, server, dir string) ([]string, func(), error) {
	var addrs, buses []string
	var stops []func()
	stopAll := func() {
		for _, s := range stops {
			s()
		}
	}
	for i := range 3 {
		bus, err := freePort()
		if err != nil {
			stopAll()
			return nil, nil, err
		}
		addr, stop, err := startRedis(ctx, server, filepath.Join(dir, fmt.Sprint("node-", i)),
			"--cluster-enabled", "yes", "--cluster-port", bus, "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000")
		if err != nil {
			stopAll()
			return nil, nil, err
		}
		addrs, buses, stops = append(addrs, addr), append(buses, bus), append(stops, stop)
	}
	ranges := [][2]int{{0, 5460}, {5461, 10922}, {10923, 16383}}
	for i, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a, DisableIdentity: true})
		err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", ranges[i][0], ranges[i][1]).Err()
		if err == nil && i > 0 {
			host, port, _ := net.SplitHostPort(addrs[0])
			err = c.Do(ctx, "CLUSTER", "MEET", host, port, buses[0]).Err() // the bus port is not port+10000
		}
		c.Close()
		if err != nil {
			stopAll()
			return nil, nil, fmt.Errorf("forming the cluster: %w", err)
		}
	}
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a, DisableIdentity: true})
		ok := false
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !ok; {
			info, _ := c.ClusterInfo(ctx).Result()
			ok = strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_known_nodes:3")
			if !ok {
				time.Sleep(100 * time.Millisecond) // the nodes gossip
			}
		}
		c.Close()
		if !ok {
			stopAll()
			return nil, nil, fmt.Errorf("the cluster node %s is not ok after 20s", a)
		}
	}
	return addrs, stopAll, nil
}

// startServe starts one replica (serve -impl mcpgen) on spec's Redis.
func startServe(ctx context.Context, serve, spec string) (*url.URL, func(), error) {
	cmd := exec.CommandContext(ctx, serve, "-impl", "mcpgen", "-addr", "127.0.0.1:0", "-redis", spec)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	// "serving mcpgen at http://ADDR/mcp (pid N)"
	f := strings.Fields(line)
	if err != nil || len(f) < 4 {
		stop()
		return nil, nil, fmt.Errorf("the server did not start: %q %v %s", line, err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	u, err := url.Parse(f[3])
	if err != nil {
		stop()
		return nil, nil, err
	}
	return u, stop, nil
}

// roundRobin serves a proxy that sends each request to the next backend
// in turn, whatever session it belongs to, and streams responses as they
// come (no buffering of event streams).
func roundRobin(backends []*url.URL) (string, func(), error) {
	var next atomic.Uint64
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			b := backends[int(next.Add(1)-1)%len(backends)]
			r.SetURL(&url.URL{Scheme: b.Scheme, Host: b.Host})
			r.Out.URL.Path = b.Path
		},
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0), // requests the driver ends at the end of its window
		Transport:     &http.Transport{MaxIdleConnsPerHost: 512, IdleConnTimeout: 90 * time.Second},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/mcp", func() { _ = srv.Close() }, nil
}
