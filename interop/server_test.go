package interop

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// serverURL is the Streamable HTTP endpoint every Go client test talks to.
var serverURL string

// defaultServerPkg is the generated server under test: the conformance
// example, started as a real process.
const defaultServerPkg = "examples/conformance"

// TestMain uses the server at $INTEROP_URL (interop/run.sh starts one for all
// clients) or builds and starts its own from $INTEROP_SERVER_PKG (the
// directory of a main package relative to the repository root, default the
// conformance example) on a free loopback port, and stops it at the end.
func TestMain(m *testing.M) {
	serverURL = os.Getenv("INTEROP_URL")
	if serverURL != "" {
		os.Exit(m.Run())
	}
	stop, url, err := startServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop: starting the server under test:", err)
		os.Exit(1)
	}
	serverURL = url
	code := m.Run()
	stop()
	os.Exit(code)
}

func startServer() (stop func(), url string, err error) {
	pkg := os.Getenv("INTEROP_SERVER_PKG")
	if pkg == "" {
		pkg = defaultServerPkg
	}
	dir, err := os.MkdirTemp("", "mcpgen-interop-")
	if err != nil {
		return nil, "", err
	}
	bin := filepath.Join(dir, "server")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", pkg) // built in the module that holds it
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return nil, "", fmt.Errorf("go build %s: %w", pkg, err)
	}
	addr, err := freeLoopbackAddr()
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	cmd := exec.Command(bin, "-addr", addr)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	stop = func() {
		_ = cmd.Process.Kill()
		<-exited
		os.RemoveAll(dir)
	}
	if err := waitListening(addr, exited); err != nil {
		stop()
		return nil, "", err
	}
	return stop, "http://" + addr + "/mcp", nil
}

// freeLoopbackAddr asks the kernel for a free port on 127.0.0.1.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitListening polls until addr accepts connections, the server exits, or
// a minute passes.
func waitListening(addr string, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("the server exited before listening on %s", addr)
		case <-ctx.Done():
			return fmt.Errorf("the server did not listen on %s within a minute", addr)
		case <-tick.C:
		}
	}
}
