package redisstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The multi-process harness: replica processes (internal/replica) sharing
// one Redis, and a client that spreads every HTTP request over them with no
// stickiness.

type build struct {
	once sync.Once
	path string
	err  error
}

var builds [2]build // [0]: plain, for benchmarks; [1]: -race, for tests

// replicaBinary builds internal/replica once per test binary: with -race for
// tests, so the runtime's races show in the replicas too, and without it for
// benchmarks.
func replicaBinary(t testing.TB) string {
	t.Helper()
	_, bench := t.(*testing.B)
	b := &builds[1]
	args := []string{"build", "-race"}
	if bench {
		b, args = &builds[0], []string{"build"}
	}
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcpgen-replica-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "replica")
		out, err := exec.Command("go", append(args, "-o", b.path, "./internal/replica")...).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("building the replica: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	for i := range builds {
		b := &builds[i]
		if b.path != "" {
			os.RemoveAll(filepath.Dir(b.path))
		}
	}
	os.Exit(code)
}

// replica is one running server process.
type replica struct {
	url, id  string
	statsURL string // GET: {"goroutines":N,"heapAlloc":N} after a full GC
	cmd      *exec.Cmd
	stderr   *lockedBuffer
	exited   chan struct{}

	interruptOnce sync.Once
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startReplicas starts n replicas on the Redis deployment spec names (a
// redisconn spec) under prefix; extra flags go to every replica. They are stopped (SIGTERM, then SIGKILL) at cleanup.
func startReplicas(t testing.TB, n int, spec, prefix string, extra ...string) []*replica {
	t.Helper()
	bin := replicaBinary(t)
	var rs []*replica
	for i := range n {
		args := append([]string{"-redis", spec, "-prefix", prefix}, extra...)
		cmd := exec.Command(bin, args...)
		// atexit_sleep_ms=0: a race-enabled binary otherwise sleeps a second
		// as it exits, which every test pays once per replica it stops.
		cmd.Env = append(os.Environ(), "MCPGEN_STATE_KEY=shared-test-key-0123456789abcdef", "GORACE=atexit_sleep_ms=0")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		r := &replica{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan struct{})}
		cmd.Stderr = r.stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { cmd.Wait(); close(r.exited) }()
		t.Cleanup(func() {
			r.interrupt()
			select {
			case <-r.exited:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				<-r.exited
			}
			if t.Failed() {
				if s := r.stderr.String(); s != "" {
					t.Logf("replica %d (%s) stderr:\n%s", i, r.id, s)
				}
			}
		})
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatalf("replica %d did not start: %v\n%s", i, err, r.stderr.String())
		}
		// "listening http://ADDR/mcp replica=ID stats=URL"
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "listening" {
			t.Fatalf("replica %d printed %q", i, line)
		}
		r.url, r.id, r.statsURL = f[1], strings.TrimPrefix(f[2], "replica="), strings.TrimPrefix(f[3], "stats=")
		go io.Copy(io.Discard, stdout)
		rs = append(rs, r)
	}
	// Registered last, so run first: every replica is told to stop at
	// once, and the cleanups above each wait for their own.
	t.Cleanup(func() {
		for _, r := range rs {
			r.interrupt()
		}
	})
	return rs
}

// interrupt asks the replica to shut down (SIGINT), once.
func (r *replica) interrupt() {
	r.interruptOnce.Do(func() { r.cmd.Process.Signal(os.Interrupt) })
}

// kill stops a replica abruptly, as a crash would.
func (r *replica) kill() {
	r.cmd.Process.Kill()
	<-r.exited
}

// stop shuts a replica down gracefully (SIGINT) and waits for it to exit.
func (r *replica) stop(t testing.TB) {
	t.Helper()
	r.cmd.Process.Signal(os.Interrupt)
	select {
	case <-r.exited:
	case <-time.After(15 * time.Second):
		t.Fatal("the replica did not stop within 15s of SIGINT")
	}
}

// cluster is the client side: every HTTP request goes to the next replica in
// turn, whatever session or call it belongs to.
type cluster struct {
	urls []string
	next atomic.Uint64
	http *http.Client

	mu   sync.Mutex
	dead map[string]bool // replicas a load balancer's health check took out
}

