package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// limited reports whether m is a refusal naming bound.
func limited(m rpc, bound string) bool {
	if m.Error == nil || m.Error.Code != CodeLimitExceeded {
		return false
	}
	b, _ := json.Marshal(m.Error.Data)
	return strings.Contains(string(b), `"bound":"Options.`+bound+`"`)
}

func quickTask() Tool {
	return taskTool("quick", "optional", func(_ context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		return ContentResult(call, []Content{Text("done")}), nil
	})
}

// TestOneCallerCannotTakeAWholeBound (item 7): in both eras, a caller gets
// its share of MaxTasks and no more, with an error naming the bound, while
// another caller is still served; its finished tasks keep their task slots
// (until their TTL) but no slot of MaxConcurrentCalls, so it can still
// call. The same holds for its streams.
func TestOneCallerCannotTakeAWholeBound(t *testing.T) {
	noLeaks(t)
	for era := range 2 {
		s := NewServer(scopedOptions(Options{MaxTasks: 20, MaxGETStreams: 20}))
		for _, tool := range []Tool{quickTask(), whoTool("plain")} {
			if err := s.AddTool(tool); err != nil {
				t.Fatal(err)
			}
		}
		ts := authedServer(t, s)
		hostile, polite := eraClients(t, ts, s, "hostile;")[era], eraClients(t, ts, s, "polite;")[era]
		var theirs []string
		for i := range 3 {
			st, m := hostile.do(t, "tools/call", taskParams(hostile, "quick"))
			switch {
			case i < 2:
				theirs = append(theirs, taskIDOf(t, m))
			case !limited(m, "MaxTasks") || hostile.modern && st != http.StatusTooManyRequests:
				t.Errorf("%s: a task past the caller's share: %d %s %+v", hostile.name, st, m.Result, m.Error)
			}
		}
		for _, id := range theirs {
			hostile.do(t, "tasks/cancel", map[string]any{"taskId": id})
		}
		if _, m := hostile.do(t, "tools/call", taskParams(hostile, "quick")); !limited(m, "MaxTasks") {
			t.Errorf("%s: its cancelled tasks keep their slots until their TTL: %s %+v", hostile.name, m.Result, m.Error)
		}
		if _, m := hostile.do(t, "tools/call", map[string]any{"name": "plain"}); m.Error != nil {
			t.Errorf("%s: finished tasks hold slots of MaxConcurrentCalls: %+v", hostile.name, m.Error)
		}
		for range 2 {
			if _, m := polite.do(t, "tools/call", taskParams(polite, "quick")); m.Error != nil {
				t.Errorf("%s: another caller is refused: %+v", polite.name, m.Error)
			}
		}
	}
	// Streams: a caller's share of MaxGETStreams, the rest for the others.
	s := NewServer(scopedOptions(Options{MaxGETStreams: 20}))
	if err := s.AddTool(whoTool("plain")); err != nil {
		t.Fatal(err)
	}
	ts := authedServer(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listen := func(token string) int {
		mc := &modernClient{t: t, url: ts.URL, hc: &http.Client{Transport: &http.Transport{}}, caps: map[string]any{}}
		resp, body := mc.send("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}},
			withHeader("Authorization", "Bearer "+token), withCtx(ctx))
		t.Cleanup(func() { body.Close() })
		return resp.StatusCode
	}
	got := []int{listen("hostile;"), listen("hostile;"), listen("hostile;"), listen("polite;")}
	if want := []int{200, 200, 429, 200}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("listen streams of hostile, hostile, hostile, polite: %v, want %v", got, want)
	}
}

// TestTaskResultBytesAreBounded (item 8): the results of finished tasks are
// bounded in bytes (each caller its share): a result that does not fit
// fails its task with an error naming MaxTaskBytes; smaller ones are kept.
func TestTaskResultBytesAreBounded(t *testing.T) {
	noLeaks(t)
	big := taskTool("big", "optional", func(_ context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
		var a struct{ N int }
		_ = json.Unmarshal(args, &a)
		return ContentResult(call, []Content{Text(strings.Repeat("x", a.N))}), nil
	})
	for era := range 2 {
		s := NewServer(scopedOptions(Options{MaxTaskBytes: 2000, CallerShare: 0.5}))
		if err := s.AddTool(big); err != nil {
			t.Fatal(err)
		}
		ts := authedServer(t, s)
		c := eraClients(t, ts, s, "alice;")[era]
		run := func(n int) wireTask {
			p := taskParams(c, "big")
			p["arguments"] = map[string]any{"N": n}
			_, m := c.do(t, "tools/call", p)
			id := taskIDOf(t, m)
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				_, m := c.do(t, "tasks/get", map[string]any{"taskId": id})
				var w wireTask
				_ = json.Unmarshal(m.Result, &w)
				if w.Status == TaskCompleted || w.Status == TaskFailed || time.Now().After(deadline) {
					return w
				}
			}
		}
		if w := run(1500); w.Status != TaskFailed || !strings.Contains(w.StatusMessage, "MaxTaskBytes") {
			t.Errorf("%s: a result past the caller's share: %+v", c.name, w)
		}
		for i := range 3 {
			w := run(300)
			if fits := i < 2; fits != (w.Status == TaskCompleted) {
				t.Errorf("%s: result %d of 300 bytes (about 350 encoded, 1,000 allowed): %s %q", c.name, i+1, w.Status, w.StatusMessage)
			}
		}
	}
}

