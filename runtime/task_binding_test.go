package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// whoAsksTool is a task tool that asks a question (2026-07-28: its task
// waits input_required) and answers with who its handler, its context and
// its interceptors see.
func whoAsksTool() Tool {
	return taskTool("who_asks", "optional", func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		var a confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "", &a); err != nil {
			return nil, err
		}
		return ContentResult(call, []Content{Text("call=" + subjectOf(call.Principal()) + " ctx=" + subjectOf(PrincipalFromContext(ctx)))}), nil
	}, confirmForm)
}

// TestTaskIsBoundToItsCreator (issue items 1 and 2): a 2026-07-28 task of
// alice's is unknown to bob, who holds a valid token and her task ID: his
// tasks/get, tasks/update and tasks/cancel get exactly the answer of an ID
// that never existed, and her task completes on her answer. Her handler,
// run as a task, knows its caller, as do the interceptors of its
// questions.
func TestTaskIsBoundToItsCreator(t *testing.T) {
	noLeaks(t)
	var seen sync.Map // method -> subject the Outgoing interceptor saw as the parent's principal
	opts := scopedOptions(Options{Interceptors: []Interceptor{{Outgoing: func(next OutgoingFunc) OutgoingFunc {
		return func(ctx context.Context, req *OutgoingRequest) (json.RawMessage, error) {
			seen.Store(req.Method, subjectOf(req.Parent.Principal)+"/"+subjectOf(PrincipalFromContext(ctx)))
			return next(ctx, req)
		}
	}}}})
	s := NewServer(opts)
	if err := s.AddTool(whoAsksTool()); err != nil {
		t.Fatal(err)
	}
	ts := authedServer(t, s)
	alice := eraClients(t, ts, s, "alice;")[1]
	bob := eraClients(t, ts, s, "bob;")[1]

	_, created := alice.do(t, "tools/call", taskParams(alice, "who_asks"))
	id := taskIDOf(t, created)
	var key string
	for deadline := time.Now().Add(5 * time.Second); key == ""; time.Sleep(5 * time.Millisecond) {
		_, m := alice.do(t, "tasks/get", map[string]any{"taskId": id})
		var got wireTask
		_ = json.Unmarshal(m.Result, &got)
		for k := range got.InputRequests {
			key = k
		}
		if time.Now().After(deadline) {
			t.Fatalf("alice's task never asked: %s", m.Result)
		}
	}
	unknown := newTaskID()
	for _, tc := range []struct {
		method string
		params func(id string) map[string]any
	}{
		{"tasks/get", func(id string) map[string]any { return map[string]any{"taskId": id} }},
		{"tasks/update", func(id string) map[string]any {
			return map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}
		}},
		{"tasks/cancel", func(id string) map[string]any { return map[string]any{"taskId": id} }},
	} {
		st, theirs := bob.do(t, tc.method, tc.params(id))
		st2, none := bob.do(t, tc.method, tc.params(unknown))
		if theirs.Error == nil || none.Error == nil || st != st2 || theirs.Error.Code != none.Error.Code ||
			strings.ReplaceAll(theirs.Error.Message, id, unknown) != none.Error.Message {
			t.Errorf("bob's %s of alice's task: %d %+v %s\nwant what an unknown ID gets: %d %+v", tc.method, st, theirs.Error, theirs.Result, st2, none.Error)
		}
	}
	alice.do(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	var done wireTask
	for deadline := time.Now().Add(5 * time.Second); done.Status != TaskCompleted; time.Sleep(5 * time.Millisecond) {
		_, m := alice.do(t, "tasks/get", map[string]any{"taskId": id})
		done = wireTask{}
		_ = json.Unmarshal(m.Result, &done)
		if time.Now().After(deadline) {
			t.Fatalf("alice's task did not complete: %s", m.Result)
		}
	}
	if !strings.Contains(string(done.Result), "call=alice ctx=alice") {
		t.Errorf("the task's handler saw another caller: %s", done.Result)
	}
	if got, _ := seen.Load("elicitation/create"); got != "alice/alice" {
		t.Errorf("the Outgoing interceptor of the task's question saw %v, want alice/alice", got)
	}
}

// TestLegacyTaskKnowsItsCaller (item 2 in 2025-11-25): a task's handler
// sees the principal of the session that created it, and another
// principal's session cannot see the task.
func TestLegacyTaskKnowsItsCaller(t *testing.T) {
	noLeaks(t)
	s := NewServer(scopedOptions(Options{}))
	tool := taskTool("who", "optional", func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		return ContentResult(call, []Content{Text("call=" + subjectOf(call.Principal()) + " ctx=" + subjectOf(PrincipalFromContext(ctx)))}), nil
	})
	if err := s.AddTool(tool); err != nil {
		t.Fatal(err)
	}
	ts := authedServer(t, s)
	alice, bob := eraClients(t, ts, s, "alice;")[0], eraClients(t, ts, s, "bob;")[0]
	_, created := alice.do(t, "tools/call", taskParams(alice, "who"))
	id := taskIDOf(t, created)
	_, res := alice.do(t, "tasks/result", map[string]any{"taskId": id})
	if got := resultText(t, res); got != "call=alice ctx=alice" {
		t.Errorf("the task's handler saw %q", got)
	}
	if _, m := bob.do(t, "tasks/get", map[string]any{"taskId": id}); m.Error == nil || m.Error.Code != CodeInvalidParams {
		t.Errorf("bob's tasks/get of alice's task: %s %+v", m.Result, m.Error)
	}
}

// TestSessionEndCancelsItsTasks (item 9): DELETE of a session ends the
// tasks it started: their handlers return, their slots of
// MaxConcurrentCalls are free again, and they are stored as cancelled.
func TestSessionEndCancelsItsTasks(t *testing.T) {
	noLeaks(t)
	var running atomic.Int64
	ended := make(chan struct{}, 20)
	tool := taskTool("forever", "optional", func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		running.Add(1)
		defer running.Add(-1)
		<-ctx.Done()
		ended <- struct{}{}
		return nil, ctx.Err()
	})
	s, ts := legacyServer(t, Options{}, tool)
	c := eraClients(t, ts, s, "")[0]
	var ids []string
	for range 20 {
		_, m := c.do(t, "tools/call", taskParams(c, "forever"))
		ids = append(ids, taskIDOf(t, m))
	}
	resp := c.legacy.do(c.legacy.request("DELETE", ""))
	if resp.StatusCode != 200 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	for i := range 20 {
		select {
		case <-ended:
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of 20 task handlers still run after their session ended", 20-i)
		}
	}
	for _, id := range ids {
		r, err := s.tasks.store.GetTask(context.Background(), id)
		if err != nil || r.Status != TaskCancelled || r.StatusMessage != "the session ended" {
			t.Fatalf("task %s after its session ended: %+v %v", id, r, err)
		}
	}
	// A handler's slot is given back after it returns, on the task's own
	// goroutine, which nothing outside signals: wait for it, bounded.
	waitFor(t, 5*time.Second, "the tasks' slots of MaxConcurrentCalls given back", func() bool {
		return s.d.callSlots.held() == 0
	})
}

// held is how many units of c are taken.
func (c *callerShare) held() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