// markDead takes a replica out of the rotation, as a load balancer's health
// check does once a backend stops answering.
func (c *cluster) markDead(url string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead == nil {
		c.dead = map[string]bool{}
	}
	c.dead[url] = true
}

func (c *cluster) isDead(url string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead[url]
}

func newCluster(rs []*replica) *cluster {
	c := &cluster{http: &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: 256,
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
	}}}
	for _, r := range rs {
		c.urls = append(c.urls, r.url)
	}
	return c
}

func (c *cluster) pick() string {
	for range 2 * len(c.urls) {
		if u := c.urls[int(c.next.Add(1)-1)%len(c.urls)]; !c.isDead(u) {
			return u
		}
	}
	return c.urls[0]
}

// pickOther is the next replica in turn that is not avoid.
func (c *cluster) pickOther(avoid string) string {
	for {
		if u := c.pick(); u != avoid || len(c.urls) == 1 {
			return u
		}
	}
}

// msg is a JSON-RPC message as the client sees it.
type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// session is one MCP client session over the cluster.
type session struct {
	c       *cluster
	id      string
	version string
	nextID  atomic.Int64
}

const protocolVersion = "2025-11-25"

// do sends body to url with method and returns the response (the caller
// closes it).
func (s *session) do(ctx context.Context, method, url string, body any) (*http.Response, error) {
	req, err := s.newRequest(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	return s.c.http.Do(req)
}

// doAccept POSTs body to url with the client's own Accept header.
func (s *session) doAccept(ctx context.Context, url, accept string, body any) (*http.Response, error) {
	req, err := s.newRequest(ctx, http.MethodPost, url, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	return s.c.http.Do(req)
}

// newRequest is a request of the session: its headers, body as JSON.
func (s *session) newRequest(ctx context.Context, method, url string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("MCP-Protocol-Version", s.version)
	}
	if m, ok := body.(map[string]any); ok && s.id == "" && m["method"] == "tools/call" {
		// 2026-07-28: no session; the headers repeat the method and tool.
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		if p, ok := m["params"].(map[string]any); ok {
			req.Header.Set("Mcp-Name", fmt.Sprint(p["name"]))
		}
	}
	return req, nil
}

// readMessages calls fn for each JSON-RPC message of a response, JSON or SSE,
// until fn returns true or the body ends.
func readMessages(resp *http.Response, fn func(*msg) (bool, error)) error {
	return readEvents(resp, func(_ string, m *msg) (bool, error) { return fn(m) }, nil)
}

// readEvents is readMessages with each SSE event's ID; primed, if set, gets
// the ID of events without data (2025-11-25 priming events).
func readEvents(resp *http.Response, fn func(eventID string, m *msg) (bool, error), primed func(eventID string)) error {
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/json") {
		var m msg
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			return fmt.Errorf("decoding JSON response: %w", err)
		}
		_, err := fn("", &m)
		return err
	}
	if !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("HTTP %d %s: %s", resp.StatusCode, ct, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var data strings.Builder
	var eventID string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			id := eventID
			eventID = ""
			if data.Len() == 0 {
				if id != "" && primed != nil {
					primed(id)
				}
				continue // priming event or keep-alive
			}
			var m msg
			if err := json.Unmarshal([]byte(data.String()), &m); err != nil {
				return fmt.Errorf("decoding SSE data %q: %w", data.String(), err)
			}
			data.Reset()
			done, err := fn(id, &m)
			if done || err != nil {
				return err
			}
		case strings.HasPrefix(line, "id:"):
			eventID = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the stream: %w", err)
	}
	return io.ErrUnexpectedEOF
}

// rpc sends one request to url and returns its response message.
func (s *session) rpc(ctx context.Context, url, method string, params any) (*msg, *http.Response, error) {
	id := s.nextID.Add(1)
	resp, err := s.do(ctx, http.MethodPost, url, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, resp, fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, b)
	}
	var out *msg
	err = readMessages(resp, func(m *msg) (bool, error) {
		if m.Method == "" && string(m.ID) == strconv.FormatInt(id, 10) {
			out = m
			return true, nil
		}
		return false, nil
	})
	if out == nil && err == nil {
		err = errors.New(method + ": no response")
	}
	return out, resp, err
}

