package tasks_test

import (
	"bytes"
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

	"github.com/mcpgen/mcpgen/ext/tasks"
	"github.com/mcpgen/mcpgen/internal/wiretest"
	"github.com/mcpgen/mcpgen/runtime"
)

const metaRelatedTask = "io.modelcontextprotocol/related-task"

// twoQuestions asks confirmForm twice, one after the other, and reports both
// answers; it counts its runs (a resumed handler runs once).
func twoQuestions() runtime.Tool {
	return taskTool("two_questions", "optional", func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		var a, b confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "first?", &a); err != nil {
			return nil, err
		}
		if err := call.Elicit(ctx, confirmForm, "second?", &b); err != nil {
			return nil, err
		}
		return runtime.ContentResult(call, []runtime.Content{runtime.Text(fmt.Sprintf("first=%v second=%v", a.Confirm, b.Confirm))}), nil
	}, confirmForm)
}

// TestTaskElicitsTwiceEveryEra: a task whose handler asks twice goes
// working → input_required → working → input_required → completed, in both
// eras over HTTP and stdio; each answer resumes the same handler run.
func TestTaskElicitsTwiceEveryEra(t *testing.T) {
	wiretest.NoLeaks(t)
	for _, w := range wires(t, runtime.Options{}, tasks.Options{}, twoQuestions()) {
		t.Run(w.Name, func(t *testing.T) {
			id := callAsTask(t, w, "two_questions").TaskID
			if w.Modern {
				for i, want := range []string{"first?", "second?"} {
					got := awaitStatus(t, w, id, tasks.InputRequired)
					if len(got.InputRequests) != 1 {
						t.Fatalf("round %d: inputRequests %v", i, got.InputRequests)
					}
					for key, req := range got.InputRequests {
						if !strings.Contains(string(req), want) || !strings.Contains(string(req), `"elicitation/create"`) {
							t.Fatalf("round %d: input request %s", i, req)
						}
						ack := w.Call(t, "tasks/update", map[string]any{"taskId": id,
							"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": i == 0}}}})
						if ack.Error != nil || len(ack.Result) == 0 || strings.Contains(string(ack.Result), "taskId") {
							t.Fatalf("tasks/update ack %s %v", ack.Result, ack.Error)
						}
					}
				}
				done := awaitStatus(t, w, id, tasks.Completed)
				if !strings.Contains(string(done.Result), "first=true second=false") || strings.Contains(string(done.Result), metaRelatedTask) {
					t.Fatalf("result %s", done.Result)
				}
				return
			}
			awaitStatus(t, w, id, tasks.InputRequired)
			asked := 0
			res := w.Send(t, "tasks/result", map[string]any{"taskId": id}, func(m wiretest.Message) string {
				asked++
				if m.Method != "elicitation/create" || !strings.Contains(string(m.Params), metaRelatedTask) || !strings.Contains(string(m.Params), id) {
					t.Errorf("question %s %s lacks the related-task _meta", m.Method, m.Params)
				}
				return fmt.Sprintf(`{"action":"accept","content":{"confirm":%v}}`, asked == 1)
			}).Message
			if got := wiretest.Text(t, res); got != "first=true second=false" || asked != 2 {
				t.Fatalf("tasks/result %q after %d questions", got, asked)
			}
			if !strings.Contains(string(res.Result), metaRelatedTask) {
				t.Fatalf("tasks/result lacks the related-task _meta: %s", res.Result)
			}
			if got := getTask(t, w, id); got.Status != tasks.Completed {
				t.Fatalf("status %s after tasks/result", got.Status)
			}
		})
	}
}

