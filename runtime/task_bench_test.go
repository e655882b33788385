package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkTaskRoundTrip sets a plain 2026-07-28 tools/call beside the same
// call run as a task: tools/call (CreateTaskResult), then tasks/get until
// the task has completed, through the Server's handler without the network,
// on the in-memory TaskStore. The benchmark waits for the task's end in
// process and then reads it with one tasks/get, as a client whose poll
// comes after the end does; a client polls every pollIntervalMs instead.
func BenchmarkTaskRoundTrip(b *testing.B) {
	s := NewServer(Options{})
	b.Cleanup(func() { _ = s.Close() })
	err := s.AddTool(Tool{Name: "add", Definition: json.RawMessage(`{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},"execution":{"taskSupport":"optional"}}`),
		Handler: func(_ context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
			var in struct{ A, B int }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return ContentResult(call, []Content{Text("sum")}), nil
		}})
	if err != nil {
		b.Fatal(err)
	}
	h := handlerOf(s)
	do := func(b *testing.B, method, name, params, caps string) map[string]any {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set(headerProtocolVersion, Version20260728)
		r.Header.Set(headerMethod, method)
		r.Header.Set(headerName, name)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
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
				ch, done := s.tasks.store.TaskChanged(context.Background(), id)
				rec, err := s.tasks.store.GetTask(context.Background(), id)
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
			if g := do(b, "tasks/get", id, `"taskId":"`+id+`"`, caps); g["status"] != TaskCompleted {
				b.Fatal(g)
			}
		}
		b.ReportMetric(float64(gets)/float64(b.N), "gets/op")
	})
}
