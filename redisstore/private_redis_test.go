package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
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

// shorten groups error messages: ports, IDs and numbers vary.
func shorten(s string) string {
	s = regexp.MustCompile(`[0-9a-f]{16}-[0-9]+|[0-9]+`).ReplaceAllString(s, "N")
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}