// TestTaskOutcomesEveryEra: a tool error is a failed task in 2025-11-25 and a
// completed one in 2026-07-28; a JSON-RPC error is failed in both; a
// required tool without a task, or a forbidden one with one, is refused.
func TestTaskOutcomesEveryEra(t *testing.T) {
	wiretest.NoLeaks(t)
	tools := []runtime.Tool{
		taskTool("tool_error", "required", func(context.Context, *runtime.Call, json.RawMessage) (*runtime.ToolResult, error) {
			return nil, errors.New("the disk is full")
		}),
		taskTool("rpc_error", "optional", func(context.Context, *runtime.Call, json.RawMessage) (*runtime.ToolResult, error) {
			return nil, runtime.NewError(runtime.CodeInternalError, "the backend is down")
		}),
		echoTool(),
	}
	for _, w := range wires(t, runtime.Options{}, tasks.Options{}, tools...) {
		t.Run(w.Name, func(t *testing.T) {
			id := callAsTask(t, w, "tool_error").TaskID
			if w.Modern {
				got := awaitStatus(t, w, id, tasks.Completed)
				if !strings.Contains(string(got.Result), `"isError":true`) {
					t.Fatalf("result %s", got.Result)
				}
			} else {
				got := awaitStatus(t, w, id, tasks.Failed)
				if got.StatusMessage == "" {
					t.Fatal("a failed task has no statusMessage")
				}
				res := w.Call(t, "tasks/result", map[string]any{"taskId": id})
				if txt := wiretest.Text(t, res); txt != "ERROR: the disk is full" {
					t.Fatalf("tasks/result %q", txt)
				}
			}
			id = callAsTask(t, w, "rpc_error").TaskID
			got := awaitStatus(t, w, id, tasks.Failed)
			if w.Modern && (got.Error == nil || got.Error.Code != runtime.CodeInternalError || got.Result != nil) {
				t.Fatalf("failed task %+v", got)
			}
			if !w.Modern {
				res := w.Call(t, "tasks/result", map[string]any{"taskId": id})
				if res.Error == nil || res.Error.Message != "the backend is down" {
					t.Fatalf("tasks/result %s %+v", res.Result, res.Error)
				}
			}
			// Misuse.
			if m := w.Call(t, "tasks/get", map[string]any{"taskId": "nope"}); m.Error == nil || m.Error.Code != runtime.CodeInvalidParams {
				t.Fatalf("unknown task: %+v", m.Error)
			}
			if m := w.Call(t, "tasks/get", map[string]any{"taskId": 7}); m.Error == nil || m.Error.Code != runtime.CodeInvalidParams {
				t.Fatalf("a taskId that is not a string: %+v", m.Error)
			}
			if !w.Modern {
				m := w.Call(t, "tools/call", map[string]any{"name": "tool_error", "arguments": map[string]any{}})
				if m.Error == nil || m.Error.Code != runtime.CodeMethodNotFound {
					t.Fatalf("required tool without a task: %+v", m.Error)
				}
				m = w.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}, "task": map[string]any{}})
				if m.Error == nil || m.Error.Code != runtime.CodeMethodNotFound {
					t.Fatalf("forbidden tool with a task: %+v", m.Error)
				}
				if m := w.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}}); m.Error == nil || m.Error.Code != runtime.CodeMethodNotFound {
					t.Fatalf("tasks/update in 2025-11-25: %+v", m.Error)
				}
			} else {
				m := w.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}, "task": map[string]any{"ttl": 1}})
				if m.Error != nil || strings.Contains(string(m.Result), "taskId") {
					t.Fatalf("a forbidden tool with the legacy task param: %s %+v", m.Result, m.Error)
				}
				for _, method := range []string{"tasks/result", "tasks/list"} {
					if m := w.Call(t, method, map[string]any{"taskId": id}); m.Error == nil || m.Error.Code != runtime.CodeMethodNotFound {
						t.Fatalf("%s in 2026-07-28: %+v", method, m.Error)
					}
				}
			}
		})
	}
}

