package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// TestToolAdapterContentInTasks: a tool run as a task keeps the content its
// handler chose beside its structured output, and the blocks it added
// before failing, in every era and transport.
func TestToolAdapterContentInTasks(t *testing.T) {
	noLeaks(t)
	photo := NewStructuredTool(Tool{Name: "task_photo", Definition: json.RawMessage(`{"name":"task_photo","inputSchema":{"type":"object"},` +
		`"outputSchema":` + photoSchema + `,"execution":{"taskSupport":"optional"}}`)},
		newAdapterCall, func(_ context.Context, call adapterCall, _ struct{}) (photoOut, error) {
			call.AddContent(&ImageContent{Data: pixel, MIMEType: "image/png"}, Text("a cat"))
			return photoOut{Caption: "cat", Labels: []string{"pet"}}, nil
		})
	fails := NewContentTool(Tool{Name: "task_fails", Definition: json.RawMessage(`{"name":"task_fails","inputSchema":{"type":"object"},` +
		`"execution":{"taskSupport":"optional"}}`)},
		newAdapterCall, func(_ context.Context, call adapterCall, _ struct{}) ([]Content, error) {
			call.AddContent(Text("copied 3 of 5 files"))
			return nil, errors.New("the disk is full")
		})
	for _, w := range taskWires(t, Options{}, photo, fails) {
		t.Run(w.name, func(t *testing.T) {
			result := func(tool, status string) json.RawMessage {
				id := callAsTask(t, w, tool).TaskID
				done := awaitStatus(t, w, id, status)
				if w.modern {
					return done.Result
				}
				m := w.send(t, "tasks/result", map[string]any{"taskId": id}, nil)
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
			if err := json.Unmarshal(result("task_photo", TaskCompleted), &r); err != nil {
				t.Fatal(err)
			}
			want := []json.RawMessage{json.RawMessage(`{"type":"image","data":"iVBORw==","mimeType":"image/png"}`), json.RawMessage(`{"type":"text","text":"a cat"}`)}
			if !sameJSON(r.Content, want) || !sameJSON(r.StructuredContent, json.RawMessage(`{"caption":"cat","labels":["pet"]}`)) {
				t.Fatalf("task_photo: content %s structuredContent %s", r.Content, r.StructuredContent)
			}
			failed := TaskFailed // a tool error fails a 2025-11-25 task, completes a 2026-07-28 one
			if w.modern {
				failed = TaskCompleted
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

// sameJSON reports whether a and b encode the same JSON values, whatever
// the order of their keys (the 2026-07-28 HTTP wire of the tests decodes and
// re-encodes results).
func sameJSON(a, b any) bool {
	norm := func(v any) any {
		raw, _ := json.Marshal(v)
		var out any
		_ = json.Unmarshal(raw, &out)
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}
