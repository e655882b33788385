package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/ext/tasks"
	"github.com/mcpgen/mcpgen/internal/wiretest"
	"github.com/mcpgen/mcpgen/runtime"
)

func subjectOf(p *runtime.Principal) string {
	if p == nil {
		return ""
	}
	return p.Subject
}

// whoAsksTool is a task tool that asks a question (2026-07-28: its task
// waits input_required) and answers with who its handler, its context and
// its interceptors see.
func whoAsksTool() runtime.Tool {
	return taskTool("who_asks", "optional", func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		var a confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "", &a); err != nil {
			return nil, err
		}
		return runtime.ContentResult(call, []runtime.Content{runtime.Text("call=" + subjectOf(call.Principal()) + " ctx=" + subjectOf(runtime.PrincipalFromContext(ctx)))}), nil
	}, confirmForm)
}

// TestTaskIsBoundToItsCreator: a 2026-07-28 task of alice's is unknown to
// bob, who holds a valid token and her task ID: his tasks/get,
// tasks/update and tasks/cancel get exactly the answer of an ID that never
// existed, and her task completes on her answer. Her handler, run as a
// task, knows its caller, as do the interceptors of its questions.
func TestTaskIsBoundToItsCreator(t *testing.T) {
	wiretest.NoLeaks(t)
	var seen sync.Map // method -> subject the Outgoing interceptor saw as the parent's principal
	opts := scopedOptions(runtime.Options{Interceptors: []runtime.Interceptor{{Outgoing: func(next runtime.OutgoingFunc) runtime.OutgoingFunc {
		return func(ctx context.Context, req *runtime.OutgoingRequest) (json.RawMessage, error) {
			seen.Store(req.Method, subjectOf(req.Parent.Principal)+"/"+subjectOf(runtime.PrincipalFromContext(ctx)))
			return next(ctx, req)
		}
	}}}})
	url := serve(t, newServer(t, opts, tasks.Options{}, whoAsksTool()))
	alice, bob := eraConns(t, url, "alice;")[1], eraConns(t, url, "bob;")[1]

	id := decodeTask(t, alice.Call(t, "tools/call", taskParams(alice, "who_asks"))).TaskID
	var key string
	for deadline := time.Now().Add(5 * time.Second); key == ""; time.Sleep(5 * time.Millisecond) {
		for k := range getTask(t, alice, id).InputRequests {
			key = k
		}
		if time.Now().After(deadline) {
			t.Fatal("alice's task never asked")
		}
	}
	unknown := "0123456789abcdef0123456789abcdef"
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
		theirs := bob.Send(t, tc.method, tc.params(id), nil)
		none := bob.Send(t, tc.method, tc.params(unknown), nil)
		te, ne := theirs.Message.Error, none.Message.Error
		if te == nil || ne == nil || theirs.Status != none.Status || te.Code != ne.Code || strings.ReplaceAll(te.Message, id, unknown) != ne.Message {
			t.Errorf("bob's %s of alice's task: %d %+v %s\nwant what an unknown ID gets: %d %+v", tc.method, theirs.Status, te, theirs.Message.Result, none.Status, ne)
		}
	}
	alice.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	done := awaitStatus(t, alice, id, tasks.Completed)
	if !strings.Contains(string(done.Result), "call=alice ctx=alice") {
		t.Errorf("the task's handler saw another caller: %s", done.Result)
	}
	if got, _ := seen.Load("elicitation/create"); got != "alice/alice" {
		t.Errorf("the Outgoing interceptor of the task's question saw %v, want alice/alice", got)
	}
}

// TestLegacyTaskKnowsItsCaller (in 2025-11-25): a task's handler sees the
// principal of the session that created it, and another principal's
// session cannot see the task.
func TestLegacyTaskKnowsItsCaller(t *testing.T) {
	wiretest.NoLeaks(t)
	tool := taskTool("who", "optional", func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		return runtime.ContentResult(call, []runtime.Content{runtime.Text("call=" + subjectOf(call.Principal()) + " ctx=" + subjectOf(runtime.PrincipalFromContext(ctx)))}), nil
	})
	url := serve(t, newServer(t, scopedOptions(runtime.Options{}), tasks.Options{}, tool))
	alice, bob := eraConns(t, url, "alice;")[0], eraConns(t, url, "bob;")[0]
	id := decodeTask(t, alice.Call(t, "tools/call", taskParams(alice, "who"))).TaskID
	if got := wiretest.Text(t, alice.Call(t, "tasks/result", map[string]any{"taskId": id})); got != "call=alice ctx=alice" {
		t.Errorf("the task's handler saw %q", got)
	}
	if m := bob.Call(t, "tasks/get", map[string]any{"taskId": id}); m.Error == nil || m.Error.Code != runtime.CodeInvalidParams {
		t.Errorf("bob's tasks/get of alice's task: %s %+v", m.Result, m.Error)
	}
}