// TestTaskCancelWhileWaitingForInput: cancelling a task that waits for an
// answer makes it cancelled before the response, ends the handler's wait
// and context, and is idempotent in 2026-07-28 (-32602 in 2025-11-25).
func TestTaskCancelWhileWaitingForInput(t *testing.T) {
	wiretest.NoLeaks(t)
	ended := make(chan error, 8)
	tool := taskTool("asks", "optional", func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		var a confirmAnswer
		err := call.Elicit(ctx, confirmForm, "", &a)
		<-ctx.Done()
		ended <- err
		return nil, err
	}, confirmForm)
	for _, w := range wires(t, runtime.Options{}, tasks.Options{}, tool) {
		t.Run(w.Name, func(t *testing.T) {
			id := callAsTask(t, w, "asks").TaskID
			awaitStatus(t, w, id, tasks.InputRequired)
			m := w.Call(t, "tasks/cancel", map[string]any{"taskId": id})
			if m.Error != nil {
				t.Fatalf("tasks/cancel: %+v", m.Error)
			}
			if !w.Modern && decodeTask(t, m).Status != tasks.Cancelled {
				t.Fatalf("tasks/cancel returned %s", m.Result)
			}
			if got := getTask(t, w, id); got.Status != tasks.Cancelled || len(got.InputRequests) != 0 {
				t.Fatalf("after cancel: %+v", got)
			}
			select {
			case err := <-ended:
				if !errors.Is(err, runtime.ErrExpired) {
					t.Fatalf("the handler's question ended with %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the handler did not end")
			}
			m = w.Call(t, "tasks/cancel", map[string]any{"taskId": id})
			if w.Modern && m.Error != nil || !w.Modern && (m.Error == nil || m.Error.Code != runtime.CodeInvalidParams) {
				t.Fatalf("second cancel: %s %+v", m.Result, m.Error)
			}
			if got := getTask(t, w, id); got.Status != tasks.Cancelled {
				t.Fatalf("a cancelled task became %s", got.Status)
			}
		})
	}
}

