// Command serve serves the benchmark's two tools (add, confirm) from one
// implementation at /mcp:
//
//	go run ./cmd/serve -impl mcpgen|gosdk|mcpgo|floor -addr 127.0.0.1:PORT
//	go run ./cmd/serve -impl mcpgen -redis 127.0.0.1:6379   # sessions in Redis (redisstore), one replica
//
// It also serves GET /debug/memstats (JSON: pid, live heap after a full GC,
// RSS, goroutines), which the driver reads to measure memory per session and
// to find the process whose CPU time it counts; -pprof adds /debug/pprof/.
// SIGUSR1 prints the same stats to stderr. SIGINT/SIGTERM stop it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/bench/impl"
	"github.com/mcpgen/mcpgen/bench/internal/memstat"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
}

func run() error {
	name := flag.String("impl", "mcpgen", "implementation to serve: mcpgen, gosdk, mcpgo or floor")
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (keep it on loopback)")
	withPprof := flag.Bool("pprof", false, "also serve /debug/pprof/")
	redisAddr := flag.String("redis", "", "mcpgen only: keep sessions and events in this Redis (redisstore), as one replica does; cluster:HOST:PORT,... for a Redis Cluster")
	keepAlive := flag.Duration("keepalive", 0, "mcpgen only: the keep-alive interval (0: the runtime's default)")
	heartbeat := flag.Duration("heartbeat", 0, "mcpgen on Redis only: the store's heartbeat (0: its default)")
	flag.Parse()

	im, err := impl.Get(*name)
	if err != nil {
		return err
	}
	var h http.Handler
	if *redisAddr != "" || *keepAlive != 0 {
		if *name != "mcpgen" {
			return fmt.Errorf("-redis and -keepalive are for mcpgen only")
		}
		var done func()
		o := impl.MCPGenOptions{RedisAddr: *redisAddr, KeepAlive: *keepAlive, Heartbeat: *heartbeat}
		if nodes, ok := strings.CutPrefix(*redisAddr, "cluster:"); ok {
			o.RedisAddr, o.RedisCluster = "", strings.Split(nodes, ",")
		}
		h, done, err = impl.NewMCPGen(o)
		if err == nil {
			defer done()
		}
	} else {
		h, err = im.New()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *name, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.HandleFunc(memstat.Path, memstat.Handler)
	if *withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/heap", pprof.Index)
		mux.HandleFunc("/debug/pprof/allocs", pprof.Index)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("serving %s at http://%s/mcp (pid %d)\n", *name, ln.Addr(), os.Getpid())

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGUSR1)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	for {
		select {
		case err := <-errc:
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return err
		case s := <-sigs:
			if s == syscall.SIGUSR1 {
				_ = json.NewEncoder(os.Stderr).Encode(memstat.Read())
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = srv.Shutdown(ctx) // long-lived SSE streams do not drain; Close below ends them
			cancel()
			_ = srv.Close()
			return nil
		}
	}
}
