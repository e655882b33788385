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
	"testing"
	"time"
)

func testPrefix(t testing.TB) string { return "it:" + t.Name() + ":" + randomHex(4) + ":" }

// threeReplicas starts three replicas on the test Redis under a prefix of the
// test's own, with extra flags for each, and a cluster over them; ctx ends
// after timeout or with the test.
func threeReplicas(t *testing.T, timeout time.Duration, extra ...string) ([]*replica, *cluster, context.Context) {
	t.Helper()
	rs := startReplicas(t, 3, redisSpec(t), testPrefix(t), extra...)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return rs, newCluster(rs), ctx
}

// replicaIndex maps a URL to its replica.
func replicaIndex(rs []*replica, url string) int {
	for i, r := range rs {
		if r.url == url {
			return i
		}
	}
	return -1
}

func TestThreeReplicasServeOneSession(t *testing.T) {
	rs, c, ctx := threeReplicas(t, 60*time.Second)

	// Two sessions, each initialized through one replica and used through all.
	var sessions []*session
	for range 2 {
		s, err := c.initialize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	for i := range 3 {
		m, _, err := sessions[0].rpc(ctx, c.urls[i], "tools/list", map[string]any{})
		if err != nil || m.Error != nil || !strings.Contains(string(m.Result), `"name":"ask"`) {
			t.Fatalf("tools/list on replica %d: %v %+v", i, err, m)
		}
	}

	// 100 concurrent elicitation round trips, 50 per session, each answered
	// through a different replica than the one running the call.
	const calls = 100
	out := make([]askOutcome, calls)
	var wg sync.WaitGroup
	for n := range calls {
		wg.Go(func() { out[n] = sessions[n%2].ask(ctx, n, nil) })
	}
	wg.Wait()
	forwarded := 0
	seen := map[string]int{} // session + elicitation ID -> call
	for n, o := range out {
		key := sessions[n%2].id + " " + string(o.elicitationID)
		if prev, dup := seen[key]; dup {
			t.Errorf("calls %d and %d of one session got the same elicitation ID %s", prev, n, o.elicitationID)
		}
		seen[key] = n
		if o.err != nil || o.toolError != "" || o.result == nil {
			t.Errorf("call %d: err=%v toolError=%q", n, o.err, o.toolError)
			continue
		}
		if o.result.N != n || o.result.Value != answerValue(n) {
			t.Errorf("call %d got %+v: another call's data", n, *o.result)
		}
		ci, ai := replicaIndex(rs, o.callURL), replicaIndex(rs, o.answerURL)
		if ci == ai || ci < 0 || ai < 0 {
			t.Errorf("call %d ran on %d and was answered on %d", n, ci, ai)
		}
		if o.result.Replica != rs[ci].id {
			t.Errorf("call %d posted to replica %s ran on %s", n, rs[ci].id, o.result.Replica)
		}
		if !strings.HasPrefix(strings.Trim(string(o.elicitationID), `"`), rs[ci].id+".") {
			t.Errorf("call %d: elicitation ID %s lacks the prefix of replica %s", n, o.elicitationID, rs[ci].id)
		}
		forwarded++
	}
	if forwarded != calls {
		t.Fatalf("%d of %d calls completed with their own answer", forwarded, calls)
	}
}

func TestDeleteOnOneReplicaIs404OnAll(t *testing.T) {
	_, c, ctx := threeReplicas(t, 30*time.Second, "-keepalive", "500ms")
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every replica has served the session (and holds it locally) before the delete.
	for i := range 3 {
		if m, _, err := s.rpc(ctx, c.urls[i], "tools/list", map[string]any{}); err != nil || m.Error != nil {
			t.Fatalf("tools/list on replica %d before DELETE: %v", i, err)
		}
	}
	// A GET stream open on replica 1 and a call waiting for its elicitation
	// on replica 2 must end too, within the keep-alive interval.
	get, err := openGET(ctx, s, c.urls[1])
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	getEnded := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, get.Body); getEnded <- err }()
	asked := make(chan struct{})
	callEnded := make(chan askOutcome, 1)
	c.next.Store(2) // the call goes to replica 2
	go func() {
		callEnded <- s.ask(ctx, 7, func(*askOutcome) bool { close(asked); return false })
	}()
	<-asked

	resp, err := s.do(ctx, http.MethodDelete, c.urls[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE: HTTP %d", resp.StatusCode)
	}
	deleted := time.Now()
	// No request reaches replicas 1 and 2 meanwhile: their streams end on
	// their own (keep-alive tick), not because a request found the session gone.
	const bound = 5 * time.Second // ten keep-alive intervals: generous for a loaded CI machine
	select {
	case <-getEnded:
	case <-time.After(bound):
		t.Errorf("the GET stream on replica 1 is still open %v after the DELETE", bound)
	}
	select {
	case o := <-callEnded:
		if o.result != nil {
			t.Errorf("a call of the deleted session completed: %+v", o.result)
		}
	case <-time.After(bound):
		t.Errorf("the call on replica 2 is still running %v after the DELETE", bound)
	}
	t.Logf("streams of the deleted session ended on the other replicas within %v", time.Since(deleted).Round(time.Millisecond))
	for i := range 3 {
		_, resp, err := s.rpc(ctx, c.urls[i], "tools/list", map[string]any{})
		if resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("replica %d after DELETE: %v (want 404)", i, err)
		}
	}
	// The other session is untouched.
	for i := range 3 {
		if m, _, err := other.rpc(ctx, c.urls[i], "tools/list", map[string]any{}); err != nil || m.Error != nil {
			t.Errorf("other session on replica %d: %v", i, err)
		}
	}
}