// TestSubscriptionsAreBoundedInBytes (item 8): a session's subscriptions and
// a listen stream's filter are bounded in bytes, not only in number.
func TestSubscriptionsAreBoundedInBytes(t *testing.T) {
	noLeaks(t)
	s, ts := notesServer(t, Options{MaxSubscriptionBytes: 4096})
	clients := eraClients(t, ts, s, "")
	legacy, modern := clients[0], clients[1]
	if _, m := legacy.do(t, "resources/subscribe", map[string]any{"uri": "notes://" + strings.Repeat("a", 5000)}); m.Error == nil || m.Error.Code != CodeInvalidParams || !strings.Contains(m.Error.Message, "MaxSubscriptionBytes") {
		t.Errorf("a 5 KB URI: %+v", m.Error)
	}
	n := 0
	for ; n < 100; n++ {
		_, m := legacy.do(t, "resources/subscribe", map[string]any{"uri": fmt.Sprintf("notes://%03d-%s", n, strings.Repeat("b", 90))})
		if m.Error != nil {
			if !strings.Contains(m.Error.Message, "MaxSubscriptionBytes") {
				t.Errorf("subscription %d: %+v", n, m.Error)
			}
			break
		}
	}
	if n != 40 { // 40 URIs of 102 bytes fit in 4,096
		t.Errorf("%d subscriptions of 102 bytes fit in 4,096 bytes, want 40", n)
	}
	uris := make([]string, 100)
	for i := range uris {
		uris[i] = fmt.Sprintf("notes://%03d-%s", i, strings.Repeat("c", 90))
	}
	if _, m := modern.do(t, "subscriptions/listen", map[string]any{"notifications": map[string]any{"resourceSubscriptions": uris}}); m.Error == nil || !strings.Contains(m.Error.Message, "MaxSubscriptionBytes") {
		t.Errorf("a listen filter of 10 KB: %+v", m.Error)
	}
}

// TestListenLetsItsBodyGo (item 8): an open listen stream does not keep
// the request it arrived in: 40 streams opened with 1 MiB bodies hold far
// less than 40 MiB. The bodies are generated as they are sent, so that
// the client keeps none of them either.
func TestListenLetsItsBodyGo(t *testing.T) {
	noLeaks(t)
	_, ts := notesServer(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	for i := range 40 {
		body := io.MultiReader(
			strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"_meta":{%q:%q,%q:{}},"notifications":{"resourceSubscriptions":["notes://a"]},"padding":"`,
				i, metaProtocolVersion, Version20260728, metaClientCapabilities)),
			io.LimitReader(repeatReader('p'), 1<<20),
			strings.NewReader(`"}}`))
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(headerProtocolVersion, Version20260728)
		req.Header.Set(headerMethod, "subscriptions/listen")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if m := newSSEReader(resp.Body).next(t); m["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("listen: %v", m)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if grown := int64(ms.HeapAlloc) - int64(before); grown > 20<<20 {
		t.Errorf("40 open listen streams with 1 MiB bodies hold %d MiB", grown>>20)
	}
}

// repeatReader reads the same byte for ever.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// latencyStore is a session store a round trip away, as a shared one is:
// every read and update waits a moment first, which is when another
// request's update lands.
type latencyStore struct{ MemorySessionStore }

func (l *latencyStore) Load(ctx context.Context, id string) (SessionState, error) {
	time.Sleep(time.Millisecond) // the round trip, not synchronisation
	return l.MemorySessionStore.Load(ctx, id)
}

func (l *latencyStore) Update(ctx context.Context, id string, fn func(*SessionState)) (SessionState, error) {
	time.Sleep(time.Millisecond)
	return l.MemorySessionStore.Update(ctx, id, fn)
}

