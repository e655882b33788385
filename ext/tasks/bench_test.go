package tasks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/ext/tasks"
	"github.com/mcpgen/mcpgen/runtime"
)

// BenchmarkTaskRoundTrip sets a plain 2026-07-28 tools/call beside the same
// call run as a task: tools/call (CreateTaskResult), then tasks/get until
// the task has completed, through the Server's handler without the network,
// on the in-memory Store. The benchmark waits for the task's end in
// process and then reads it with one tasks/get, as a client whose poll
// comes after the end does; a client polls every pollIntervalMs instead.
func BenchmarkTaskRoundTrip(b *testing.B) {
	// One caller makes every task, and they are kept for their TTL: the
	// bounds are raised so that a long run is not refused.
	s := runtime.NewServer(runtime.Options{CallerShare: 1})
	b.Cleanup(func() { _ = s.Close() })
	store := &tasks.MemoryStore{Limit: 1 << 20}
	if err := tasks.Add(s, tasks.Options{Store: store, MaxTasks: 1 << 20}); err != nil {
		b.Fatal(err)
	}
	err := s.AddTool(runtime.Tool{Name: "add", Definition: json.RawMessage(`{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},"execution":{"taskSupport":"optional"}}`),
		Handler: func(_ context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
			var in struct{ A, B int }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return runtime.ContentResult(call, []runtime.Content{runtime.Text("sum")}), nil
		}})
	if err != nil {
		b.Fatal(err)
	}
	do := func(b *testing.B, method, name, params, caps string) map[string]any {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", runtime.Version20260728)
		r.Header.Set("Mcp-Method", method)
		r.Header.Set("Mcp-Name", name)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		var m struct {
			Result map[string]any `json:"result"`
		}
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &m) != nil {
			b.Fatalf("%s: HTTP %d: %s", method, w.Code, w.Body)
		}
		return m.Result
	}
	args := `"name":"add","arguments":{"a":1,"b":2}`
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if r := do(b, "tools/call", "add", args, `{}`); r["resultType"] != "complete" {
				b.Fatal(r)
			}
		}
	})
	b.Run("task", func(b *testing.B) {
		caps := `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
		gets := 0
		b.ReportAllocs()
		for b.Loop() {
			r := do(b, "tools/call", "add", args, caps)
			id, _ := r["taskId"].(string)
			if r["resultType"] != "task" || id == "" {
				b.Fatal(r)
			}
			// Wait for the end in process (a client would sleep
			// pollIntervalMs), then read it with one tasks/get.
			for {
				ch, done := store.TaskChanged(context.Background(), id)
				rec, err := store.GetTask(context.Background(), id)
				if err != nil {
					b.Fatal(err)
				}
				if rec.Terminal() {
					done()
					break
				}
				<-ch
				done()
			}
			gets++
			if g := do(b, "tasks/get", id, `"taskId":"`+id+`"`, caps); g["status"] != tasks.Completed {
				b.Fatal(g)
			}
		}
		b.ReportMetric(float64(gets)/float64(b.N), "gets/op")
	})
}
