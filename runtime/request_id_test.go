package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A request ID identifies one request of a session for its answer and its
// cancellation, so a session never runs two requests under one ID: a reused
// ID would escape Options.MaxCallsPerSession (the table holds one entry per
// ID) and the cancellation of all but the last.

// waitRunning waits, bounded, until n handlers run.
func waitRunning(t *testing.T, running *atomic.Int64, n int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); running.Load() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d handlers run, want %d", running.Load(), n)
		}
	}
}

// waitGroupWithin waits for wg, at most d; it reports whether wg was done.
func waitGroupWithin(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// refusedAsInFlight reports whether m refuses a reused ID: -32600, the ID
// echoed.
func refusedAsInFlight(m rpc, id string) bool {
	return m.Error != nil && m.Error.Code == CodeInvalidRequest && string(m.ID) == id &&
		strings.Contains(m.Error.Message, "already in flight")
}

// TestReusedIDIsRefusedWhileInFlight: 300 concurrent tools/call of one
// session, all with id 7, run one handler; the other 299 are refused with
// -32600 and the id echoed, and notifications/cancelled for 7 then cancels
// the one that runs. Once it ended, id 7 may be used again.
func TestReusedIDIsRefusedWhileInFlight(t *testing.T) {
	var running atomic.Int64
	var over atomic.Bool
	release := make(chan struct{})
	_, ts := legacyServer(t, Options{MaxCallsPerSession: 100}, slowTool(1, &running, &over, release))
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)

	first := make(chan rpc, 1)
	go func() {
		resp, err := c.hc.Do(c.request(http.MethodPost, callBody(7, "slow", `{}`)))
		if err != nil {
			t.Error(err)
			first <- rpc{}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var m rpc
		_ = json.Unmarshal(b, &m)
		first <- m
	}()
	waitRunning(t, &running, 1)

	var wg sync.WaitGroup
	var refused, other atomic.Int64
	for range 299 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.hc.Do(c.request(http.MethodPost, callBody(7, "slow", `{}`)))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var m rpc
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
				t.Error(err)
				return
			}
			if refusedAsInFlight(m, "7") {
				refused.Add(1)
			} else {
				other.Add(1)
			}
		}()
	}
	if !waitGroupWithin(&wg, 10*time.Second) {
		close(release) // the calls that ran instead of being refused end
		wg.Wait()
		t.Fatalf("299 calls reusing id 7 were not all answered within 10s: %d refused, %d answered otherwise, the rest ran",
			refused.Load(), other.Load())
	}
	if refused.Load() != 299 || over.Load() {
		t.Errorf("299 calls reusing id 7: %d refused, %d otherwise answered; more than one ran at once: %v",
			refused.Load(), other.Load(), over.Load())
	}

	// The one call that runs is the one the client cancels.
	r := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	r.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); running.Load() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call with id 7 was not cancelled")
		}
	}
	<-first // a cancelled call gets no response; its POST ends

	go func() { release <- struct{}{} }()
	if got := resultText(t, jsonBody(t, c.post(callBody(7, "slow", `{}`)))); got != "slept" {
		t.Errorf("id 7 once the earlier call ended: %q", got)
	}
}

// TestBatchWithOneIDRunsOneCall: a 2025-03-26 batch of 2,000 calls all
// with id 1 never runs two at once (before, it ran 1,000 at once): a call
// whose ID is in flight is refused with -32600 at once, without waiting for
// room, and every request is answered, each by a run or a refusal.
func TestBatchWithOneIDRunsOneCall(t *testing.T) {
	var running atomic.Int64
	var over atomic.Bool
	release := make(chan struct{})
	_, ts := legacyServer(t, Options{}, slowTool(1, &running, &over, release))
	c := newClient(t, ts)
	c.initialize(Version20250326, `{}`)
	batch := make([]string, 2000)
	for i := range batch {
		batch[i] = callBody(1, "slow", `{}`)
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
		if err := decodeBatchStream(resp, &out); err != nil {
			t.Error(err)
		}
		done <- out
	}()
	var out []rpc
	for out == nil {
		select {
		case out = <-done:
		case release <- struct{}{}: // one call at a time ends, whenever one runs
		}
	}
	if over.Load() {
		t.Error("two calls with id 1 ran at once")
	}
	refused, slept := 0, 0
	for _, m := range out {
		switch {
		case refusedAsInFlight(m, "1"):
			refused++
		case m.Error == nil && resultText(t, m) == "slept":
			slept++
		default:
			t.Errorf("a batch response: %s %+v", m.Result, m.Error)
		}
	}
	if refused+slept != 2000 || slept == 0 {
		t.Errorf("the batch: %d refused, %d ran, of %d answers; want 2000 answers", refused, slept, len(out))
	}
	t.Logf("%d calls ran one after another, %d were refused while id 1 was in flight", slept, refused)
}

