package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// soakRounds is how often TestSoak repeats its load, each time waiting for
// the bounds to run out: about a minute in all.
const soakRounds = 10

var soak = flag.Bool("soak", false, "run TestSoak: about a minute of abandoned, slow and abusive clients against a real server")

// TestSoak puts a server on loopback through what abandoned and abusive
// clients do (eliciting calls left unanswered, slow readers that disconnect,
// oversized clientInfo and messages, more sessions than allowed, bodies
// trickled a byte at a time, a shutdown mid-call) with short bounds, then
// checks that goroutines and open file descriptors return to their
// baseline once the bounds have run out, that the heap stays under its
// ceiling, and that every request a client waited for got exactly one
// response. scripts/test.sh runs it with -soak.
func TestSoak(t *testing.T) {
	if !*soak {
		t.Skip("run with -soak")
	}
	const heapCeiling = 128 << 20
	// Every bound keeps its default but the time bounds, which are scaled
	// down so that they run out within the test, and MaxSessions: creating
	// its default 10,000 sessions takes longer than the scaled-down idle
	// timeout lets one live.
	opts := Options{
		KeepAlive: 100 * time.Millisecond, SessionIdleTimeout: 2 * time.Second, ResumeWindow: 500 * time.Millisecond,
		RequestTimeout: 3 * time.Second, FallbackWait: 100 * time.Millisecond,
		BodyReadTimeout: 1500 * time.Millisecond, IdleTimeout: time.Second, ShutdownTimeout: 500 * time.Millisecond,
		MaxSessions: 300,
	}
	big := strings.Repeat("x", 256<<10)
	slowRunning := make(chan struct{}, 16)
	s := NewServer(opts)
	for _, tool := range []Tool{
		confirmTool(),
		toolOf("flood", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			for i := 0; ; i++ {
				if err := call.Progress(ctx, float64(i), 0, big[:64<<10]); err != nil {
					return nil, err
				}
			}
		}),
		toolOf("echo", `{"type":"object"}`, func(_ context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
			return ContentResult(call, []Content{Text(string(args))}), nil
		}),
		toolOf("slow", `{"type":"object"}`, func(ctx context.Context, _ *Call, _ json.RawMessage) (*ToolResult, error) {
			slowRunning <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}),
		toolOf("hold", `{"type":"object"}`, func(ctx context.Context, _ *Call, _ json.RawMessage) (*ToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
	} {
		if err := s.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	spawn, releaseSpawned := spawnExtension(10_000)
	if err := s.AddExtension(spawn); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	url := "http://" + addr + "/mcp"
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	// A connection a request: on a loaded machine a reused one races the
	// server's IdleTimeout close (a POST is not retried), and a client's own
	// retry would blur the count of responses.
	tr := &http.Transport{DisableKeepAlives: true}
	hc := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	settle := func() (int, int) {
		tr.CloseIdleConnections()
		goruntime.GC()
		return goruntime.NumGoroutine(), openFDs(t)
	}
	baseG, baseFD := settle()
	t.Logf("baseline: %d goroutines, %d open files", baseG, baseFD)

	var answered, waited atomic.Int64 // requests whose response a client waited for, and those that got exactly one
	var refused atomic.Int64
	var wg sync.WaitGroup
	run := func(n int, f func(i int)) {
		for i := range n {
			wg.Add(1)
			go func() { defer wg.Done(); f(i) }()
		}
	}
	for round := range soakRounds {
		t.Logf("round %d", round+1)
		// A hostile session next to a polite one: the hostile one keeps
		// things an extension holds for it (as tasks are) past its share of
		// the extension's bound, then holds more calls in flight
		// than a session may; it runs into its own bounds while the polite
		// one keeps being served. Both sessions open before the flood of
		// sessions below can take their places.
		hostileSession, politeSession := &soakClient{hc: hc, url: url}, &soakClient{hc: hc, url: url}
		if !hostileSession.initialize(`{}`, &refused) || !politeSession.initialize(`{}`, &refused) {
			t.Fatalf("the hostile or the polite session was refused (%d sessions open)", sessionCount(s))
		}
		hostile, hostileDone := context.WithCancel(context.Background())
		var hostileRefused atomic.Int64
		run(1, func(int) {
			defer hostileDone()
			c := hostileSession
			task := `{"jsonrpc":"2.0","id":2000,"method":"x/spawn"}`
			for range 1100 {
				resp, err := c.post(task)
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if bytes.Contains(b, []byte("spawn.Options.MaxSpawned")) {
					hostileRefused.Add(1)
					break
				}
			}
			var calls sync.WaitGroup
			held := make(chan struct{}, 150)
			for i := range 150 {
				calls.Add(1)
				go func() {
					defer calls.Done()
					resp, err := c.postCtx(hostile, callBody(1000+i, "hold", `{}`))
					if err != nil {
						return // disconnected at the end of the hostile part
					}
					defer resp.Body.Close()
					if b, _ := io.ReadAll(resp.Body); bytes.Contains(b, []byte("MaxCallsPerSession")) {
						hostileRefused.Add(1)
						held <- struct{}{}
					}
				}()
			}
			for range 50 { // 50 calls past MaxCallsPerSession
				<-held
			}
			hostileDone() // the held calls' client goes away; their session expires
			calls.Wait()
			releaseSpawned() // the things' lifetime ends, as tasks' TTLs do
		})
		run(1, func(int) {
			c := politeSession
			for i := 0; hostile.Err() == nil; i++ {
				waited.Add(1)
				resp, err := c.post(callBody(3000+i, "echo", `{"polite":true}`))
				if err != nil {
					t.Error(err)
					return
				}
				var m rpc
				err = json.NewDecoder(resp.Body).Decode(&m)
				resp.Body.Close()
				if err == nil && m.Error == nil && strings.Contains(string(m.Result), "polite") {
					answered.Add(1)
				} else {
					t.Errorf("the polite session was refused while the hostile one ran: HTTP %d %v %+v", resp.StatusCode, err, m.Error)
				}
			}
		})
		// Abandoned eliciting calls: read the question, then leave.
		run(100, func(int) {
			c := &soakClient{hc: hc, url: url}
			if !c.initialize(`{"elicitation":{}}`, &refused) {
				return
			}
			rctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			resp, err := c.postCtx(rctx, callBody(2, "confirm", `{}`))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			for {
				line, err := br.ReadString('\n')
				if err != nil || strings.Contains(line, "elicitation/create") {
					break
				}
			}
		})
		// Slow readers that stop reading a flood of progress, then disconnect.
		run(10, func(int) {
			c := &soakClient{hc: hc, url: url}
			if !c.initialize(`{}`, &refused) {
				return
			}
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"flood","_meta":{"progressToken":1}}}`
			fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
				"Mcp-Session-Id: %s\r\nMCP-Protocol-Version: %s\r\nContent-Length: %d\r\n\r\n%s", addr, c.session, Version20251125, len(body), body)
			_, _ = io.ReadFull(conn, make([]byte, 256<<10))
			time.Sleep(200 * time.Millisecond) // a reader that stalls, then gives up
		})
		// Oversized clientInfo, and messages near the body limit.
		run(50, func(int) {
			c := &soakClient{hc: hc, url: url}
			if !c.initialize(fmt.Sprintf(`{},"clientInfo":{"name":"big","version":"1","blob":%q}`, big), &refused) {
				return
			}
			waited.Add(1)
			resp, err := c.post(callBody(4, "echo", fmt.Sprintf(`{"blob":%q}`, big)))
			if err != nil {
				t.Error(err)
				return
			}
			var m rpc
			err = json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			// One response: the result, or a refusal that says why (a
			// session that expired under the load is a 404, which the
			// client answers by initializing again).
			if err == nil && string(m.ID) == "4" && (m.Error == nil) == (resp.StatusCode == http.StatusOK) {
				answered.Add(1)
			} else {
				t.Logf("echo: HTTP %d, %v, %+v", resp.StatusCode, err, m.Error)
			}
		})
		// More sessions than allowed: the extra ones get 503 with Retry-After.
		run(400, func(int) {
			c := &soakClient{hc: hc, url: url}
			c.initialize(`{}`, &refused)
		})
		// Bodies trickled a byte at a time: cut at BodyReadTimeout.
		run(20, func(int) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", addr)
			for range 50 {
				if _, err := conn.Write([]byte(" ")); err != nil {
					return // the server closed the connection
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Error("a body trickled for 5s was still being read")
		})
		wg.Wait()
		if refused.Load() == 0 {
			t.Error("no initialize was refused past MaxSessions")
		}
		if got := hostileRefused.Load(); got < 51 {
			t.Errorf("the hostile session was refused %d times, want 50 calls past MaxCallsPerSession and a thing past its share of MaxSpawned", got)
		}
		var ms goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&ms)
		t.Logf("after the load: heap %d MiB, %d goroutines, %d sessions refused", ms.HeapAlloc>>20, goruntime.NumGoroutine(), refused.Load())
		if ms.HeapAlloc > heapCeiling {
			t.Errorf("heap %d MiB over the %d MiB ceiling", ms.HeapAlloc>>20, heapCeiling>>20)
		}

		// Once every bound has run out (the idle timeout and a janitor round or
		// two), what the clients left behind is gone.
		deadline := time.Now().Add(15 * time.Second)
		for {
			g, fd := settle()
			if g <= baseG+4 && fd <= baseFD+4 && sessionCount(s) == 0 {
				t.Logf("back to %d goroutines, %d open files", g, fd)
				break
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Fatalf("still %d goroutines (baseline %d) and %d open files (baseline %d):\n%s",
					g, baseG, fd, baseFD, buf[:goruntime.Stack(buf, true)])
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	// Shutdown mid-call: every call still running answers exactly once.
	c := &soakClient{hc: hc, url: url}
	if !c.initialize(`{}`, &refused) {
		t.Fatal("initialize refused")
	}
	for i := range 10 {
		wg.Add(1)
		waited.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.post(callBody(100+i, "slow", `{}`))
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if bytes.Count(b, []byte(`"id":`+fmt.Sprint(100+i))) == 1 && bytes.Contains(b, []byte("shutting down")) {
				answered.Add(1)
			} else {
				t.Logf("call %d during shutdown: HTTP %d %s", 100+i, resp.StatusCode, b)
			}
		}()
	}
	for range 10 {
		<-slowRunning // every call reached its handler
	}
	stop()
	wg.Wait()
	if err := <-served; err != nil && !strings.Contains(err.Error(), "deadline") {
		t.Errorf("Serve: %v", err)
	}
	if answered.Load() != waited.Load() {
		t.Errorf("%d of %d requests got exactly one response", answered.Load(), waited.Load())
	}
	tr.CloseIdleConnections()
}

// soakClient is a legacy client that keeps nothing once a response is read
// (the test's own client keeps every response until the test ends).
type soakClient struct {
	hc           *http.Client
	url, session string
}

func (c *soakClient) postCtx(ctx context.Context, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set(headerSessionID, c.session)
		req.Header.Set(headerProtocolVersion, Version20251125)
	}
	return c.hc.Do(req)
}

func (c *soakClient) post(body string) (*http.Response, error) {
	return c.postCtx(context.Background(), body)
}

// initialize opens a session (caps is the capabilities object, and may go
// on with more initialize params); false when it was refused with 503 and
// Retry-After, which refused counts.
func (c *soakClient) initialize(caps string, refused *atomic.Int64) bool {
	resp, err := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `}}`)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" {
		refused.Add(1)
		return false
	}
	c.session = resp.Header.Get(headerSessionID)
	return c.session != ""
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open files: %v", err)
	}
	return len(ents)
}

// spawnExtension adds x/spawn, which keeps one thing for its caller (as a
// task is kept until its TTL) until release is called or a minute passed,
// within a share of total things (Host.NewShare): one caller runs into its
// share while the others are served, however slowly the machine lets it
// send. release ends the lifetime of every thing kept so far.
func spawnExtension(total int64) (ext Extension, release func()) {
	var share *Share
	var host *Host
	var mu sync.Mutex
	ended := make(chan struct{}) // closed by release; a new one for the next things
	release = func() {
		mu.Lock()
		defer mu.Unlock()
		close(ended)
		ended = make(chan struct{})
	}
	return Extension{ID: "x.example/spawn",
		Init: func(h *Host) error {
			host, share = h, h.NewShare("spawn.Options.MaxSpawned", "things", total)
			return nil
		},
		Methods: []Method{{Name: "x/spawn", Cheap: true, Authorize: NoScopes, Serve: func(_ context.Context, req *MethodRequest) (*MethodResult, error) {
			if err := share.Take(req.Caller, 1); err != nil {
				return nil, err
			}
			mu.Lock()
			lifetime := ended
			mu.Unlock()
			host.Go(func() {
				t := time.NewTimer(time.Minute)
				defer t.Stop()
				select {
				case <-lifetime:
				case <-t.C:
				case <-host.Context().Done():
				}
				share.Give(req.Caller, 1)
			})
			return &MethodResult{Result: struct{}{}}, nil
		}}},
	}, release
}
