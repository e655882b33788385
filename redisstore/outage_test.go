package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// What clients see while Redis is down, slowed down, and back: three
// replicas under load (plain calls and elicitation round trips) on a Redis
// of the test's own.

// storeUnavailableBody is the one answer a failed store gives (its ID is
// the request's).
const storeUnavailableMessage = "session store unavailable; try again later"

// leaks are strings no answer to a client may contain: addresses, the
// driver's errors, the store's internals.
var leaks = []string{"127.0.0.1", "dial ", "refused", "redis", "i/o timeout", "EOF", "context deadline", "tcp"}

// exchange is one HTTP request of a load worker and what came back.
type exchange struct {
	status  int
	body    string // the JSON body, or the SSE messages joined
	err     error  // transport
	took    time.Duration
	rpcCode int // the JSON-RPC error code, if the answer was one
}

// callEcho sends tools/call echo to url and reads its response whole.
func callEcho(ctx context.Context, s *session, url string) exchange {
	start := time.Now()
	id := s.nextID.Add(1)
	resp, err := s.do(ctx, http.MethodPost, url, map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}})
	if err != nil {
		return exchange{err: err, took: time.Since(start)}
	}
	defer resp.Body.Close()
	x := exchange{status: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		x.body = string(b)
		var m msg
		if json.Unmarshal(b, &m) == nil && m.Error != nil {
			x.rpcCode = m.Error.Code
		}
		x.took = time.Since(start)
		return x
	}
	var parts []string
	x.err = readMessages(resp, func(m *msg) (bool, error) {
		raw, _ := json.Marshal(m)
		parts = append(parts, string(raw))
		if m.Method == "" {
			if m.Error != nil {
				x.rpcCode = m.Error.Code
			}
			return true, nil
		}
		return false, nil
	})
	x.body = strings.Join(parts, "\n")
	x.took = time.Since(start)
	return x
}

// cleanRefusal reports what is wrong with a refusal's body, or "". Given
// the text of a client-side error, it looks at what follows its "HTTP"
// (what the server sent), not at the URL the client names.
func cleanRefusal(body string) string {
	if i := strings.Index(body, "HTTP "); i >= 0 {
		body = body[i:]
	}
	for _, l := range leaks {
		if strings.Contains(body, l) {
			return fmt.Sprintf("names %q", l)
		}
	}
	return ""
}

// storeRefusal reports what is wrong with an answer that should be the
// store's 503, or "".
func storeRefusal(status int, hdr http.Header, body string) string {
	var m msg
	switch {
	case status != http.StatusServiceUnavailable:
		return fmt.Sprintf("HTTP %d, not 503", status)
	case json.Unmarshal([]byte(body), &m) != nil || m.Error == nil:
		return "no JSON-RPC error in " + body
	case m.Error.Code != -32603 || m.Error.Message != storeUnavailableMessage:
		return fmt.Sprintf("error %d %q", m.Error.Code, m.Error.Message)
	case hdr != nil && hdr.Get("Retry-After") == "":
		return "no Retry-After"
	}
	return cleanRefusal(body)
}