// TestTaskTTLExpiry: once its TTL has passed, a task is gone (-32602), and
// the handler of one still running is stopped.
func TestTaskTTLExpiry(t *testing.T) {
	wiretest.NoLeaks(t)
	stopped := make(chan struct{}, 4)
	tool := taskTool("forever", "optional", func(ctx context.Context, _ *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		<-ctx.Done()
		stopped <- struct{}{}
		return nil, ctx.Err()
	})
	for _, w := range wires(t, runtime.Options{}, tasks.Options{TTL: 300 * time.Millisecond}, tool) {
		t.Run(w.Name, func(t *testing.T) {
			task := callAsTask(t, w, "forever")
			if ttl := task.TTLMs; w.Modern && (ttl == nil || *ttl != 300) || !w.Modern && *task.TTL != 300 {
				t.Fatalf("ttl %+v", task)
			}
			select {
			case <-stopped:
			case <-time.After(5 * time.Second):
				t.Fatal("the handler outlived the task's TTL")
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				m := w.Call(t, "tasks/get", map[string]any{"taskId": task.TaskID})
				if m.Error != nil && m.Error.Code == runtime.CodeInvalidParams {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("tasks/get of an expired task: %s %+v", m.Result, m.Error)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// TestTaskRequiredWithoutExtension: 2026-07-28 refuses a task-only tool to
// a client that does not declare the extension with -32021 naming it, and
// runs an optional one as a plain call; the tasks methods need it too.
func TestTaskRequiredWithoutExtension(t *testing.T) {
	wiretest.NoLeaks(t)
	ran := func(context.Context, *runtime.Call, json.RawMessage) (*runtime.ToolResult, error) {
		return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("ran")}}, nil
	}
	url := serve(t, newServer(t, runtime.Options{}, tasks.Options{}, taskTool("only_task", "required", ran), taskTool("maybe_task", "optional", ran)))
	c := wiretest.ModernHTTP(t, url, map[string]any{}, wiretest.Options{})
	r := c.Send(t, "tools/call", map[string]any{"name": "only_task", "arguments": map[string]any{}}, nil)
	if e := r.Message.Error; e == nil || e.Code != runtime.CodeMissingCapability || r.Status != http.StatusBadRequest || !strings.Contains(jsonOf(e.Data), tasks.ExtensionID) {
		t.Fatalf("required tool without the extension: %d %+v", r.Status, e)
	}
	var res map[string]any
	wiretest.Result(t, c.Call(t, "tools/call", map[string]any{"name": "maybe_task", "arguments": map[string]any{}}), &res)
	if res["resultType"] != "complete" {
		t.Fatalf("optional tool without the extension: %v", res)
	}
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
		if e := c.Call(t, m, map[string]any{"taskId": "x", "inputResponses": map[string]any{}}).Error; e == nil || e.Code != runtime.CodeMissingCapability {
			t.Fatalf("%s without the extension: %+v", m, e)
		}
	}
	var disc struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	wiretest.Result(t, c.Call(t, "server/discover", nil), &disc)
	if !strings.Contains(string(disc.Capabilities), tasks.ExtensionID) || strings.Contains(string(disc.Capabilities), `"tasks":{`) {
		t.Fatalf("server/discover capabilities %s", disc.Capabilities)
	}
}

// TestTasksAreDeclaredOnceAToolMayRunAsOne: a server with tasks but no
// tool that may run as a task declares neither the extension nor the
// legacy capability; adding one declares both.
func TestTasksAreDeclaredOnceAToolMayRunAsOne(t *testing.T) {
	wiretest.NoLeaks(t)
	s := newServer(t, runtime.Options{}, tasks.Options{}, echoTool())
	declared := func() (modern, legacy bool) {
		caps := s.Describe().Capabilities
		return strings.Contains(string(caps[runtime.Version20260728]), tasks.ExtensionID),
			strings.Contains(string(caps[runtime.Version20251125]), `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)
	}
	if m, l := declared(); m || l {
		t.Fatalf("declared without a task tool: modern %v, legacy %v", m, l)
	}
	if err := s.AddTool(taskTool("later", "optional", func(context.Context, *runtime.Call, json.RawMessage) (*runtime.ToolResult, error) { return nil, nil })); err != nil {
		t.Fatal(err)
	}
	if m, l := declared(); !m || !l {
		t.Fatalf("not declared with a task tool: modern %v, legacy %v", m, l)
	}
	if strings.Contains(string(s.Describe().Capabilities[runtime.Version20250618]), "tasks") {
		t.Fatal("tasks declared in 2025-06-18")
	}
}

// TestTaskLegacyCapabilitiesAndList: a 2025-11-25 session learns of tasks
// from initialize and lists its own tasks a page at a time; another
// session sees none of them.
func TestTaskLegacyCapabilitiesAndList(t *testing.T) {
	wiretest.NoLeaks(t)
	tool := taskTool("quick", "optional", func(context.Context, *runtime.Call, json.RawMessage) (*runtime.ToolResult, error) {
		return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("ok")}}, nil
	})
	url := serve(t, newServer(t, runtime.Options{PageSize: 2}, tasks.Options{}, tool))
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	init, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(init.Body)
	init.Body.Close()
	if !strings.Contains(string(b), `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`) {
		t.Fatalf("initialize capabilities: %s", b)
	}
	c := wiretest.LegacyHTTP(t, url, runtime.Version20251125, `{}`, wiretest.Options{})
	ids := map[string]bool{}
	for range 3 {
		ids[decodeTask(t, c.Call(t, "tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}, "task": map[string]any{}})).TaskID] = true
	}
	seen := map[string]bool{}
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res struct {
			Tasks      []wireTask `json:"tasks"`
			NextCursor string     `json:"nextCursor"`
		}
		wiretest.Result(t, c.Call(t, "tasks/list", params), &res)
		if len(res.Tasks) > 2 {
			t.Fatalf("a page of %d tasks, PageSize 2", len(res.Tasks))
		}
		for _, task := range res.Tasks {
			seen[task.TaskID] = true
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if jsonOf(seen) != jsonOf(ids) {
		t.Fatalf("tasks/list found %v, created %v", seen, ids)
	}
	if m := c.Call(t, "tasks/list", map[string]any{"cursor": "bogus"}); m.Error == nil || m.Error.Code != runtime.CodeInvalidParams {
		t.Fatalf("bad cursor: %+v", m.Error)
	}
	other := wiretest.LegacyHTTP(t, url, runtime.Version20251125, `{}`, wiretest.Options{})
	for id := range ids {
		if m := other.Call(t, "tasks/get", map[string]any{"taskId": id}); m.Error == nil || m.Error.Code != runtime.CodeInvalidParams {
			t.Fatalf("another session read task %s: %s", id, m.Result)
		}
	}
	older := wiretest.LegacyHTTP(t, url, runtime.Version20250618, `{}`, wiretest.Options{})
	if m := older.Call(t, "tasks/list", nil); m.Error == nil || m.Error.Code != runtime.CodeMethodNotFound {
		t.Fatalf("tasks/list in 2025-06-18: %+v", m.Error)
	}
	if m := older.Call(t, "tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}, "task": map[string]any{}}); m.Error != nil || strings.Contains(string(m.Result), "taskId") {
		t.Fatalf("2025-06-18 calls a task tool as usual: %s %+v", m.Result, m.Error)
	}
}

// TestTaskLostReplicaIsFailed: a task whose running replica stopped
// renewing its lease is reported failed, with a message that says so, by
// the replica that reads it.
func TestTaskLostReplicaIsFailed(t *testing.T) {
	wiretest.NoLeaks(t)
	store := &tasks.MemoryStore{}
	now := time.Now().UTC()
	if err := store.CreateTask(context.Background(), &tasks.Record{ID: "orphan", Tool: "x", Modern: true, Status: tasks.Working,
		CreatedAt: now, UpdatedAt: now, TTL: time.Hour, ExpiresAt: now.Add(time.Hour), PollInterval: time.Second,
		Replica: "replica-a", LeaseUntil: now.Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	url := serve(t, newServer(t, runtime.Options{}, tasks.Options{Store: store},
		taskTool("x", "optional", func(context.Context, *runtime.Call, json.RawMessage) (*runtime.ToolResult, error) { return nil, nil })))
	c := wiretest.ModernHTTP(t, url, tasksCaps, wiretest.Options{})
	got := getTask(t, c, "orphan")
	if got.Status != tasks.Failed || got.Error == nil || !strings.Contains(got.Error.Message, `replica "replica-a"`) {
		t.Fatalf("orphaned task: %+v", got)
	}
}

func confirmTaskTool() runtime.Tool {
	return taskTool("confirm_task", "required", func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		var a confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "", &a); err != nil {
			return nil, err
		}
		return runtime.ContentResult(call, []runtime.Content{runtime.Text(fmt.Sprintf("confirm=%v", a.Confirm))}), nil
	}, confirmForm)
}

// TestFiveHundredConcurrentTasks: 500 tasks at once, each asking a question
// that its client answers with tasks/update, all complete.
func TestFiveHundredConcurrentTasks(t *testing.T) {
	wiretest.NoLeaks(t)
	url := serve(t, newServer(t, runtime.Options{}, tasks.Options{}, confirmTaskTool()))
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	const n = 500
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- runConfirmTask(url, hc, i%2 == 0)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// post sends one 2026-07-28 request declaring the tasks extension and
// returns its result (an error is returned as one).
func post(url string, hc *http.Client, method, name string, params map[string]any) (map[string]any, error) {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(wiretest.RequestLine(1, method, params, wiretest.ModernMeta(tasksCaps))))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", runtime.Version20260728)
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndex(raw, []byte("data: ")); i >= 0 {
		raw = bytes.TrimSpace(raw[i+6:])
	}
	var m struct {
		Result map[string]any `json:"result"`
		Error  *runtime.Error `json:"error"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s %q: %v", method, raw, err)
	}
	if m.Error != nil {
		return nil, m.Error
	}
	return m.Result, nil
}

// runConfirmTask drives one confirm_task task to its end through the
// endpoint at url.
func runConfirmTask(url string, hc *http.Client, yes bool) error {
	created, err := post(url, hc, "tools/call", "confirm_task", map[string]any{"name": "confirm_task", "arguments": map[string]any{}})
	if err != nil {
		return err
	}
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" {
		return fmt.Errorf("created %v", created)
	}
	deadline := time.Now().Add(20 * time.Second)
	for answered := false; ; {
		got, err := post(url, hc, "tasks/get", id, map[string]any{"taskId": id})
		if err != nil {
			return err
		}
		switch got["status"] {
		case tasks.Completed:
			if !strings.Contains(jsonOf(got["result"]), fmt.Sprintf("confirm=%v", yes)) {
				return fmt.Errorf("result %v", got["result"])
			}
			return nil
		case tasks.InputRequired:
			if !answered {
				for key := range got["inputRequests"].(map[string]any) {
					if _, err := post(url, hc, "tasks/update", id, map[string]any{"taskId": id,
						"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": yes}}}}); err != nil {
						return err
					}
				}
				answered = true
			}
		case tasks.Working:
		default:
			return fmt.Errorf("task %s: %v", id, got)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("task %s still %v", id, got["status"])
		}
		time.Sleep(5 * time.Millisecond) // polling, as a client does
	}
}