// initialize opens a session through the next replica and sends
// notifications/initialized through another.
func (c *cluster) initialize(ctx context.Context) (*session, error) {
	s := &session{c: c}
	m, resp, err := s.rpc(ctx, c.pick(), "initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{"elicitation": map[string]any{}},
		"clientInfo":      map[string]any{"name": "replica-test", "version": "1"},
	})
	if err != nil {
		return nil, err
	}
	if m.Error != nil {
		return nil, fmt.Errorf("initialize: %s", m.Error.Message)
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(m.Result, &res)
	s.id, s.version = resp.Header.Get("Mcp-Session-Id"), res.ProtocolVersion
	if s.id == "" {
		return nil, errors.New("initialize: no Mcp-Session-Id")
	}
	if err := s.post(ctx, c.pick(), map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, http.StatusAccepted); err != nil {
		return nil, err
	}
	return s, nil
}

// post sends a notification or response and checks the status.
func (s *session) post(ctx context.Context, url string, body any, want int) error {
	resp, err := s.do(ctx, http.MethodPost, url, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("HTTP %d (want %d): %s", resp.StatusCode, want, b)
	}
	io.Copy(io.Discard, resp.Body)
	return nil
}

// askOutcome is what one "ask" call came to.
type askOutcome struct {
	callURL, answerURL string
	elicitationID      json.RawMessage
	result             *askResult
	toolError          string        // isError text or JSON-RPC error message
	err                error         // transport-level error
	answerLatency      time.Duration // from posting the answer to reading the result
	primeID            string        // the call stream's priming event ID (2025-11-25)
	events             []string      // the call stream's messages, as received
}

type askResult struct {
	N       int    `json:"n"`
	Value   int    `json:"value"`
	Replica string `json:"replica"`
}

func answerValue(n int) int { return n*7 + 3 }

// ask runs tools/call "ask" on the next replica and answers its elicitation
// through another replica (chosen by answerTo, or the next one in turn).
// onElicit, if set, runs before answering and may veto the answer.
func (s *session) ask(ctx context.Context, n int, onElicit func(o *askOutcome) bool) askOutcome {
	var o askOutcome
	o.callURL = s.c.pick()
	id := s.nextID.Add(1)
	resp, err := s.do(ctx, http.MethodPost, o.callURL, map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "ask", "arguments": map[string]any{"n": n}}})
	if err != nil {
		o.err = err
		return o
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		o.err = fmt.Errorf("tools/call: HTTP %d: %s", resp.StatusCode, b)
		return o
	}
	var answered time.Time
	o.err = readEvents(resp, func(_ string, m *msg) (bool, error) {
		raw, _ := json.Marshal(m)
		o.events = append(o.events, string(raw))
		switch {
		case m.Method == "elicitation/create":
			o.elicitationID = m.ID
			var p struct {
				Message string `json:"message"`
			}
			json.Unmarshal(m.Params, &p)
			if p.Message != fmt.Sprintf("call %d", n) {
				return true, fmt.Errorf("call %d got the elicitation of %q", n, p.Message)
			}
			if onElicit != nil && !onElicit(&o) {
				return false, nil
			}
			o.answerURL = s.c.pickOther(o.callURL)
			answered = time.Now()
			ans := map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"action": "accept", "content": map[string]any{"value": answerValue(n)}}}
			if err := s.post(ctx, o.answerURL, ans, http.StatusAccepted); err != nil {
				return true, fmt.Errorf("answering on %s: %w", o.answerURL, err)
			}
		case m.Method == "" && string(m.ID) == strconv.FormatInt(id, 10):
			if m.Error != nil {
				o.toolError = m.Error.Message
				return true, nil
			}
			var r struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				IsError bool `json:"isError"`
			}
			if err := json.Unmarshal(m.Result, &r); err != nil || len(r.Content) == 0 {
				return true, fmt.Errorf("bad result %s", m.Result)
			}
			if r.IsError {
				o.toolError = r.Content[0].Text
				return true, nil
			}
			var ar askResult
			if err := json.Unmarshal([]byte(r.Content[0].Text), &ar); err != nil {
				return true, fmt.Errorf("bad result text %q", r.Content[0].Text)
			}
			o.result = &ar
			if !answered.IsZero() {
				o.answerLatency = time.Since(answered)
			}
			return true, nil
		}
		return false, nil
	}, func(id string) { o.primeID = id })
	return o
}
