package redisstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRootsChangedThroughOneReplicaAreReadOnAnother: a session's roots are
// its shared state. The client holds its GET stream on replica 1; the fetch
// after notifications/initialized (received by replica 0) and the refetch
// after notifications/roots/list_changed (received by replica 2) reach it
// there through the bus, their answers go through yet other replicas, and a
// call on any replica reads the list without asking the client: it is asked
// exactly once per change.
func TestRootsChangedThroughOneReplicaAreReadOnAnother(t *testing.T) {
	rs, c, ctx := threeReplicas(t, 60*time.Second)
	s := &session{c: c}
	m, resp, err := s.rpc(ctx, rs[0].url, "initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{"roots": map[string]any{"listChanged": true}},
		"clientInfo":      map[string]any{"name": "roots-test", "version": "1"},
	})
	if err != nil || m.Error != nil {
		t.Fatalf("initialize: %v %+v", err, m)
	}
	s.id, s.version = resp.Header.Get("Mcp-Session-Id"), protocolVersion
	get, err := openGET(ctx, s, rs[1].url)
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	questions := make(chan *msg, 8)
	go func() {
		defer close(questions)
		_ = readMessages(get, func(m *msg) (bool, error) {
			if m.Method == "roots/list" {
				questions <- m
			}
			return false, nil
		})
	}()
	asked := 0
	answer := func(url string, uris ...string) {
		t.Helper()
		select {
		case q := <-questions:
			asked++
			roots := make([]map[string]string, len(uris))
			for i, u := range uris {
				roots[i] = map[string]string{"uri": u}
			}
			if err := s.post(ctx, url, map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": map[string]any{"roots": roots}}, http.StatusAccepted); err != nil {
				t.Fatalf("answering roots/list through %s: %v", url, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no roots/list on the GET stream within 10s")
		}
	}
	// landed waits until replica url's fetch of the session's roots has
	// landed n times (its Options.RootsChanged).
	landed := func(url string, n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			m, _, err := s.rpc(ctx, url, "tools/call", map[string]any{"name": "roots_changes", "arguments": map[string]any{}})
			if err != nil || m.Error != nil {
				t.Fatalf("roots_changes: %v %+v", err, m)
			}
			if got, _ := strconv.Atoi(toolText(t, m)); got >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the roots fetch of %s did not land within 10s", url)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// read calls "roots" on url and fails if the call asked the client.
	read := func(url string) []string {
		t.Helper()
		id := s.nextID.Add(1)
		resp, err := s.do(ctx, http.MethodPost, url, map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": "roots", "arguments": map[string]any{}}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res struct {
			Roots   []string `json:"roots"`
			Session string   `json:"session"`
			Client  string   `json:"client"`
		}
		err = readMessages(resp, func(m *msg) (bool, error) {
			if m.Method != "" {
				return false, fmt.Errorf("the call on %s sent %s", url, m.Method)
			}
			return true, json.Unmarshal([]byte(toolText(t, m)), &res)
		})
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		if res.Session != s.id || res.Client != "roots-test" {
			t.Errorf("the call on %s saw session %q client %q", url, res.Session, res.Client)
		}
		return res.Roots
	}

	if err := s.post(ctx, rs[0].url, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, http.StatusAccepted); err != nil {
		t.Fatal(err)
	}
	answer(rs[2].url, "file:///a")
	landed(rs[0].url, 1)
	for _, i := range []int{1, 2} {
		if got := read(rs[i].url); strings.Join(got, " ") != "file:///a" {
			t.Errorf("replica %d read %q", i, got)
		}
	}

	if err := s.post(ctx, rs[2].url, map[string]any{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}, http.StatusAccepted); err != nil {
		t.Fatal(err)
	}
	answer(rs[0].url, "file:///a", "file:///b")
	landed(rs[2].url, 1)
	for _, i := range []int{0, 1} {
		if got := read(rs[i].url); strings.Join(got, " ") != "file:///a file:///b" {
			t.Errorf("after the change, replica %d read %q", i, got)
		}
	}
	select {
	case q, ok := <-questions:
		if ok {
			t.Errorf("asked again: %+v", q)
		}
	case <-time.After(300 * time.Millisecond):
	}
	if asked != 2 {
		t.Errorf("the client was asked for its roots %d times, want 2", asked)
	}
}

// toolText is the first text block of a tools/call response.
func toolText(t *testing.T, m *msg) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d: %s", m.Error.Code, m.Error.Message)
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("result %s: %v", m.Result, err)
	}
	return r.Content[0].Text
}
