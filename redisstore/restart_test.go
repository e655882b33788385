package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// privateRedis is a redis-server of one test's own: one the test stops and
// starts again, or one whose counters only the test moves. With persist it
// writes every change to disk (appendfsync always), so sessions survive a
// restart the way they do with a production Redis that persists.
type privateRedis struct {
	bin, dir, addr string
	persist        bool
	cmd            *exec.Cmd
	exited         chan struct{}
}

func startPrivateRedis(t *testing.T, persist bool) *privateRedis {
	bin := os.Getenv("MCPGEN_REDIS_SERVER")
	if bin == "" {
		t.Skip("MCPGEN_REDIS_SERVER is not set: run redisstore/test.sh")
	}
	r := &privateRedis{bin: bin, dir: t.TempDir(), persist: persist}
	var last error
	for range 5 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		r.addr = ln.Addr().String()
		ln.Close()
		if last = r.start(); last == nil {
			t.Cleanup(r.stop)
			return r
		}
	}
	t.Fatalf("starting a private redis-server: %v", last)
	return nil
}

func (r *privateRedis) start() error {
	_, port, _ := net.SplitHostPort(r.addr)
	aof := []string{"--appendonly", "no"}
	if r.persist {
		aof = []string{"--appendonly", "yes", "--appendfsync", "always"}
	}
	r.cmd = exec.Command(r.bin, append([]string{"--bind", "127.0.0.1", "--port", port, "--dir", r.dir, "--save", "",
		"--logfile", "redis.log"}, aof...)...)
	if err := r.cmd.Start(); err != nil {
		return err
	}
	r.exited = make(chan struct{})
	cmd, exited := r.cmd, r.exited
	go func() { cmd.Wait(); close(exited) }()
	c := redis.NewClient(&redis.Options{Addr: r.addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			b, _ := os.ReadFile(r.dir + "/redis.log")
			return fmt.Errorf("redis-server exited: %s", b)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond) // polling a process that is starting
	}
	r.stop()
	return errors.New("redis-server did not answer within 10s")
}

// stop kills the server (no shutdown handshake: as an outage looks).
func (r *privateRedis) stop() {
	if r.cmd == nil {
		return
	}
	r.cmd.Process.Kill()
	<-r.exited
	r.cmd = nil
}

func TestRedisRestartUnderLoad(t *testing.T) {
	rd := startPrivateRedis(t, true)
	rs := startReplicas(t, 3, rd.addr, testPrefix(t), "-request-timeout", "3s", "-op-timeout", "1s")
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// phase 0: Redis up; 1: Redis down; 2: Redis back.
	var phase atomic.Int32
	var ok, failed [4]atomic.Int32 // by phase; [3]: calls that spanned a change
	var hung atomic.Int32
	var mu sync.Mutex
	errSamples := map[string]int{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var n atomic.Int64
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				p := phase.Load()
				k := int(n.Add(1))
				// Every call is bounded: a call still running after 20s is hung.
				cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
				o := s.ask(cctx, k, nil)
				expired := cctx.Err() != nil
				ccancel()
				if phase.Load() != p {
					p = 3 // spanned a change: may go either way
				}
				switch {
				case expired:
					hung.Add(1)
				case o.result != nil:
					if o.result.N != k || o.result.Value != answerValue(k) {
						t.Errorf("call %d got %+v", k, *o.result)
					}
					ok[p].Add(1)
				default:
					failed[p].Add(1)
					msg := o.toolError
					if o.err != nil {
						msg = o.err.Error()
					}
					mu.Lock()
					errSamples[shorten(msg)]++
					mu.Unlock()
				}
			}
		})
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			if ctx.Err() != nil {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(10 * time.Millisecond) // observing counters of running workers
		}
	}
	waitFor("20 calls with Redis up", func() bool { return ok[0].Load() >= 20 })
	phase.Store(1) // before the stop: a call that fails from here on may be the outage's
	rd.stop()
	outage := time.Now()
	waitFor("calls to fail while Redis is down", func() bool { return failed[1].Load() >= 8 })
	if err := rd.start(); err != nil {
		t.Fatal(err)
	}
	phase.Store(2)
	back := time.Now()
	waitFor("20 calls with Redis back", func() bool { return ok[2].Load() >= 20 })
	recovered := time.Since(back)
	close(stop)
	wg.Wait()

	t.Logf("Redis up: %d ok, %d failed; down %v: %d ok, %d failed; back: %d ok, %d failed, 20 ok within %v; spanning a change: %d ok, %d failed",
		ok[0].Load(), failed[0].Load(), back.Sub(outage).Round(time.Millisecond), ok[1].Load(), failed[1].Load(),
		ok[2].Load(), failed[2].Load(), recovered.Round(time.Millisecond), ok[3].Load(), failed[3].Load())
	for m, k := range errSamples {
		t.Logf("%4d x %s", k, m)
	}
	// Every failure names its cause: the store (503 "session store
	// unavailable", a request that could not be registered), an answer
	// refused as expired, or a stream the server ended (the client resumes it
	// with Last-Event-ID). Never "unknown request ID", never a hang.
	for m := range errSamples {
		if !clearOutageError(m) {
			t.Errorf("unclear error during the outage: %s", m)
		}
	}
	if h := hung.Load(); h > 0 {
		t.Fatalf("%d calls hung", h)
	}
	if failed[0].Load() > 0 {
		t.Errorf("%d calls failed before the outage", failed[0].Load())
	}
	// The session outlived the restart (Redis persisted it): same session ID.
	if m, _, err := s.rpc(ctx, c.pick(), "tools/list", map[string]any{}); err != nil || m.Error != nil {
		t.Fatalf("session after the restart: %v", err)
	}
}

// shorten groups error messages: ports, IDs and numbers vary.
func shorten(s string) string {
	s = regexp.MustCompile(`[0-9a-f]{16}-[0-9]+|[0-9]+`).ReplaceAllString(s, "N")
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}

func clearOutageError(m string) bool {
	for _, ok := range []string{"session store unavailable", "redisstore:", "request expired", "unexpected EOF"} {
		if strings.Contains(m, ok) {
			return true
		}
	}
	return false
}
