package tasks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/mcpgen/mcpgen/ext/tasks"
	"github.com/mcpgen/mcpgen/internal/wiretest"
	"github.com/mcpgen/mcpgen/runtime"
)

// Without a principal a caller is its client's address, so the sessions it
// opens (and throws away) and its 2026-07-28 requests share one share of
// MaxTasks. The tests tell two clients apart on loopback the way a
// deployment behind a proxy does: the server trusts 127.0.0.1 as its
// proxy, and the other client's requests name their address (from a range
// reserved for documentation) in X-Forwarded-For.

func quickTask() runtime.Tool {
	return taskTool("quick", "optional", func(_ context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		return runtime.ContentResult(call, []runtime.Content{runtime.Text("done")}), nil
	})
}

// forwardedFor are the Options of a client whose requests name addr in
// X-Forwarded-For ("" for none).
func forwardedFor(addr string) wiretest.Options {
	o := wiretest.Options{Headers: http.Header{}}
	if addr != "" {
		o.Headers.Set("X-Forwarded-For", addr)
	}
	return o
}

// TestThrowawaySessionsShareOneShareOfTasks: a client that opens a session
// per task and deletes it gets its address's share of MaxTasks and no more
// (before, each session was a caller of its own and 11 sessions took the
// whole bound); its 2026-07-28 requests count against the same share;
// another client is served.
func TestThrowawaySessionsShareOneShareOfTasks(t *testing.T) {
	wiretest.NoLeaks(t)
	url := serve(t, newServer(t, runtime.Options{TrustedProxies: []string{"127.0.0.1"}}, tasks.Options{MaxTasks: 20}, quickTask())) // a share is 2 tasks
	for i := range 3 {
		c := wiretest.LegacyHTTP(t, url, runtime.Version20251125, `{}`, forwardedFor(""))
		m := c.Call(t, "tools/call", taskParams(c, "quick"))
		if i < 2 && m.Error != nil {
			t.Fatalf("task %d of the client's share: %+v", i+1, m.Error)
		}
		if i == 2 && !limited(m, "tasks.Options.MaxTasks") {
			t.Errorf("a third task from a third session of one address: %s %+v, want the MaxTasks share refused", m.Result, m.Error)
		}
		c.Delete(t)
	}
	modern := wiretest.ModernHTTP(t, url, tasksCaps, forwardedFor(""))
	if r := modern.Send(t, "tools/call", taskParams(modern, "quick"), nil); r.Status != http.StatusTooManyRequests || !limited(r.Message, "tasks.Options.MaxTasks") {
		t.Errorf("a 2026-07-28 task from the same address: HTTP %d %s %+v, want 429 naming MaxTasks", r.Status, r.Message.Result, r.Message.Error)
	}
	for _, other := range []*wiretest.Conn{
		wiretest.LegacyHTTP(t, url, runtime.Version20251125, `{}`, forwardedFor("203.0.113.7")),
		wiretest.ModernHTTP(t, url, tasksCaps, forwardedFor("203.0.113.7")),
	} {
		if m := other.Call(t, "tools/call", taskParams(other, "quick")); m.Error != nil {
			t.Errorf("%s: another client is refused a task: %+v", other.Name, m.Error)
		}
	}
}

// TestForwardedForIsIgnoredFromUntrustedPeers: without TrustedProxies a
// client cannot mint callers by naming addresses in X-Forwarded-For.
func TestForwardedForIsIgnoredFromUntrustedPeers(t *testing.T) {
	wiretest.NoLeaks(t)
	url := serve(t, newServer(t, runtime.Options{}, tasks.Options{MaxTasks: 20}, quickTask()))
	for i, addr := range []string{"198.51.100.1", "198.51.100.2", "198.51.100.3"} {
		c := wiretest.LegacyHTTP(t, url, runtime.Version20251125, `{}`, forwardedFor(addr))
		if m := c.Call(t, "tools/call", taskParams(c, "quick")); i == 2 && !limited(m, "tasks.Options.MaxTasks") {
			t.Errorf("a third task claiming a third forwarded address: %s %+v, want the peer's share refused", m.Result, m.Error)
		}
	}
}

