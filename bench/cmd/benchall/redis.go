package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"time"

	"github.com/redis/go-redis/v9"
)

// privateRedis is the redis-server of one benchall run: on a free loopback
// port, in a temporary folder, persisting nothing, pinned to the driver's
// core so that it does not take the server's. Only the measured server
// uses it, so its counters are that server's.
type privateRedis struct {
	addr, dir string
	cmd       *exec.Cmd
	exited    chan struct{}
}

func startRedis(ctx context.Context, pin map[string][]string, bin string) (*privateRedis, error) {
	dir, err := os.MkdirTemp("", "mcpgen-bench-redis-")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	r := &privateRedis{addr: net.JoinHostPort("127.0.0.1", port), dir: dir, exited: make(chan struct{})}
	r.cmd = command(ctx, pin, "driver", bin, "--bind", "127.0.0.1", "--port", port, "--dir", dir,
		"--save", "", "--appendonly", "no", "--logfile", "redis.log")
	if err := r.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting redis-server: %w", err)
	}
	go func() { _ = r.cmd.Wait(); close(r.exited) }()
	c := redis.NewClient(&redis.Options{Addr: r.addr, MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		pctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		err := c.Ping(pctx).Err()
		cancel()
		if err == nil {
			return r, nil
		}
		select {
		case <-r.exited:
			b, _ := os.ReadFile(dir + "/redis.log")
			os.RemoveAll(dir)
			return nil, fmt.Errorf("redis-server exited: %s", b)
		case <-time.After(20 * time.Millisecond): // a process that is starting
		}
		if time.Now().After(deadline) {
			r.stop()
			return nil, errors.New("redis-server did not answer within 10s")
		}
	}
}

func (r *privateRedis) stop() {
	_ = r.cmd.Process.Kill()
	<-r.exited
	os.RemoveAll(r.dir)
}

// flushRedis empties the Redis before a run, so that each starts alike.
func flushRedis(ctx context.Context, addr string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true})
	defer c.Close()
	if err := c.FlushAll(ctx).Err(); err != nil {
		return fmt.Errorf("emptying the benchmark's Redis on %s: %w", addr, err)
	}
	return nil
}