// openGET opens the session's standalone GET stream on url.
func openGET(ctx context.Context, s *session, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("MCP-Protocol-Version", s.version)
	resp, err := s.c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET: HTTP %d", resp.StatusCode)
	}
	return resp, nil
}

func TestLateAndForeignAnswersAreRefusedEverywhere(t *testing.T) {
	_, c, ctx := threeReplicas(t, 30*time.Second, "-request-timeout", "300ms")
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	intruder, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The client never answers: the wait ends on the call's replica.
	o := s.ask(ctx, 1, func(o *askOutcome) bool {
		// Meanwhile another session answers this ID on every replica: refused.
		for i := range 3 {
			m := answerFrom(t, ctx, intruder, c.urls[i], o.elicitationID)
			if !strings.Contains(strings.ToLower(m), "no request") && !strings.Contains(strings.ToLower(m), "unknown") {
				t.Errorf("another session's answer on replica %d: %q (want refused as unknown)", i, m)
			}
		}
		return false
	})
	if o.err != nil || o.result != nil || o.toolError == "" {
		t.Fatalf("unanswered call: err=%v result=%v", o.err, o.result)
	}
	for i := range 3 {
		if m := answerFrom(t, ctx, s, c.urls[i], o.elicitationID); !strings.Contains(strings.ToLower(m), "expired") {
			t.Errorf("late answer on replica %d: %q (want request expired)", i, m)
		}
	}
	if m := answerFrom(t, ctx, s, c.urls[0], []byte(`"never-sent-1"`)); strings.Contains(strings.ToLower(m), "expired") || m == "" {
		t.Errorf("answer to an unknown ID: %q (want a reply distinct from expired)", m)
	}
}