// adapterCall is the call handle generated code gives a tool.
type adapterCall struct{ runtime.ToolCall }

func newAdapterCall(call *runtime.Call) adapterCall { return adapterCall{runtime.NewToolCall(call)} }

type photoOut struct {
	Caption string   `json:"caption"`
	Labels  []string `json:"labels"`
}

const photoSchema = `{"type":"object","properties":{"caption":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}},"required":["caption","labels"]}`

// TestToolAdapterContentInTasks: a tool run as a task keeps the content its
// handler chose beside its structured output, and the blocks it added
// before failing, in every era and transport.
func TestToolAdapterContentInTasks(t *testing.T) {
	wiretest.NoLeaks(t)
	pixel := []byte{0x89, 'P', 'N', 'G'}
	photo := runtime.NewStructuredTool(runtime.Tool{Name: "task_photo", Definition: json.RawMessage(`{"name":"task_photo","inputSchema":{"type":"object"},` +
		`"outputSchema":` + photoSchema + `,"execution":{"taskSupport":"optional"}}`)},
		newAdapterCall, func(_ context.Context, call adapterCall, _ struct{}) (photoOut, error) {
			call.AddContent(&runtime.ImageContent{Data: pixel, MIMEType: "image/png"}, runtime.Text("a cat"))
			return photoOut{Caption: "cat", Labels: []string{"pet"}}, nil
		})
	fails := runtime.NewContentTool(runtime.Tool{Name: "task_fails", Definition: json.RawMessage(`{"name":"task_fails","inputSchema":{"type":"object"},` +
		`"execution":{"taskSupport":"optional"}}`)},
		newAdapterCall, func(_ context.Context, call adapterCall, _ struct{}) ([]runtime.Content, error) {
			call.AddContent(runtime.Text("copied 3 of 5 files"))
			return nil, errorString("the disk is full")
		})
	for _, w := range wires(t, runtime.Options{}, tasks.Options{}, photo, fails) {
		t.Run(w.Name, func(t *testing.T) {
			result := func(tool, status string) json.RawMessage {
				id := callAsTask(t, w, tool).TaskID
				done := awaitStatus(t, w, id, status)
				if w.Modern {
					return done.Result
				}
				m := w.Call(t, "tasks/result", map[string]any{"taskId": id})
				if m.Error != nil {
					t.Fatalf("%s: tasks/result error %+v", tool, m.Error)
				}
				return m.Result
			}
			var r struct {
				Content           []json.RawMessage `json:"content"`
				StructuredContent json.RawMessage   `json:"structuredContent"`
				IsError           bool              `json:"isError"`
			}
			if err := json.Unmarshal(result("task_photo", tasks.Completed), &r); err != nil {
				t.Fatal(err)
			}
			want := []json.RawMessage{json.RawMessage(`{"type":"image","data":"iVBORw==","mimeType":"image/png"}`), json.RawMessage(`{"type":"text","text":"a cat"}`)}
			if !sameJSON(r.Content, want) || !sameJSON(r.StructuredContent, json.RawMessage(`{"caption":"cat","labels":["pet"]}`)) {
				t.Fatalf("task_photo: content %s structuredContent %s", r.Content, r.StructuredContent)
			}
			failed := tasks.Failed // a tool error fails a 2025-11-25 task, completes a 2026-07-28 one
			if w.Modern {
				failed = tasks.Completed
			}
			r.Content = nil
			if err := json.Unmarshal(result("task_fails", failed), &r); err != nil {
				t.Fatal(err)
			}
			want = []json.RawMessage{json.RawMessage(`{"type":"text","text":"the disk is full"}`), json.RawMessage(`{"type":"text","text":"copied 3 of 5 files"}`)}
			if !r.IsError || !sameJSON(r.Content, want) {
				t.Fatalf("task_fails: isError %v content %s", r.IsError, r.Content)
			}
		})
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// sameJSON reports whether a and b encode the same JSON values, whatever
// the order of their keys.
func sameJSON(a, b any) bool {
	norm := func(v any) any {
		raw, _ := json.Marshal(v)
		var out any
		_ = json.Unmarshal(raw, &out)
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}
