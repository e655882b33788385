package interop

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// serverURL is the Streamable HTTP endpoint every Go client test talks to,
// and serverBin the server's binary, which the stdio tests start with -stdio.
var serverURL, serverBin string

// defaultServerPkg is the generated server under test: the conformance
// example, started as a real process.
const defaultServerPkg = "examples/conformance"

// TestMain uses the server at $INTEROP_URL built as $INTEROP_SERVER_BIN
// (interop/run.sh starts one for all clients) or builds and starts its own from $INTEROP_SERVER_PKG (the
// directory of a main package relative to the repository root, default the
// conformance example) on a free loopback port, and stops it at the end.
func TestMain(m *testing.M) {
	serverURL, serverBin = os.Getenv("INTEROP_URL"), os.Getenv("INTEROP_SERVER_BIN")
	if serverURL != "" && serverBin != "" {
		os.Exit(m.Run())
	}
	stop, url, bin, err := startServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop: starting the server under test:", err)
		os.Exit(1)
	}
	serverURL, serverBin = url, bin
	code := m.Run()
	stop()
	os.Exit(code)
}

func startServer() (stop func(), url, bin string, err error) {
	pkg := os.Getenv("INTEROP_SERVER_PKG")
	if pkg == "" {
		pkg = defaultServerPkg
	}
	dir, err := os.MkdirTemp("", "mcpgen-interop-")
	if err != nil {
		return nil, "", "", err
	}
	bin = filepath.Join(dir, "server")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", pkg) // built in the module that holds it
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return nil, "", "", fmt.Errorf("go build %s: %w", pkg, err)
	}
	addr, err := freeLoopbackAddr()
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", "", err
	}
	cmd := exec.Command(bin, "-addr", addr)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, "", "", err
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
		return nil, "", "", err
	}
	return stop, "http://" + addr + "/mcp", bin, nil
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

// startStdio starts the server under test with -stdio for one test and
// returns its stdout and stdin with tap recording what crosses them; the
// process is stopped when the test ends.
func startStdio(t *testing.T, tap *wireTap) (io.ReadCloser, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(serverBin, "-stdio")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	return &lineTap{ReadCloser: stdout, note: func(b []byte) { tap.noteIncoming("stdio", b) }},
		&lineWriteTap{WriteCloser: stdin, note: tap.noteRequest}
}

// lineTap passes newline-delimited JSON-RPC through and records each line.
type lineTap struct {
	io.ReadCloser
	note    func([]byte)
	pending []byte
}

func (l *lineTap) Read(p []byte) (int, error) {
	n, err := l.ReadCloser.Read(p)
	l.pending = append(l.pending, p[:n]...)
	eachLine(&l.pending, func(line []byte) { l.note(bytes.Clone(line)) })
	return n, err
}

// lineWriteTap records each line the client writes.
type lineWriteTap struct {
	io.WriteCloser
	mu      sync.Mutex
	note    func([]byte)
	pending []byte
}

func (l *lineWriteTap) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.pending = append(l.pending, p...)
	eachLine(&l.pending, func(line []byte) { l.note(bytes.Clone(line)) })
	l.mu.Unlock()
	return l.WriteCloser.Write(p)
}
