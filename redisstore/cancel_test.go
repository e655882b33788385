package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// waitingCall is a tools/call "ask" whose elicitation the client does not
// answer: its stream's messages, and how the stream ended.
type waitingCall struct {
	id          int64
	url         string
	elicitation json.RawMessage
	msgs        []*msg
	ended       chan error
}

// startWaitingCall posts tools/call "ask" to url and returns once its
// elicitation arrived; the stream is read on until it ends.
func startWaitingCall(ctx context.Context, t *testing.T, s *session, url string, n int) *waitingCall {
	t.Helper()
	w := &waitingCall{id: s.nextID.Add(1), url: url, ended: make(chan error, 1)}
	resp, err := s.do(ctx, http.MethodPost, url, map[string]any{"jsonrpc": "2.0", "id": w.id, "method": "tools/call",
		"params": map[string]any{"name": "ask", "arguments": map[string]any{"n": n}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("tools/call on %s: HTTP %d: %s", url, resp.StatusCode, b)
	}
	asked := make(chan json.RawMessage, 1)
	go func() {
		defer resp.Body.Close()
		w.ended <- readMessages(resp, func(m *msg) (bool, error) {
			w.msgs = append(w.msgs, m)
			if m.Method == "elicitation/create" {
				asked <- m.ID
			}
			return false, nil
		})
	}()
	select {
	case w.elicitation = <-asked:
	case err := <-w.ended:
		t.Fatalf("the call on %s ended before asking: %v", url, err)
	case <-ctx.Done():
		t.Fatalf("no elicitation from the call on %s", url)
	}
	return w
}

// A client's notifications/cancelled goes to whichever replica the balancer
// picks. For each replica running a call, the cancel is posted to another
// one: the call still ends at once (well within the bound, while its
// RequestTimeout is a minute), notifications/cancelled goes out for its
// elicitation on the call's stream, the server sends no response to the
// cancelled request, and a late answer gets 410 "request expired" on every
// replica.
func TestCancelReachesTheReplicaRunningTheCall(t *testing.T) {
	addr := redisSpec(t)
	prefix := testPrefix(t)
	rs := startReplicas(t, 3, addr, prefix, "-request-timeout", "60s")
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const bound = 5 * time.Second
	for i := range rs {
		w := startWaitingCall(ctx, t, s, rs[i].url, i)
		cancelURL := rs[(i+1)%len(rs)].url
		note := map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
			"params": map[string]any{"requestId": w.id, "reason": "the user gave up"}}
		if err := s.post(ctx, cancelURL, note, http.StatusAccepted); err != nil {
			t.Fatal(err)
		}
		select {
		case <-w.ended:
		case <-time.After(bound):
			t.Fatalf("call on replica %d: still running %v after its cancel reached replica %d", i, bound, (i+1)%len(rs))
		}
		var sawCancel bool
		for _, m := range w.msgs {
			switch {
			case m.Method == "notifications/cancelled":
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				json.Unmarshal(m.Params, &p)
				sawCancel = sawCancel || string(p.RequestID) == string(w.elicitation)
			case m.Method == "" && string(m.ID) == fmt.Sprint(w.id):
				t.Errorf("call on replica %d: the server answered the request the client cancelled: %s %s", i, m.Result, m.ID)
			}
		}
		if !sawCancel {
			t.Errorf("call on replica %d: no notifications/cancelled for its elicitation %s", i, w.elicitation)
		}
		for j := range rs {
			ans := map[string]any{"jsonrpc": "2.0", "id": w.elicitation, "result": map[string]any{"action": "accept", "content": map[string]any{"value": 1}}}
			if err := s.post(ctx, rs[j].url, ans, http.StatusGone); err != nil {
				t.Errorf("late answer to the cancelled call's elicitation on replica %d: %v", j, err)
			}
		}
	}
}

// A DELETE on one replica ends the session's GET stream and waiting call on
// the other replicas at once, not at their next keep-alive tick (15s here,
// the default).
func TestDeleteEndsStreamsOnOtherReplicasAtOnce(t *testing.T) {
	addr := redisSpec(t)
	rs := startReplicas(t, 3, addr, testPrefix(t), "-request-timeout", "60s")
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	get, err := openGET(ctx, s, rs[1].url)
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	getEnded := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, get.Body); getEnded <- err }()
	w := startWaitingCall(ctx, t, s, rs[2].url, 1)
	resp, err := s.do(ctx, http.MethodDelete, rs[0].url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d", resp.StatusCode)
	}
	const bound = 3 * time.Second // a fifth of the keep-alive interval
	deleted := time.Now()
	timeout := time.After(bound)
	for range 2 {
		select {
		case <-getEnded:
			getEnded = nil
		case <-w.ended:
			w.ended = nil
		case <-timeout:
			t.Fatalf("%v after the DELETE on replica 0: GET stream on replica 1 ended %v, call on replica 2 ended %v",
				bound, getEnded == nil, w.ended == nil)
		}
	}
	t.Logf("the GET stream and the call on the other replicas ended %v after the DELETE", time.Since(deleted).Round(time.Millisecond))
}

// A keep-alive ping whose answer never came expires at the next round,
// also when its stream is gone meanwhile: a late answer gets "request
// expired" on every replica (before that round it would be taken). An
// answered ping is done with: answered again, it is "request expired" too.
func TestUnansweredPingExpiresAfterItsStream(t *testing.T) {
	addr := redisSpec(t)
	rs := startReplicas(t, 2, addr, testPrefix(t), "-keepalive", "100ms")
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pings := func(s *session, n int, answer bool) []json.RawMessage {
		t.Helper()
		get, err := openGET(ctx, s, rs[0].url)
		if err != nil {
			t.Fatal(err)
		}
		defer get.Body.Close()
		var ids []json.RawMessage
		err = readMessages(get, func(m *msg) (bool, error) {
			if m.Method != "ping" {
				return false, nil
			}
			ids = append(ids, m.ID)
			if answer {
				if err := s.post(ctx, rs[1].url, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}}, http.StatusAccepted); err != nil {
					return true, err
				}
			}
			return len(ids) == n, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	a, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unanswered := pings(a, 1, false)[0] // then a's GET stream closes
	// Three keep-alive rounds on b's stream, each ping answered through the
	// other replica: at least two full rounds ran after a's stream was gone.
	answered := pings(b, 3, true)
	for i, r := range rs {
		late := map[string]any{"jsonrpc": "2.0", "id": unanswered, "result": map[string]any{}}
		if err := a.post(ctx, r.url, late, http.StatusGone); err != nil {
			t.Errorf("late answer to the ping of a closed stream on replica %d: %v", i, err)
		}
		again := map[string]any{"jsonrpc": "2.0", "id": answered[0], "result": map[string]any{}}
		if err := b.post(ctx, r.url, again, http.StatusGone); err != nil {
			t.Errorf("second answer to an answered ping on replica %d: %v", i, err)
		}
	}
}