// TestSessionEndCancelsItsTasks: DELETE of a session ends the tasks it
// started: their handlers return, their slots of MaxConcurrentCalls are
// free again, and they are stored as cancelled.
func TestSessionEndCancelsItsTasks(t *testing.T) {
	wiretest.NoLeaks(t)
	ended := make(chan struct{}, 40)
	tool := taskTool("forever", "optional", func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		<-ctx.Done()
		ended <- struct{}{}
		return nil, ctx.Err()
	})
	store := &tasks.MemoryStore{}
	url := serve(t, newServer(t, runtime.Options{MaxConcurrentCalls: 21, CallerShare: 1}, tasks.Options{Store: store}, tool))
	c := wiretest.LegacyHTTP(t, url, runtime.Version20251125, `{}`, wiretest.Options{})
	var ids []string
	for range 20 {
		ids = append(ids, decodeTask(t, c.Call(t, "tools/call", taskParams(c, "forever"))).TaskID)
	}
	// A tools/call holds a slot of its own while it creates the task.
	if m := c.Call(t, "tools/call", taskParams(c, "forever")); !limited(m, "Options.MaxConcurrentCalls") {
		t.Fatalf("a 21st running task past MaxConcurrentCalls 21: %s %+v", m.Result, m.Error)
	}
	if st := c.Delete(t); st != http.StatusOK {
		t.Fatalf("DELETE: %d", st)
	}
	for i := range 20 {
		select {
		case <-ended:
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of 20 task handlers still run after their session ended", 20-i)
		}
	}
	for _, id := range ids {
		r, err := store.GetTask(context.Background(), id)
		if err != nil || r.Status != tasks.Cancelled || r.StatusMessage != "the session ended" {
			t.Fatalf("task %s after its session ended: %+v %v", id, r, err)
		}
	}
	// A handler's slot is given back after it returns, on the task's own
	// goroutine, which nothing outside signals: another session's 20 tasks
	// find their slots, bounded by a wait.
	other := wiretest.LegacyHTTP(t, url, runtime.Version20251125, `{}`, wiretest.Options{})
	for n, deadline := 0, time.Now().Add(5*time.Second); n < 20; {
		m := other.Call(t, "tools/call", taskParams(other, "forever"))
		switch {
		case m.Error == nil:
			n++
		case !limited(m, "Options.MaxConcurrentCalls") || time.Now().After(deadline):
			t.Fatalf("after the session ended, task %d of another session: %+v", n+1, m.Error)
		default:
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestOneCallerCannotTakeAllTasks: in both eras, a caller gets its share
// of MaxTasks and no more, with an error naming the bound, while another
// caller is still served; its finished tasks keep their task slots (until
// their TTL) but no slot of MaxConcurrentCalls, so it can still call.
func TestOneCallerCannotTakeAllTasks(t *testing.T) {
	wiretest.NoLeaks(t)
	quick := taskTool("quick", "optional", func(_ context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		return runtime.ContentResult(call, []runtime.Content{runtime.Text("done")}), nil
	})
	plain := runtime.Tool{Name: "plain", Definition: json.RawMessage(`{"name":"plain","inputSchema":{"type":"object"}}`),
		Handler: func(_ context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			return runtime.ContentResult(call, nil), nil
		}}
	for era := range 2 {
		url := serve(t, newServer(t, scopedOptions(runtime.Options{}), tasks.Options{MaxTasks: 20}, quick, plain))
		hostile, polite := eraConns(t, url, "hostile;")[era], eraConns(t, url, "polite;")[era]
		var theirs []string
		for i := range 3 {
			r := hostile.Send(t, "tools/call", taskParams(hostile, "quick"), nil)
			switch {
			case i < 2:
				theirs = append(theirs, decodeTask(t, r.Message).TaskID)
			case !limited(r.Message, "tasks.Options.MaxTasks") || hostile.Modern && r.Status != http.StatusTooManyRequests:
				t.Errorf("%s: a task past the caller's share: %d %s %+v", hostile.Name, r.Status, r.Message.Result, r.Message.Error)
			}
		}
		for _, id := range theirs {
			hostile.Call(t, "tasks/cancel", map[string]any{"taskId": id})
		}
		if m := hostile.Call(t, "tools/call", taskParams(hostile, "quick")); !limited(m, "tasks.Options.MaxTasks") {
			t.Errorf("%s: its cancelled tasks keep their slots until their TTL: %s %+v", hostile.Name, m.Result, m.Error)
		}
		if m := hostile.Call(t, "tools/call", map[string]any{"name": "plain"}); m.Error != nil {
			t.Errorf("%s: finished tasks hold slots of MaxConcurrentCalls: %+v", hostile.Name, m.Error)
		}
		for range 2 {
			if m := polite.Call(t, "tools/call", taskParams(polite, "quick")); m.Error != nil {
				t.Errorf("%s: another caller is refused: %+v", polite.Name, m.Error)
			}
		}
	}
}

// TestTaskResultBytesAreBounded: the results of finished tasks are bounded
// in bytes (each caller its share): a result that does not fit fails its
// task with an error naming MaxResultBytes; smaller ones are kept.
func TestTaskResultBytesAreBounded(t *testing.T) {
	wiretest.NoLeaks(t)
	big := taskTool("big", "optional", func(_ context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
		var a struct{ N int }
		_ = json.Unmarshal(args, &a)
		return runtime.ContentResult(call, []runtime.Content{runtime.Text(strings.Repeat("x", a.N))}), nil
	})
	for era := range 2 {
		url := serve(t, newServer(t, scopedOptions(runtime.Options{CallerShare: 0.5}), tasks.Options{MaxResultBytes: 2000}, big))
		c := eraConns(t, url, "alice;")[era]
		run := func(n int) wireTask {
			p := taskParams(c, "big")
			p["arguments"] = map[string]any{"N": n}
			return awaitEnd(t, c, decodeTask(t, c.Call(t, "tools/call", p)).TaskID)
		}
		if w := run(1500); w.Status != tasks.Failed || !strings.Contains(w.StatusMessage, "tasks.Options.MaxResultBytes") {
			t.Errorf("%s: a result past the caller's share: %+v", c.Name, w)
		}
		for i := range 3 {
			w := run(300)
			if fits := i < 2; fits != (w.Status == tasks.Completed) {
				t.Errorf("%s: result %d of 300 bytes (about 350 encoded, 1,000 allowed): %s %q", c.Name, i+1, w.Status, w.StatusMessage)
			}
		}
	}
}

// TestShutdownFailsRunningTasks: a server that shuts down fails the tasks
// still running on it at once, saying so, rather than leaving them working
// until their lease lapses.
func TestShutdownFailsRunningTasks(t *testing.T) {
	wiretest.NoLeaks(t)
	running := make(chan struct{}, 1)
	tool := taskTool("long", "optional", func(ctx context.Context, _ *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		running <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	store := &tasks.MemoryStore{}
	s := newServer(t, runtime.Options{ShutdownTimeout: time.Second}, tasks.Options{Store: store}, tool)
	c := wiretest.ModernHTTP(t, serve(t, s), tasksCaps, wiretest.Options{})
	id := callAsTask(t, c, "long").TaskID
	<-running
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	r, err := store.GetTask(context.Background(), id)
	if err != nil || r.Status != tasks.Failed || !strings.Contains(r.StatusMessage, "shut down before it finished") {
		t.Fatalf("a running task after the shutdown: %+v %v", r, err)
	}
}

// TestAddTwice: Add with the same Options again does nothing, with others
// fails and changes nothing; Enable after Add keeps Add's Options, and
// Enable alone adds the defaults.
func TestAddTwice(t *testing.T) {
	wiretest.NoLeaks(t)
	s := runtime.NewServer(runtime.Options{})
	defer s.Close()
	opts := tasks.Options{TTL: time.Minute, InputBeforeTask: []string{"x"}}
	if err := tasks.Add(s, opts); err != nil {
		t.Fatal(err)
	}
	if err := tasks.Add(s, tasks.Options{TTL: time.Minute, InputBeforeTask: []string{"x"}}); err != nil {
		t.Errorf("the same Options again: %v", err)
	}
	if err := tasks.Add(s, tasks.Options{TTL: time.Hour}); !errors.Is(err, runtime.ErrExtensionAdded) {
		t.Errorf("other Options: %v", err)
	}
	if err := tasks.Enable(s); err != nil {
		t.Errorf("Enable after Add: %v", err)
	}
	s2 := runtime.NewServer(runtime.Options{})
	defer s2.Close()
	for range 2 {
		if err := tasks.Enable(s2); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := s2.Extension(tasks.ExtensionID); !ok {
		t.Error("Enable added nothing")
	}
}

// TestTaskProgressRidesTasksResult: the progress and log notifications of
// a 2025-11-25 task ride the stream of the tasks/result that waits for it.
func TestTaskProgressRidesTasksResult(t *testing.T) {
	wiretest.NoLeaks(t)
	var resultWaits atomic.Bool
	tool := taskTool("reports", "optional", func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		for !resultWaits.Load() {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
		time.Sleep(50 * time.Millisecond) // the tasks/result is listening by now
		if err := call.Log(ctx, runtime.LevelInfo, "reports", "halfway"); err != nil {
			return nil, err
		}
		return runtime.ContentResult(call, []runtime.Content{runtime.Text("done")}), nil
	})
	url := serve(t, newServer(t, runtime.Options{}, tasks.Options{}, tool))
	c := wiretest.LegacyHTTP(t, url, runtime.Version20251125, `{}`, wiretest.Options{})
	if m := c.Call(t, "logging/setLevel", map[string]any{"level": "info"}); m.Error != nil {
		t.Fatal(m.Error)
	}
	id := decodeTask(t, c.Call(t, "tools/call", taskParams(c, "reports"))).TaskID
	resultWaits.Store(true)
	r := c.Send(t, "tasks/result", map[string]any{"taskId": id}, nil)
	if got := wiretest.Text(t, r.Message); got != "done" {
		t.Fatalf("tasks/result %q", got)
	}
	if len(r.Notifications) != 1 || r.Notifications[0].Method != "notifications/message" || !strings.Contains(string(r.Notifications[0].Params), "halfway") {
		t.Fatalf("notifications on tasks/result: %+v", r.Notifications)
	}
}

var _ = fmt.Sprint