// TestTaskListenNeedsExtension: asking subscriptions/listen for task
// notifications without the extension is -32021; with it the listen is
// acknowledged without taskIds (no task notifications are sent).
func TestTaskListenNeedsExtension(t *testing.T) {
	wiretest.NoLeaks(t)
	url := serve(t, newServer(t, runtime.Options{}, tasks.Options{}, confirmTaskTool()))
	plain := wiretest.ModernHTTP(t, url, map[string]any{}, wiretest.Options{})
	if e := plain.Call(t, "subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{"x"}}}).Error; e == nil ||
		e.Code != runtime.CodeMissingCapability || !strings.Contains(jsonOf(e.Data), tasks.ExtensionID) {
		t.Fatalf("listen for tasks without the extension: %+v", e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(wiretest.RequestLine(1, "subscriptions/listen",
		map[string]any{"notifications": map[string]any{"taskIds": []string{"x"}, "toolsListChanged": true}}, wiretest.ModernMeta(tasksCaps))))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", runtime.Version20260728)
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("listen: HTTP %d", resp.StatusCode)
	}
	ack, ok := wiretest.NewSSE(resp.Body).Next()
	if !ok || ack.Method != "notifications/subscriptions/acknowledged" || strings.Contains(string(ack.Params), "taskIds") {
		t.Fatalf("acknowledgement %+v", ack)
	}
}

// TestTaskInputBeforeTask: a tool named in Options.InputBeforeTask asks its
// first question in an input_required round (no task yet); the retry with
// the answer becomes a task in which the same handler runs on, and a later
// question is the task's, answered with tasks/update.
func TestTaskInputBeforeTask(t *testing.T) {
	wiretest.NoLeaks(t)
	var mu sync.Mutex
	runs := 0
	tool := taskTool("asks_first", "required", func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		mu.Lock()
		runs++
		mu.Unlock()
		var a, b confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "before the task", &a); err != nil {
			return nil, err
		}
		if err := call.Elicit(ctx, confirmForm, "inside the task", &b); err != nil {
			return nil, err
		}
		return runtime.ContentResult(call, []runtime.Content{runtime.Text(fmt.Sprintf("before=%v inside=%v", a.Confirm, b.Confirm))}), nil
	}, confirmForm)
	url := serve(t, newServer(t, runtime.Options{}, tasks.Options{InputBeforeTask: []string{"asks_first"}}, tool))
	c := wiretest.ModernHTTP(t, url, tasksCaps, wiretest.Options{})
	var first map[string]any
	wiretest.Result(t, c.Call(t, "tools/call", map[string]any{"name": "asks_first", "arguments": map[string]any{}}), &first)
	if first["resultType"] != "input_required" || first["taskId"] != nil || !strings.Contains(jsonOf(first["inputRequests"]), "before the task") {
		t.Fatalf("round one: %v", first)
	}
	var second map[string]any
	wiretest.Result(t, c.Call(t, "tools/call", map[string]any{"name": "asks_first", "arguments": map[string]any{},
		"requestState":   first["requestState"],
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}), &second)
	id, _ := second["taskId"].(string)
	if second["resultType"] != "task" || id == "" || second["requestState"] != nil {
		t.Fatalf("round two: %v", second)
	}
	waiting := awaitStatus(t, c, id, tasks.InputRequired)
	for key, req := range waiting.InputRequests {
		if !strings.Contains(string(req), "inside the task") {
			t.Fatalf("the task's question: %s", req)
		}
		c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": false}}}})
	}
	done := awaitStatus(t, c, id, tasks.Completed)
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(string(done.Result), "before=true inside=false") || runs != 2 {
		t.Fatalf("result %s after %d runs (one per round before the task)", done.Result, runs)
	}
}

