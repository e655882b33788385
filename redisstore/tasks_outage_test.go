package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/ext/tasks"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestTaskStoreOutageIsUnavailable: with Redis down, every TaskStore
// operation fails with an UnavailableError (errors.Is
// runtime.ErrStoreUnavailable) whose text names no address and no driver
// error, and a 2026-07-28 client asking for a task reads the stable
// message; while Redis is up, an UpdateTask function's own error comes back
// unchanged.
func TestTaskStoreOutageIsUnavailable(t *testing.T) {
	rd := startPrivateRedis(t, false)
	ctx := context.Background()
	st, err := New(ctx, newClient(t, rd.addr), Options{Prefix: testPrefix(t), OpTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ts := st.Tasks()
	defer ts.Close()
	now := time.Now().UTC()
	rec := &tasks.Record{ID: "t1", Tool: "slow", Owner: "s1", Status: tasks.Working, CreatedAt: now, UpdatedAt: now,
		TTL: time.Minute, ExpiresAt: now.Add(time.Minute), LeaseUntil: now.Add(time.Minute)}
	if err := ts.CreateTask(ctx, rec); err != nil {
		t.Fatal(err)
	}
	mine := errors.New("the function's own refusal")
	if _, err := ts.UpdateTask(ctx, "t1", func(*tasks.Record) error { return mine }); err != mine {
		t.Fatalf("UpdateTask returned %v, want the function's error", err)
	}

	srv := runtime.NewServer(runtime.Options{Name: "tasks-outage"})
	defer srv.Close()
	if err := tasks.Add(srv, tasks.Options{Store: ts}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs.Listener = ln
	hs.Start()
	defer hs.Close()

	rd.stop()
	two := &tasks.Record{ID: "t2", Owner: "s1", Status: tasks.Working, CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Minute)}
	_, getErr := ts.GetTask(ctx, "t1")
	_, updErr := ts.UpdateTask(ctx, "t1", func(r *tasks.Record) error { r.Status = tasks.Failed; return nil })
	_, _, listErr := ts.ListTasks(ctx, "s1", "", 10)
	for op, err := range map[string]error{"CreateTask": ts.CreateTask(ctx, two), "GetTask": getErr, "UpdateTask": updErr, "ListTasks": listErr} {
		var ue *UnavailableError
		if !errors.As(err, &ue) || !errors.Is(err, runtime.ErrStoreUnavailable) {
			t.Errorf("%s during the outage: %v (%T), want an UnavailableError", op, err, err)
			continue
		}
		for _, l := range leaks {
			if strings.Contains(err.Error(), l) {
				t.Errorf("%s during the outage: %q holds %q", op, err, l)
			}
		}
	}

	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": map[string]any{"taskId": "t1",
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": runtime.Version20260728,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{tasks.ExtensionID: map[string]any{}}}}}})
	req, _ := http.NewRequest(http.MethodPost, hs.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", runtime.Version20260728)
	req.Header.Set("Mcp-Method", "tasks/get")
	req.Header.Set("Mcp-Name", "t1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got string
	if err := readMessages(resp, func(m *msg) (bool, error) {
		raw, _ := json.Marshal(m)
		got = string(raw)
		return m.Method == "", nil
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `"code":-32603`) || !strings.Contains(got, "task store unavailable; try again later") {
		t.Errorf("tasks/get during the outage answered %s", got)
	}
	for _, l := range leaks {
		if strings.Contains(got, l) {
			t.Errorf("tasks/get during the outage: %s holds %q", got, l)
		}
	}
}