// decodeBatchStream reads a batch's answers, a JSON array or an SSE
// stream of them.
func decodeBatchStream(resp *http.Response, out *[]rpc) error {
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(b), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "" {
			continue
		}
		var many []rpc
		if json.Unmarshal([]byte(data), &many) == nil {
			*out = append(*out, many...)
			continue
		}
		var one rpc
		if err := json.Unmarshal([]byte(data), &one); err != nil {
			return fmt.Errorf("an event: %q: %w", data, err)
		}
		*out = append(*out, one)
	}
	return nil
}

// TestStdioReusedIDIsRefused: over stdio, a legacy session and a 2026-07-28
// connection refuse a request whose ID is in flight, with the ID echoed.
func TestStdioReusedIDIsRefused(t *testing.T) {
	for _, era := range []string{"legacy", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			noLeaks(t)
			var running atomic.Int64
			var over atomic.Bool
			release := make(chan struct{})
			s := NewServer(Options{})
			if err := s.AddTool(slowTool(1, &running, &over, release)); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			p := startStdio(t, s)
			call := callBody(9, "slow", `{}`)
			if era == "legacy" {
				p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
				p.recv()
				p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			} else {
				call = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{},` +
					`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			}
			p.send(call)
			waitRunning(t, &running, 1)
			p.send(call)
			ran := time.AfterFunc(5*time.Second, func() { close(release) }) // it ran: end it, to see its answer
			m := p.recv()
			if !ran.Stop() {
				t.Fatalf("a second request with id 9 was not refused within 5s; it ran and answered id %s with %s", m.ID, m.Result)
			}
			if !refusedAsInFlight(m, "9") {
				t.Fatalf("a second request with id 9: %+v", m)
			}
			release <- struct{}{}
			if m := p.recv(); string(m.ID) != "9" || m.Error != nil {
				t.Fatalf("the first request with id 9: %+v", m)
			}
			if over.Load() {
				t.Error("two calls with id 9 ran at once")
			}
		})
	}
}

// TestEndedSessionStartsNoQueuedCall: a batch of 1,000 slow calls waits for
// room behind MaxCallsPerSession; after the client's DELETE no more handler
// starts, and every queued call is answered with the session's end.
func TestEndedSessionStartsNoQueuedCall(t *testing.T) {
	var started, running atomic.Int64
	release := make(chan struct{})
	tool := toolOf("slow", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		started.Add(1)
		running.Add(1)
		defer running.Add(-1)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return ContentResult(call, []Content{Text("slept")}), nil
	})
	_, ts := legacyServer(t, Options{MaxCallsPerSession: 8}, tool)
	c := newClient(t, ts)
	c.initialize(Version20250326, `{}`)
	batch := make([]string, 1000)
	for i := range batch {
		batch[i] = callBody(i+1, "slow", `{}`)
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
		if err := decodeBatchStream(resp, &out); err != nil {
			t.Error(err)
		}
		done <- out
	}()
	waitRunning(t, &running, 8)
	del := c.do(c.request(http.MethodDelete, ""))
	del.Body.Close()
	if del.StatusCode/100 != 2 {
		t.Fatalf("DELETE: status %d", del.StatusCode)
	}
	// The session's end cancels the 8 that run; their slots come free, and
	// none of the 992 queued calls may take one.
	out := <-done
	if n := started.Load(); n != 8 {
		t.Errorf("%d handlers started, want the 8 that ran before DELETE", n)
	}
	ended := 0
	for _, m := range out {
		if m.Error != nil && m.Error.Message == errSessionEnded.Message {
			ended++
		}
	}
	if len(out) != 1000 || ended != 1000 {
		t.Errorf("the batch got %d answers, %d of them the session's end; want 1000 and 1000", len(out), ended)
	}
}