// replicaStats reads a replica's goroutines and live heap.
func replicaStats(ctx context.Context, t *testing.T, r *replica) (goroutines int, heap uint64) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.statsURL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("reading replica %s's stats: %v", r.id, err)
	}
	defer resp.Body.Close()
	var st struct {
		Goroutines int    `json:"goroutines"`
		HeapAlloc  uint64 `json:"heapAlloc"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st.Goroutines, st.HeapAlloc
}

// outageLoad is the load of an outage test: workers each with a session
// of their own, looping on plain calls and, every third, an elicitation
// round trip, re-initializing when their session is gone.
type outageLoad struct {
	c    *cluster
	stop chan struct{}
	wg   sync.WaitGroup

	bound time.Duration // a request still running after it is hung

	mu       sync.Mutex
	ok       int
	okAt     []time.Time // of every success
	refused  int         // 503 from the store
	gone     int         // 404: the session was lost, the worker initialized again
	broken   int         // a call stream that ended early (the store could not keep its events)
	hung     int
	problems map[string]int // anything else, and any refusal that is not clean
}

func (l *outageLoad) problem(what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.problems[shorten(what)]++
}

func (l *outageLoad) succeeded() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ok++
	l.okAt = append(l.okAt, time.Now())
}

// successesSince counts the successes after t.
func (l *outageLoad) successesSince(t time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, at := range l.okAt {
		if at.After(t) {
			n++
		}
	}
	return n
}

func (l *outageLoad) start(ctx context.Context, workers int) {
	for w := range workers {
		l.wg.Go(func() { l.work(ctx, w) })
	}
}

func (l *outageLoad) work(ctx context.Context, w int) {
	var s *session
	for i := 0; ; i++ {
		select {
		case <-l.stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		if s == nil {
			rctx, cancel := context.WithTimeout(ctx, l.bound)
			var err error
			s, err = l.c.initialize(rctx)
			expired := rctx.Err() != nil
			cancel()
			if err != nil {
				s = nil
				switch {
				case expired:
					l.mu.Lock()
					l.hung++
					l.mu.Unlock()
				case strings.Contains(err.Error(), "HTTP 503"):
					if p := cleanRefusal(err.Error()); p != "" {
						l.problem("initialize refusal " + p)
					}
					l.mu.Lock()
					l.refused++
					l.mu.Unlock()
				default:
					l.problem("initialize: " + err.Error())
				}
				time.Sleep(50 * time.Millisecond) // as a client honouring a short Retry-After
				continue
			}
		}
		rctx, cancel := context.WithTimeout(ctx, l.bound)
		if i%3 == 2 {
			o := s.ask(rctx, w*100000+i, nil)
			expired := rctx.Err() != nil
			cancel()
			l.askOutcome(o, expired, &s)
			continue
		}
		x := callEcho(rctx, s, l.c.pick())
		expired := rctx.Err() != nil
		cancel()
		switch {
		case expired:
			l.mu.Lock()
			l.hung++
			l.mu.Unlock()
		case x.err != nil:
			l.problem("echo: " + x.err.Error())
		case x.status == http.StatusOK && x.rpcCode == 0:
			l.succeeded()
		case x.status == http.StatusServiceUnavailable:
			if p := storeRefusal(x.status, nil, x.body); p != "" {
				l.problem("echo refusal: " + p)
			}
			l.mu.Lock()
			l.refused++
			l.mu.Unlock()
			time.Sleep(50 * time.Millisecond)
		case x.status == http.StatusNotFound:
			if p := cleanRefusal(x.body); p != "" {
				l.problem("404 " + p)
			}
			l.mu.Lock()
			l.gone++
			l.mu.Unlock()
			s = nil
		default:
			if p := cleanRefusal(x.body); p != "" {
				l.problem(fmt.Sprintf("echo HTTP %d %s", x.status, p))
			}
			l.problem(fmt.Sprintf("echo: HTTP %d: %s", x.status, x.body))
		}
	}
}

// askOutcome files what an elicitation round trip came to.
func (l *outageLoad) askOutcome(o askOutcome, expired bool, s **session) {
	text := o.toolError
	if o.err != nil {
		text = o.err.Error()
	}
	switch {
	case expired:
		l.mu.Lock()
		l.hung++
		l.mu.Unlock()
	case o.result != nil:
		l.succeeded()
	case strings.Contains(text, "HTTP 503"):
		if p := cleanRefusal(text); p != "" {
			l.problem("ask refusal: " + p)
		}
		l.mu.Lock()
		l.refused++
		l.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	case strings.Contains(text, "HTTP 404"):
		l.mu.Lock()
		l.gone++
		l.mu.Unlock()
		*s = nil
	case errors.Is(o.err, io.ErrUnexpectedEOF):
		l.mu.Lock()
		l.broken++
		l.mu.Unlock()
	case strings.Contains(text, "session store unavailable"):
		// The handler's elicitation could not be registered or sent: a tool
		// error that says so, and nothing more.
		if p := cleanRefusal(text); p != "" {
			l.problem("ask tool error " + p)
		}
		l.mu.Lock()
		l.refused++
		l.mu.Unlock()
	default:
		l.problem("ask: " + text)
	}
}

func (l *outageLoad) finish(t *testing.T) {
	close(l.stop)
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Logf("load: %d ok, %d refused with 503, %d sessions lost (404, initialized again), %d call streams ended early, %d hung",
		l.ok, l.refused, l.gone, l.broken, l.hung)
	for p, n := range l.problems {
		t.Errorf("%d x %s", n, p)
	}
	if l.hung > 0 {
		t.Errorf("%d requests ran past %v", l.hung, l.bound)
	}
}

// TestRedisOutage: Redis stopped for 10s under load, then started again,
// empty (as without persistence) and with its data. During the outage
// every request that needs Redis gets 503 with the documented message
// within the store's operation timeout (initialize, calls, GET streams,
// DELETE), and no replica's goroutines or heap grow; afterwards the
// replicas serve again by themselves. Sessions Redis lost are 404 on every
// replica (clients initialize again); sessions it kept go on.
func TestRedisOutage(t *testing.T) {
	for _, persist := range []bool{false, true} {
		name := "empty"
		if persist {
			name = "with its data"
		}
		t.Run(name, func(t *testing.T) { redisOutage(t, persist) })
	}
}

func redisOutage(t *testing.T, persist bool) {
	const outage = 10 * time.Second
	rd := startPrivateRedis(t, persist)
	rs := startReplicas(t, 3, rd.addr, testPrefix(t), "-op-timeout", "1s", "-request-timeout", "5s", "-keepalive", "1s")
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Idle sessions, made before the outage and used only after it.
	var idle []*session
	for range 6 {
		s, err := c.initialize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, s)
	}
	l := &outageLoad{c: c, stop: make(chan struct{}), bound: 8 * time.Second, problems: map[string]int{}}
	l.start(ctx, 12)
	waitUntil(ctx, t, "30 calls with Redis up", func() bool { return l.successesSince(time.Time{}) >= 30 })

	rd.stop()
	down := time.Now()
	time.Sleep(2 * time.Second) // the load meets the outage
	var base [3][2]uint64
	for i, r := range rs {
		g, h := replicaStats(ctx, t, r)
		base[i] = [2]uint64{uint64(g), h}
	}
	// Each kind of request that needs Redis, on each replica: 503, the
	// documented message, within the operation timeout and a margin.
	for i := range rs {
		url := c.urls[i]
		checkRefusal := func(what string, req *http.Request) {
			t.Helper()
			start := time.Now()
			resp, err := c.http.Do(req)
			if err != nil {
				t.Errorf("%s on replica %d during the outage: %v", what, i, err)
				return
			}
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if p := storeRefusal(resp.StatusCode, resp.Header, string(b)); p != "" {
				t.Errorf("%s on replica %d during the outage: %s (%s)", what, i, p, b)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("%s on replica %d took %v with a 1s operation timeout", what, i, took)
			}
		}
		s := idle[i]
		init, _ := (&session{c: c}).newRequest(ctx, http.MethodPost, url, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
			"params": map[string]any{"protocolVersion": protocolVersion, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
		checkRefusal("initialize", init)
		call, _ := s.newRequest(ctx, http.MethodPost, url, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
		checkRefusal("tools/list", call)
		get, _ := s.newRequest(ctx, http.MethodGet, url, nil)
		get.Header.Set("Accept", "text/event-stream")
		checkRefusal("GET", get)
		del, _ := s.newRequest(ctx, http.MethodDelete, url, nil)
		checkRefusal("DELETE", del)
	}
	time.Sleep(time.Until(down.Add(outage - time.Second)))
	for i, r := range rs {
		g, h := replicaStats(ctx, t, r)
		t.Logf("replica %d during the outage: %d goroutines and %.1f MiB of heap at +2s, %d and %.1f MiB at +9s",
			i, base[i][0], float64(base[i][1])/(1<<20), g, float64(h)/(1<<20))
		if g > int(base[i][0])+20 {
			t.Errorf("replica %d: goroutines grew from %d to %d during the outage", i, base[i][0], g)
		}
		if h > base[i][1]+16<<20 {
			t.Errorf("replica %d: heap grew from %d to %d during the outage", i, base[i][1], h)
		}
	}
	time.Sleep(time.Until(down.Add(outage)))
	if err := rd.start(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	waitUntil(ctx, t, "30 calls with Redis back", func() bool { return l.successesSince(back) >= 30 })
	t.Logf("Redis down %v; 30 calls succeeded %v after it came back", back.Sub(down).Round(time.Millisecond), time.Since(back).Round(time.Millisecond))
	l.finish(t)
	// Each replica serves again on its own: its Redis client redials about
	// once a second after as many dial failures as its pool has
	// connections, so a replica may take a second longer than the others.
	for i, url := range c.urls {
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		waitUntil(wctx, t, fmt.Sprintf("replica %d to serve a new session after Redis came back", i), func() bool {
			return servesNewSession(wctx, c, url)
		})
		wcancel()
		t.Logf("replica %d served a new session %v after Redis came back", i, time.Since(back).Round(time.Millisecond))
	}

	// The idle sessions: lost with Redis's data (404 on every replica, so
	// the client initializes again), kept with it.
	for n, s := range idle {
		for i := range rs {
			x := callEcho(ctx, s, c.urls[i])
			switch {
			case persist && (x.status != http.StatusOK || x.rpcCode != 0):
				t.Errorf("idle session %d on replica %d after Redis came back with its data: HTTP %d %s", n, i, x.status, x.body)
			case !persist && x.status != http.StatusNotFound:
				t.Errorf("idle session %d on replica %d after Redis came back empty: HTTP %d %s, want 404", n, i, x.status, x.body)
			}
		}
	}
}

// servesNewSession reports whether the replica at url initializes a session.
func servesNewSession(ctx context.Context, c *cluster, url string) bool {
	s := &session{c: c}
	m, resp, err := s.rpc(ctx, url, "initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "replica-test", "version": "1"},
	})
	return err == nil && m.Error == nil && resp.Header.Get("Mcp-Session-Id") != ""
}

// TestRedisPausedBoundsEveryCall: a Redis that stops answering (CLIENT
// PAUSE) makes each request that needs it fail after the store's operation
// timeout, with the documented 503, and the replicas serve again when it
// answers again.
func TestRedisPausedBoundsEveryCall(t *testing.T) {
	rd := startPrivateRedis(t, false)
	rs := startReplicas(t, 3, rd.addr, testPrefix(t), "-op-timeout", "1s", "-request-timeout", "5s")
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	admin := newClient(t, rd.addr)
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "4000", "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	var refused, slowest atomic.Int64
	var wg sync.WaitGroup
	for i := range 9 {
		wg.Go(func() {
			x := callEcho(ctx, s, c.urls[i%3])
			if d := int64(x.took); d > slowest.Load() {
				slowest.Store(d)
			}
			if p := storeRefusal(x.status, nil, x.body); p != "" {
				t.Errorf("a call to replica %d while Redis is paused: %s (%s)", i%3, p, x.body)
				return
			}
			refused.Add(1)
		})
	}
	wg.Wait()
	t.Logf("%d calls while Redis was paused refused with 503; the slowest took %v (operation timeout 1s)",
		refused.Load(), time.Duration(slowest.Load()).Round(time.Millisecond))
	if d := time.Duration(slowest.Load()); d > 3*time.Second {
		t.Errorf("a call took %v while Redis was paused, past the 1s operation timeout and a margin", d)
	}
	time.Sleep(time.Until(paused.Add(4 * time.Second)))
	waitUntil(ctx, t, "a call to succeed on every replica after the pause", func() bool {
		for i := range rs {
			if x := callEcho(ctx, s, c.urls[i]); x.status != http.StatusOK || x.rpcCode != 0 {
				return false
			}
		}
		return true
	})
}

// waitUntil polls cond (an observation of running workers or processes)
// until it holds or ctx ends.
func waitUntil(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if ctx.Err() != nil {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond) // polling an observation
	}
}