// TestTaskInputBeforeTaskRequiresURL: a tool named in
// Options.InputBeforeTask that needs a URL elicitation completed before it
// works ends its first round as input_required with the URL, as a plain
// 2026-07-28 call does, not with the -32042 that 2026-07-28 reserves.
func TestTaskInputBeforeTaskRequiresURL(t *testing.T) {
	wiretest.NoLeaks(t)
	loginURL := &runtime.Elicitation{Name: "login", Mode: "url", Message: "Sign in to Example Co."}
	tool := taskTool("signs_in_first", "required", func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		u, err := call.NewURLElicitation(loginURL)
		if err != nil {
			return nil, err
		}
		return nil, call.RequireURL(runtime.URLNeed{Elicitation: u, URL: "https://mcp.example.com/connect"})
	}, loginURL)
	url := serve(t, newServer(t, runtime.Options{}, tasks.Options{InputBeforeTask: []string{"signs_in_first"}}, tool))
	c := wiretest.ModernHTTP(t, url, map[string]any{"elicitation": map[string]any{"url": map[string]any{}}, "extensions": map[string]any{tasks.ExtensionID: map[string]any{}}}, wiretest.Options{})
	var first map[string]any
	wiretest.Result(t, c.Call(t, "tools/call", map[string]any{"name": "signs_in_first", "arguments": map[string]any{}}), &first)
	if first["resultType"] != "input_required" || first["taskId"] != nil || !strings.Contains(jsonOf(first["inputRequests"]), "https://mcp.example.com/connect") {
		t.Fatalf("round one: %v", first)
	}
}

// TestTaskInputBeforeTaskBornFinished: a tool named in InputBeforeTask
// whose round carries no answers and that finishes without asking becomes
// a task that is born completed.
func TestTaskInputBeforeTaskBornFinished(t *testing.T) {
	wiretest.NoLeaks(t)
	tool := taskTool("asks_nothing", "required", func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		return runtime.ContentResult(call, []runtime.Content{runtime.Text("done at once")}), nil
	})
	url := serve(t, newServer(t, runtime.Options{}, tasks.Options{InputBeforeTask: []string{"asks_nothing"}}, tool))
	c := wiretest.ModernHTTP(t, url, tasksCaps, wiretest.Options{})
	var created map[string]any
	wiretest.Result(t, c.Call(t, "tools/call", map[string]any{"name": "asks_nothing", "arguments": map[string]any{}}), &created)
	if created["resultType"] != "task" || created["status"] != tasks.Completed {
		t.Fatalf("a task born finished: %v", created)
	}
	if got := getTask(t, c, created["taskId"].(string)); !strings.Contains(string(got.Result), "done at once") {
		t.Fatalf("its result: %+v", got)
	}
}