// TestConcurrentSubscribesAllLand (item 10): 32 subscriptions made at once
// in one session, half of them through another replica, with the store a
// round trip away, are all kept: a session's state changes atomically.
func TestConcurrentSubscribesAllLand(t *testing.T) {
	noLeaks(t)
	shared := Options{KeepAlive: -1, StateKey: testStateKey, Sessions: &latencyStore{}, Pending: &MemoryPendingRouter{}, Events: &MemoryEventStore{}, Bus: &memBus{}}
	var urls []string
	var first *Server
	for _, replica := range []string{"a", "b"} {
		o := shared
		o.ReplicaID = replica
		s, ts := notesServer(t, o)
		if first == nil {
			first = s
		}
		urls = append(urls, ts.URL)
	}
	c := newClient(t, &httptest.Server{URL: urls[0]})
	c.initialize(Version20251125, `{}`)
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := c.request(http.MethodPost, requestLine(t, i+1, "resources/subscribe", map[string]any{"uri": fmt.Sprintf("notes://n%d", i)}, nil))
			req.URL, _ = url.Parse(urls[i%2])
			resp, err := c.hc.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	wg.Wait()
	st, err := first.sessions.store.Load(context.Background(), c.session)
	if err != nil || len(st.Subscriptions) != 32 {
		t.Errorf("32 concurrent subscriptions kept %d: %v", len(st.Subscriptions), err)
	}
}

// slowTool blocks each call until the test hands it a release, and notes
// when more than limit run at once.
func slowTool(limit int64, running *atomic.Int64, over *atomic.Bool, release <-chan struct{}) Tool {
	return toolOf("slow", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		if running.Add(1) > limit {
			over.Store(true)
		}
		defer running.Add(-1)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return ContentResult(call, []Content{Text("slept")}), nil
	})
}

// TestBatchRunsABoundedNumberAtOnce (item 11): a 2025-03-26 batch of 1,000
// calls runs at most MaxCallsPerSession of them at once and answers every
// one.
func TestBatchRunsABoundedNumberAtOnce(t *testing.T) {
	noLeaks(t)
	var running atomic.Int64
	var over atomic.Bool
	release := make(chan struct{})
	_, ts := legacyServer(t, Options{MaxCallsPerSession: 8}, slowTool(8, &running, &over, release))
	c := newClient(t, ts)
	c.initialize(Version20250326, `{}`)
	var batch []string
	for i := range 1000 {
		batch = append(batch, requestLine(t, i+1, "tools/call", map[string]any{"name": "slow"}, nil))
	}
	done := make(chan []rpc, 1)
	go func() {
		resp, err := c.hc.Do(c.request(http.MethodPost, "["+strings.Join(batch, ",")+"]"))
		if err != nil {
			t.Error(err)
			done <- nil
			return
		}
		defer resp.Body.Close()
		var out []rpc
		_ = json.NewDecoder(resp.Body).Decode(&out)
		done <- out
	}()
	for range 1000 {
		release <- struct{}{}
	}
	out := <-done
	if over.Load() {
		t.Error("more than MaxCallsPerSession calls of one batch ran at once")
	}
	if len(out) != 1000 {
		t.Fatalf("the batch got %d responses, want 1000", len(out))
	}
	for _, m := range out {
		if resultText(t, m) != "slept" {
			t.Fatalf("a batch response: %+v", m)
		}
	}
}

// TestSessionCallsAreBounded (item 11): one session has at most
// MaxCallsPerSession requests in flight; one more is refused with an
// error naming the bound, and the session is served again once one ends.
func TestSessionCallsAreBounded(t *testing.T) {
	noLeaks(t)
	var running atomic.Int64
	var over atomic.Bool
	release := make(chan struct{})
	_, ts := legacyServer(t, Options{MaxCallsPerSession: 4}, slowTool(4, &running, &over, release))
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.hc.Do(c.request(http.MethodPost, callBody(i+1, "slow", `{}`)))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	for deadline := time.Now().Add(5 * time.Second); running.Load() < 4; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("4 slow calls did not start")
		}
	}
	if m := jsonBody(t, c.post(callBody(5, "slow", `{}`))); !limited(m, "MaxCallsPerSession") {
		t.Errorf("a 5th call in flight: %s %+v", m.Result, m.Error)
	}
	for range 4 {
		release <- struct{}{}
	}
	wg.Wait()
	go func() { release <- struct{}{} }()
	if got := resultText(t, jsonBody(t, c.post(callBody(6, "slow", `{}`)))); got != "slept" {
		t.Errorf("a call once the others ended: %q", got)
	}
}