// answerFrom posts an accept answer to id and returns the error text of the
// reply ("" for 202 Accepted).
func answerFrom(t *testing.T, ctx context.Context, s *session, url string, id []byte) string {
	t.Helper()
	resp, err := s.do(ctx, http.MethodPost, url, map[string]any{"jsonrpc": "2.0", "id": rawID(id),
		"result": map[string]any{"action": "accept", "content": map[string]any{"value": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusAccepted {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return fmt.Sprintf("HTTP %d: %s", resp.StatusCode, b)
}

type rawID []byte

func (r rawID) MarshalJSON() ([]byte, error) { return r, nil }

func TestKilledReplicaEndsItsCallsWithErrors(t *testing.T) {
	rs, c, ctx := threeReplicas(t, 60*time.Second, "-request-timeout", "10s")
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const calls = 30
	var asked sync.WaitGroup
	asked.Add(calls)
	killed := make(chan struct{})
	go func() {
		asked.Wait()
		rs[1].kill()
		c.markDead(rs[1].url)
		close(killed)
	}()
	out := make([]askOutcome, calls)
	var wg sync.WaitGroup
	for n := range calls {
		wg.Go(func() {
			// Every call holds its elicitation until replica 1 is dead, then
			// answers through a live replica.
			out[n] = s.ask(ctx, n, func(*askOutcome) bool { asked.Done(); <-killed; return true })
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("calls hung past the test's deadline")
	}
	var done, onDead int
	for n, o := range out {
		ci := replicaIndex(rs, o.callURL)
		if ci == 1 {
			// The client learns at once: its answer is refused as expired
			// (the replica that asked is gone), and the stream is broken.
			onDead++
			if o.err == nil || !strings.Contains(strings.ToLower(o.err.Error()), "expired") {
				t.Errorf("call %d on the killed replica: err=%v (want the answer refused as expired)", n, o.err)
			}
			continue
		}
		if o.err != nil || o.result == nil || o.result.N != n || o.result.Value != answerValue(n) {
			t.Errorf("call %d on live replica %d: err=%v toolError=%q result=%+v", n, ci, o.err, o.toolError, o.result)
			continue
		}
		done++
	}
	t.Logf("%d calls completed on the live replicas, %d ended with a clear error by the kill", done, onDead)
	if onDead != calls/3 || done != calls-calls/3 {
		t.Fatalf("completed %d, ended by the kill %d; want %d and %d", done, onDead, calls-calls/3, calls/3)
	}
	// The survivors serve the session on.
	if o := s.ask(ctx, 1000, nil); o.result == nil || o.result.Value != answerValue(1000) {
		t.Fatalf("after the kill: %+v", o)
	}
}

func TestStreamReplaysOnAnyReplicaAndOnlyForItsSession(t *testing.T) {
	_, c, ctx := threeReplicas(t, 30*time.Second)
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	intruder, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o := s.ask(ctx, 42, nil)
	if o.result == nil || o.primeID == "" || len(o.events) != 2 {
		t.Fatalf("call (want a priming event, elicitation/create and the result): %+v", o)
	}
	// The client lost the stream after its priming event: every replica,
	// including those that never held it, replays the whole stream from Redis.
	for i := range 3 {
		got := replay(t, ctx, s, c.urls[i], o.primeID)
		if strings.Join(got, "\n") != strings.Join(o.events, "\n") {
			t.Errorf("replica %d replayed\n%s\nwant\n%s", i, strings.Join(got, "\n"), strings.Join(o.events, "\n"))
		}
	}
	// Another session's Last-Event-ID replays nothing of this session.
	for i := range 3 {
		if got := replay(t, ctx, intruder, c.urls[i], o.primeID); len(got) > 0 {
			t.Errorf("replica %d replayed another session's events: %q", i, got)
		}
	}
}

// replay GETs with Last-Event-ID and returns the messages replayed.
func replay(t *testing.T, ctx context.Context, s *session, url, lastEventID string) []string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("MCP-Protocol-Version", s.version)
	req.Header.Set("Last-Event-ID", lastEventID)
	resp, err := s.c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	var got []string
	err = readEvents(resp, func(_ string, m *msg) (bool, error) {
		raw, _ := json.Marshal(m)
		got = append(got, string(raw))
		return false, nil
	}, nil)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("reading the replay: %v", err)
	}
	return got
}

func TestLogLevelSetOnOneReplicaHoldsOnAll(t *testing.T) {
	_, c, ctx := threeReplicas(t, 30*time.Second)
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logs := func(o askOutcome) int {
		n := 0
		for _, e := range o.events {
			if strings.Contains(e, `"method":"notifications/message"`) {
				n++
			}
		}
		return n
	}
	// Every replica runs one call before (no log level: no log messages)...
	for i := range 3 {
		c.next.Store(uint64(i))
		if o := s.ask(ctx, i, nil); o.result == nil || logs(o) != 0 {
			t.Fatalf("before logging/setLevel, replica %d: %+v", i, o)
		}
	}
	c.next.Store(0)
	if m, _, err := s.rpc(ctx, c.pick(), "logging/setLevel", map[string]any{"level": "info"}); err != nil || m.Error != nil {
		t.Fatalf("logging/setLevel: %v %+v", err, m)
	}
	// ...and after: each sends the tool's info log, whichever replica took the setLevel.
	for i := range 3 {
		c.next.Store(uint64(i))
		o := s.ask(ctx, 10+i, nil)
		if o.result == nil || logs(o) != 1 {
			t.Errorf("after logging/setLevel on replica 0, replica %d sent %d log messages: %q", i, logs(o), o.events)
		}
	}
}

// A replica that sees no request of a session for the idle timeout forgets
// its local copy only: the session lives on while the client uses it through
// the other replicas, and expires everywhere only when idle everywhere.
func TestIdleOnOneReplicaIsNotIdleEverywhere(t *testing.T) {
	const idle = 1500 * time.Millisecond
	_, c, ctx := threeReplicas(t, 30*time.Second, "-idle", idle.String(), "-keepalive", "100ms")
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // every replica holds the session
		if m, _, err := s.rpc(ctx, c.urls[i], "tools/list", map[string]any{}); err != nil || m.Error != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	// Three idle timeouts of traffic through replicas 0 and 1 only.
	start := time.Now()
	end := start.Add(3 * idle)
	for i := 0; time.Now().Before(end); i++ {
		if m, _, err := s.rpc(ctx, c.urls[i%2], "tools/list", map[string]any{}); err != nil || m.Error != nil {
			t.Fatalf("after %v of traffic through replicas 0 and 1, replica %d: %v (replica 2's idle expiry ended the session for all)",
				time.Since(start).Round(time.Millisecond), i%2, err)
		}
		time.Sleep(idle / 10) // the client's own pace: a request every 150ms
	}
	if m, _, err := s.rpc(ctx, c.urls[2], "tools/list", map[string]any{}); err != nil || m.Error != nil {
		t.Fatalf("replica 2 after its local copy went idle: %v", err)
	}
	// Idle everywhere: gone everywhere (the store's expiry).
	deadline := time.Now().Add(10 * idle)
	for {
		_, resp, _ := s.rpc(ctx, c.urls[0], "tools/list", map[string]any{})
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session outlived ten idle timeouts without requests")
		}
		time.Sleep(2 * idle) // no request for longer than the idle timeout
	}
}

// TestChangesReachTheGETStreamOnAnotherReplica: the client subscribes to a
// resource through one replica and holds its GET stream on a second; a
// change announced on the third reaches that stream (the update only for
// the subscribed URI), carried by the session bus.
func TestChangesReachTheGETStreamOnAnotherReplica(t *testing.T) {
	rs, c, ctx := threeReplicas(t, 30*time.Second)
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	get, err := openGET(ctx, s, rs[1].url)
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	if m, _, err := s.rpc(ctx, rs[2].url, "resources/subscribe", map[string]any{"uri": "replica://doc"}); err != nil || m.Error != nil {
		t.Fatalf("resources/subscribe on replica 2: %v %+v", err, m)
	}
	for _, uri := range []string{"replica://other", "replica://doc"} {
		if m, _, err := s.rpc(ctx, rs[0].url, "tools/call", map[string]any{"name": "touch", "arguments": map[string]any{"uri": uri}}); err != nil || m.Error != nil {
			t.Fatalf("touch on replica 0: %v %+v", err, m)
		}
	}
	// In order on the GET stream: the list change of the first touch, then
	// the update and list change of the second; replica://other never.
	want := []string{"notifications/resources/list_changed", `notifications/resources/updated {"uri":"replica://doc"}`, "notifications/resources/list_changed"}
	var got []string
	err = readMessages(get, func(m *msg) (bool, error) {
		if m.Method == "" || m.Method == "ping" {
			return false, nil
		}
		g := m.Method
		if m.Method == "notifications/resources/updated" {
			g += " " + string(m.Params)
		}
		got = append(got, g)
		return len(got) == len(want), nil
	})
	if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("GET stream on replica 1: %v\n got %q\nwant %q", err, got, want)
	}
}

// A replica that shuts down gracefully (a rolling deploy) forgets the
// sessions it holds; it does not end them for the other replicas, which
// serve them on.
func TestStoppedReplicaLeavesItsSessionsToTheOthers(t *testing.T) {
	rs, c, ctx := threeReplicas(t, 30*time.Second)
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // every replica holds the session
		if m, _, err := s.rpc(ctx, c.urls[i], "tools/list", map[string]any{}); err != nil || m.Error != nil {
			t.Fatalf("tools/list on replica %d: %v", i, err)
		}
	}
	rs[0].stop(t)
	c.markDead(rs[0].url)
	for i := 1; i < 3; i++ {
		if m, _, err := s.rpc(ctx, c.urls[i], "tools/list", map[string]any{}); err != nil || m.Error != nil {
			t.Errorf("replica %d after replica 0 stopped: %v", i, err)
		}
	}
	if o := s.ask(ctx, 1, nil); o.result == nil {
		t.Errorf("an elicitation after replica 0 stopped: %+v", o)
	}
}
