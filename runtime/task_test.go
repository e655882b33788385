package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// taskWire speaks one era over one transport to a server with task tools,
// answering the server-to-client requests that reach it (2025-11-25
// tasks/result streams) with answer.
type taskWire struct {
	name   string
	modern bool
	send   func(t *testing.T, method string, params map[string]any, answer func(rpc) string) rpc
}

// taskTool is a tool definition with execution.taskSupport.
func taskTool(name, support string, h ToolHandler, forms ...*Elicitation) Tool {
	def := fmt.Sprintf(`{"name":%q,"description":"test task tool","inputSchema":{"type":"object"},"execution":{"taskSupport":%q}}`, name, support)
	return Tool{Name: name, Definition: json.RawMessage(def), Handler: h, Elicitations: forms}
}

var tasksCaps = map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{extTasks: map[string]any{}}}

// taskWires returns the four era/transport pairs, each on its own server.
func taskWires(t *testing.T, opts Options, tools ...Tool) []taskWire {
	newServer := func() *Server {
		s := NewServer(opts)
		for _, tool := range tools {
			if err := s.AddTool(tool); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	legacyHTTP := func() taskWire {
		s := newServer()
		ts := httptest.NewServer(s)
		t.Cleanup(func() { _ = s.Close(); ts.CloseClientConnections(); ts.Close() })
		c := newClient(t, ts)
		c.initialize(Version20251125, `{"elicitation":{}}`)
		id := 0
		return taskWire{"2025-11-25 HTTP", false, func(t *testing.T, method string, params map[string]any, answer func(rpc) string) rpc {
			id++
			resp := c.post(requestLine(t, id, method, params, nil))
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				return jsonBody(t, resp)
			}
			ch := events(t, resp)
			for {
				ev := next(t, ch)
				switch {
				case ev.msg.Method != "" && len(ev.msg.ID) > 0:
					c.answer(ev.msg.ID, answer(ev.msg))
				case ev.msg.Method != "":
				default:
					return ev.msg
				}
			}
		}}
	}
	modernHTTP := func() taskWire {
		s := newServer()
		mc := modernServer(t, s)
		t.Cleanup(func() { _ = s.Close() })
		mc.caps = tasksCaps
		return taskWire{"2026-07-28 HTTP", true, func(t *testing.T, method string, params map[string]any, _ func(rpc) string) rpc {
			var opts []reqOpt
			if id, ok := params["taskId"].(string); ok {
				opts = append(opts, withHeader(headerName, id))
			}
			r := mc.call(method, params, opts...)
			b, _ := json.Marshal(r.final(t))
			var m rpc
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}}
	}
	stdio := func(name string, modern bool) taskWire {
		s := newServer()
		t.Cleanup(func() { _ = s.Close() })
		p := startStdio(t, s)
		var meta map[string]any
		if modern {
			meta = map[string]any{metaProtocolVersion: Version20260728, metaClientCapabilities: tasksCaps}
		} else {
			p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"tasks","version":"1"}}}`)
			p.recv()
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		id := 0
		return taskWire{name, modern, func(t *testing.T, method string, params map[string]any, answer func(rpc) string) rpc {
			id++
			p.send(requestLine(t, id, method, params, meta))
			for {
				m := p.recv()
				switch {
				case m.Method != "" && len(m.ID) > 0:
					p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, answer(m)))
				case m.Method != "":
				default:
					return m
				}
			}
		}}
	}
	return []taskWire{legacyHTTP(), modernHTTP(), stdio("2025-11-25 stdio", false), stdio("2026-07-28 stdio", true)}
}

// wireTask is what the tests read of a task, whichever era spelled it.
type wireTask struct {
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTL            *int64                     `json:"ttl"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollInterval   *int64                     `json:"pollInterval"`
	PollIntervalMs *int64                     `json:"pollIntervalMs"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests"`
	Result         json.RawMessage            `json:"result"`
	Error          *Error                     `json:"error"`
	ResultType     string                     `json:"resultType"`
	Task           *wireTask                  `json:"task"`
}

func decodeTask(t *testing.T, m rpc) wireTask {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d: %s", m.Error.Code, m.Error.Message)
	}
	var w wireTask
	if err := json.Unmarshal(m.Result, &w); err != nil {
		t.Fatalf("%s: %v", m.Result, err)
	}
	if w.Task != nil {
		return *w.Task
	}
	return w
}

// callAsTask starts tool as a task the way the wire's era asks for one.
func callAsTask(t *testing.T, w taskWire, tool string) wireTask {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": map[string]any{}}
	if !w.modern {
		params["task"] = map[string]any{"ttl": 60000}
	}
	m := w.send(t, "tools/call", params, nil)
	task := decodeTask(t, m)
	if w.modern && task.ResultType != "task" {
		t.Fatalf("%s: resultType %q, want task", w.name, task.ResultType)
	}
	if task.TaskID == "" || task.Status != TaskWorking || task.CreatedAt == "" || task.LastUpdatedAt == "" {
		t.Fatalf("%s: created task %+v", w.name, task)
	}
	if w.modern && (task.TTLMs == nil || task.PollIntervalMs == nil || task.TTL != nil) ||
		!w.modern && (task.TTL == nil || task.PollInterval == nil || task.TTLMs != nil) {
		t.Fatalf("%s: TTL and poll interval spelled for the other era: %s", w.name, m.Result)
	}
	return task
}

func getTask(t *testing.T, w taskWire, id string) wireTask {
	t.Helper()
	return decodeTask(t, w.send(t, "tasks/get", map[string]any{"taskId": id}, nil))
}

// awaitStatus polls tasks/get until the task has status (or ended), for at
// most 5s.
func awaitStatus(t *testing.T, w taskWire, id, status string) wireTask {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		task := getTask(t, w, id)
		if task.Status == status {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: task %s is %s, want %s", w.name, id, task.Status, status)
		}
		time.Sleep(5 * time.Millisecond) // polling, as a client does
	}
}

// twoQuestions asks confirmForm twice, one after the other, and reports both
// answers; it counts its runs (a resumed handler runs once).
func twoQuestions(runs *sync.Map) Tool {
	return taskTool("two_questions", "optional", func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		n, _ := runs.LoadOrStore("n", new(int))
		*n.(*int)++
		var a, b confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "first?", &a); err != nil {
			return nil, err
		}
		if err := call.Elicit(ctx, confirmForm, "second?", &b); err != nil {
			return nil, err
		}
		return ContentResult(call, []Content{Text(fmt.Sprintf("first=%v second=%v", a.Confirm, b.Confirm))}), nil
	}, confirmForm)
}

// TestTaskElicitsTwiceEveryEra: a task whose handler asks twice goes
// working → input_required → working → input_required → completed, in both
// eras over HTTP and stdio; each answer resumes the same handler run.
func TestTaskElicitsTwiceEveryEra(t *testing.T) {
	noLeaks(t)
	for _, w := range taskWires(t, Options{}, twoQuestions(&sync.Map{})) {
		t.Run(w.name, func(t *testing.T) {
			task := callAsTask(t, w, "two_questions")
			id := task.TaskID
			if w.modern {
				for i, want := range []string{"first?", "second?"} {
					got := awaitStatus(t, w, id, TaskInputRequired)
					if len(got.InputRequests) != 1 {
						t.Fatalf("round %d: inputRequests %v", i, got.InputRequests)
					}
					for key, req := range got.InputRequests {
						if !strings.Contains(string(req), want) || !strings.Contains(string(req), `"elicitation/create"`) {
							t.Fatalf("round %d: input request %s", i, req)
						}
						ack := w.send(t, "tasks/update", map[string]any{"taskId": id,
							"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": i == 0}}}}, nil)
						if ack.Error != nil || string(ack.Result) == "" || strings.Contains(string(ack.Result), "taskId") {
							t.Fatalf("tasks/update ack %s %v", ack.Result, ack.Error)
						}
					}
				}
				done := awaitStatus(t, w, id, TaskCompleted)
				if !strings.Contains(string(done.Result), "first=true second=false") || strings.Contains(string(done.Result), metaRelatedTask) {
					t.Fatalf("result %s", done.Result)
				}
				return
			}
			awaitStatus(t, w, id, TaskInputRequired)
			asked := 0
			res := w.send(t, "tasks/result", map[string]any{"taskId": id}, func(m rpc) string {
				asked++
				if m.Method != "elicitation/create" || !strings.Contains(string(m.Params), metaRelatedTask) || !strings.Contains(string(m.Params), id) {
					t.Errorf("question %s %s lacks the related-task _meta", m.Method, m.Params)
				}
				return fmt.Sprintf(`{"action":"accept","content":{"confirm":%v}}`, asked == 1)
			})
			if got := resultText(t, res); got != "first=true second=false" || asked != 2 {
				t.Fatalf("tasks/result %q after %d questions", got, asked)
			}
			if !strings.Contains(string(res.Result), metaRelatedTask) {
				t.Fatalf("tasks/result lacks the related-task _meta: %s", res.Result)
			}
			if got := getTask(t, w, id); got.Status != TaskCompleted {
				t.Fatalf("status %s after tasks/result", got.Status)
			}
		})
	}
}

// TestTaskOutcomesEveryEra: a tool error is a failed task in 2025-11-25 and a
// completed one in 2026-07-28; a JSON-RPC error is failed in both; a
// required tool without a task, or a forbidden one with one, is refused.
func TestTaskOutcomesEveryEra(t *testing.T) {
	noLeaks(t)
	tools := []Tool{
		taskTool("tool_error", "required", func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
			return nil, errors.New("the disk is full")
		}),
		taskTool("rpc_error", "optional", func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
			return nil, NewError(CodeInternalError, "the backend is down")
		}),
		echoTool(),
	}
	for _, w := range taskWires(t, Options{}, tools...) {
		t.Run(w.name, func(t *testing.T) {
			id := callAsTask(t, w, "tool_error").TaskID
			if w.modern {
				got := awaitStatus(t, w, id, TaskCompleted)
				if !strings.Contains(string(got.Result), `"isError":true`) {
					t.Fatalf("result %s", got.Result)
				}
			} else {
				got := awaitStatus(t, w, id, TaskFailed)
				if got.StatusMessage == "" {
					t.Fatal("a failed task has no statusMessage")
				}
				res := w.send(t, "tasks/result", map[string]any{"taskId": id}, nil)
				if txt := resultText(t, res); txt != "ERROR: the disk is full" {
					t.Fatalf("tasks/result %q", txt)
				}
			}
			id = callAsTask(t, w, "rpc_error").TaskID
			got := awaitStatus(t, w, id, TaskFailed)
			if w.modern && (got.Error == nil || got.Error.Code != CodeInternalError || got.Result != nil) {
				t.Fatalf("failed task %+v", got)
			}
			if !w.modern {
				res := w.send(t, "tasks/result", map[string]any{"taskId": id}, nil)
				if res.Error == nil || res.Error.Message != "the backend is down" {
					t.Fatalf("tasks/result %s %+v", res.Result, res.Error)
				}
			}
			// Misuse.
			if m := w.send(t, "tasks/get", map[string]any{"taskId": "nope"}, nil); m.Error == nil || m.Error.Code != CodeInvalidParams {
				t.Fatalf("unknown task: %+v", m.Error)
			}
			if !w.modern {
				m := w.send(t, "tools/call", map[string]any{"name": "tool_error", "arguments": map[string]any{}}, nil)
				if m.Error == nil || m.Error.Code != CodeMethodNotFound {
					t.Fatalf("required tool without a task: %+v", m.Error)
				}
				m = w.send(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}, "task": map[string]any{}}, nil)
				if m.Error == nil || m.Error.Code != CodeMethodNotFound {
					t.Fatalf("forbidden tool with a task: %+v", m.Error)
				}
				if m := w.send(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}}, nil); m.Error == nil || m.Error.Code != CodeMethodNotFound {
					t.Fatalf("tasks/update in 2025-11-25: %+v", m.Error)
				}
			} else {
				m := w.send(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}, "task": map[string]any{"ttl": 1}}, nil)
				if m.Error != nil || strings.Contains(string(m.Result), "taskId") {
					t.Fatalf("a forbidden tool with the legacy task param: %s %+v", m.Result, m.Error)
				}
				for _, method := range []string{"tasks/result", "tasks/list"} {
					if m := w.send(t, method, map[string]any{"taskId": id}, nil); m.Error == nil || m.Error.Code != CodeMethodNotFound {
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
	noLeaks(t)
	ended := make(chan error, 8)
	tool := taskTool("asks", "optional", func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		var a confirmAnswer
		err := call.Elicit(ctx, confirmForm, "", &a)
		<-ctx.Done()
		ended <- err
		return nil, err
	}, confirmForm)
	for _, w := range taskWires(t, Options{}, tool) {
		t.Run(w.name, func(t *testing.T) {
			id := callAsTask(t, w, "asks").TaskID
			awaitStatus(t, w, id, TaskInputRequired)
			m := w.send(t, "tasks/cancel", map[string]any{"taskId": id}, nil)
			if m.Error != nil {
				t.Fatalf("tasks/cancel: %+v", m.Error)
			}
			if !w.modern && decodeTask(t, m).Status != TaskCancelled {
				t.Fatalf("tasks/cancel returned %s", m.Result)
			}
			if got := getTask(t, w, id); got.Status != TaskCancelled || len(got.InputRequests) != 0 {
				t.Fatalf("after cancel: %+v", got)
			}
			select {
			case err := <-ended:
				if !errors.Is(err, ErrExpired) {
					t.Fatalf("the handler's question ended with %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the handler did not end")
			}
			m = w.send(t, "tasks/cancel", map[string]any{"taskId": id}, nil)
			if w.modern && m.Error != nil || !w.modern && (m.Error == nil || m.Error.Code != CodeInvalidParams) {
				t.Fatalf("second cancel: %s %+v", m.Result, m.Error)
			}
			if got := getTask(t, w, id); got.Status != TaskCancelled {
				t.Fatalf("a cancelled task became %s", got.Status)
			}
		})
	}
}

// TestTaskTTLExpiry: once its TTL has passed, a task is gone (-32602), and
// the handler of one still running is stopped.
func TestTaskTTLExpiry(t *testing.T) {
	noLeaks(t)
	stopped := make(chan struct{}, 4)
	tool := taskTool("forever", "optional", func(ctx context.Context, _ *Call, _ json.RawMessage) (*ToolResult, error) {
		<-ctx.Done()
		stopped <- struct{}{}
		return nil, ctx.Err()
	})
	for _, w := range taskWires(t, Options{TaskTTL: 300 * time.Millisecond}, tool) {
		t.Run(w.name, func(t *testing.T) {
			task := callAsTask(t, w, "forever")
			if ttl := task.TTLMs; w.modern && (ttl == nil || *ttl != 300) || !w.modern && *task.TTL != 300 {
				t.Fatalf("ttl %+v", task)
			}
			select {
			case <-stopped:
			case <-time.After(5 * time.Second):
				t.Fatal("the handler outlived the task's TTL")
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				m := w.send(t, "tasks/get", map[string]any{"taskId": task.TaskID}, nil)
				if m.Error != nil && m.Error.Code == CodeInvalidParams {
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
	leakCheck(t)
	s := newTestServer(t, taskTool("only_task", "required", func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
		return &ToolResult{Content: []Content{Text("ran")}}, nil
	}), taskTool("maybe_task", "optional", func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
		return &ToolResult{Content: []Content{Text("ran")}}, nil
	}))
	t.Cleanup(func() { _ = s.Close() })
	c := modernServer(t, s)
	r := c.call("tools/call", map[string]any{"name": "only_task", "arguments": map[string]any{}})
	if r.errCode(t) != CodeMissingCapability || r.status != http.StatusBadRequest || !strings.Contains(jsonOf(r.errData(t)), extTasks) {
		t.Fatalf("required tool without the extension: %d %s", r.status, r.body)
	}
	if res := r2(t, c.call("tools/call", map[string]any{"name": "maybe_task", "arguments": map[string]any{}})); res["resultType"] != "complete" {
		t.Fatalf("optional tool without the extension: %v", res)
	}
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
		r := c.call(m, map[string]any{"taskId": "x", "inputResponses": map[string]any{}}, withHeader(headerName, "x"))
		if r.errCode(t) != CodeMissingCapability {
			t.Fatalf("%s without the extension: %s", m, r.body)
		}
	}
	disc := c.call("server/discover", nil).result(t)
	if !strings.Contains(jsonOf(disc["capabilities"]), extTasks) || strings.Contains(jsonOf(disc["capabilities"]), `"tasks":{`) {
		t.Fatalf("server/discover capabilities %v", disc["capabilities"])
	}
}

func r2(t *testing.T, r *modernResp) map[string]any { t.Helper(); return r.result(t) }

// TestTaskLegacyCapabilitiesAndList: a 2025-11-25 session learns of tasks
// from initialize and lists its own tasks a page at a time; another
// session sees none of them.
func TestTaskLegacyCapabilitiesAndList(t *testing.T) {
	tool := taskTool("quick", "optional", func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
		return &ToolResult{Content: []Content{Text("ok")}}, nil
	})
	_, ts := legacyServer(t, Options{PageSize: 2}, tool)
	c := newClient(t, ts)
	resp := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	init := jsonBody(t, resp)
	if !strings.Contains(string(init.Result), `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`) {
		t.Fatalf("initialize capabilities: %s", init.Result)
	}
	c.session, c.version = resp.Header.Get("Mcp-Session-Id"), Version20251125
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	ids := map[string]bool{}
	for i := range 3 {
		m := jsonBody(t, c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"quick","arguments":{},"task":{}}}`, i+1)))
		ids[decodeTask(t, m).TaskID] = true
	}
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		params := `{}`
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		m := jsonBody(t, c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks/list","params":%s}`, 10+page, params)))
		var res struct {
			Tasks      []wireTask `json:"tasks"`
			NextCursor string     `json:"nextCursor"`
		}
		if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || len(res.Tasks) > 2 {
			t.Fatalf("tasks/list: %s %+v", m.Result, m.Error)
		}
		for _, task := range res.Tasks {
			seen[task.TaskID] = true
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if len(seen) != 3 || !mapsEqual(seen, ids) {
		t.Fatalf("tasks/list found %v, created %v", seen, ids)
	}
	if m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":20,"method":"tasks/list","params":{"cursor":"bogus"}}`)); m.Error == nil || m.Error.Code != CodeInvalidParams {
		t.Fatalf("bad cursor: %+v", m.Error)
	}
	other := newClient(t, ts)
	other.initialize(Version20251125, `{}`)
	for id := range ids {
		if m := jsonBody(t, other.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":%q}}`, id))); m.Error == nil || m.Error.Code != CodeInvalidParams {
			t.Fatalf("another session read task %s: %s", id, m.Result)
		}
	}
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// TestTaskLostReplicaIsFailed: a task whose running replica stopped
// renewing its lease is reported failed, with a message that says so, by
// the replica that reads it.
func TestTaskLostReplicaIsFailed(t *testing.T) {
	leakCheck(t)
	store := &MemoryTaskStore{}
	now := time.Now().UTC()
	if err := store.CreateTask(context.Background(), &TaskRecord{ID: "orphan", Tool: "x", Modern: true, Status: TaskWorking,
		CreatedAt: now, UpdatedAt: now, TTL: time.Hour, ExpiresAt: now.Add(time.Hour), PollInterval: time.Second,
		Replica: "replica-a", LeaseUntil: now.Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(Options{TaskStore: store})
	t.Cleanup(func() { _ = s.Close() })
	if err := s.AddTool(taskTool("x", "optional", func(context.Context, *Call, json.RawMessage) (*ToolResult, error) { return nil, nil })); err != nil {
		t.Fatal(err)
	}
	c := modernServer(t, s)
	c.caps = tasksCaps
	got := c.call("tasks/get", map[string]any{"taskId": "orphan"}, withHeader(headerName, "orphan")).result(t)
	if got["status"] != TaskFailed || !strings.Contains(jsonOf(got["error"]), `replica \"replica-a\"`) {
		t.Fatalf("orphaned task: %v", got)
	}
}

// TestFiveHundredConcurrentTasks: 500 tasks at once, each asking a question
// that its client answers with tasks/update, all complete.
func TestFiveHundredConcurrentTasks(t *testing.T) {
	leakCheck(t)
	s := newTestServer(t, confirmTaskTool())
	t.Cleanup(func() { _ = s.Close() })
	c := modernServer(t, s)
	const n = 500
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- runConfirmTask(c.url, c.hc, i%2 == 0)
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

func confirmTaskTool() Tool {
	return taskTool("confirm_task", "required", func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		var a confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "", &a); err != nil {
			return nil, err
		}
		return ContentResult(call, []Content{Text(fmt.Sprintf("confirm=%v", a.Confirm))}), nil
	}, confirmForm)
}

// post sends one 2026-07-28 request declaring the tasks extension and
// returns its result (an error is returned as one).
func post(url string, hc *http.Client, method, name string, params map[string]any) (map[string]any, error) {
	params["_meta"] = map[string]any{metaProtocolVersion: Version20260728, metaClientCapabilities: tasksCaps}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(headerProtocolVersion, Version20260728)
	req.Header.Set(headerMethod, method)
	req.Header.Set(headerName, name)
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
		Error  *Error         `json:"error"`
	}
	if err := json.NewDecoder(bufio.NewReader(bytes.NewReader(raw))).Decode(&m); err != nil {
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
		case TaskCompleted:
			if !strings.Contains(jsonOf(got["result"]), fmt.Sprintf("confirm=%v", yes)) {
				return fmt.Errorf("result %v", got["result"])
			}
			return nil
		case TaskInputRequired:
			if !answered {
				for key := range got["inputRequests"].(map[string]any) {
					if _, err := post(url, hc, "tasks/update", id, map[string]any{"taskId": id,
						"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": yes}}}}); err != nil {
						return err
					}
				}
				answered = true
			}
		case TaskWorking:
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
	leakCheck(t)
	s := newTestServer(t, confirmTaskTool())
	t.Cleanup(func() { _ = s.Close() })
	c := modernServer(t, s)
	r := c.call("subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{"x"}}})
	if r.errCode(t) != CodeMissingCapability || !strings.Contains(jsonOf(r.errData(t)), extTasks) {
		t.Fatalf("listen for tasks without the extension: %s", r.body)
	}
	c.caps = tasksCaps
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, body := c.send("subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{"x"}, "toolsListChanged": true}}, withCtx(ctx))
	defer body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("listen: HTTP %d", resp.StatusCode)
	}
	ack := newSSEReader(body).next(t)
	if ack["method"] != "notifications/subscriptions/acknowledged" || strings.Contains(jsonOf(ack), "taskIds") {
		t.Fatalf("acknowledgement %v", ack)
	}
}

// TestTaskInputBeforeTask: a tool named in Options.InputBeforeTask asks its
// first question in an input_required round (no task yet); the retry with
// the answer becomes a task in which the same handler runs on, and a later
// question is the task's, answered with tasks/update.
func TestTaskInputBeforeTask(t *testing.T) {
	leakCheck(t)
	runs := 0
	tool := taskTool("asks_first", "required", func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		runs++
		var a, b confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "before the task", &a); err != nil {
			return nil, err
		}
		if err := call.Elicit(ctx, confirmForm, "inside the task", &b); err != nil {
			return nil, err
		}
		return ContentResult(call, []Content{Text(fmt.Sprintf("before=%v inside=%v", a.Confirm, b.Confirm))}), nil
	}, confirmForm)
	s := NewServer(Options{InputBeforeTask: []string{"asks_first"}})
	t.Cleanup(func() { _ = s.Close() })
	if err := s.AddTool(tool); err != nil {
		t.Fatal(err)
	}
	c := modernServer(t, s)
	c.caps = tasksCaps
	first := c.call("tools/call", map[string]any{"name": "asks_first", "arguments": map[string]any{}}).result(t)
	if first["resultType"] != "input_required" || first["taskId"] != nil || !strings.Contains(jsonOf(first["inputRequests"]), "before the task") {
		t.Fatalf("round one: %v", first)
	}
	second := c.call("tools/call", map[string]any{"name": "asks_first", "arguments": map[string]any{},
		"requestState":   first["requestState"],
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}).result(t)
	id, _ := second["taskId"].(string)
	if second["resultType"] != "task" || id == "" || second["requestState"] != nil {
		t.Fatalf("round two: %v", second)
	}
	w := taskWire{name: "2026-07-28 HTTP", modern: true, send: func(t *testing.T, method string, params map[string]any, _ func(rpc) string) rpc {
		r := c.call(method, params, withHeader(headerName, id))
		b, _ := json.Marshal(r.final(t))
		var m rpc
		_ = json.Unmarshal(b, &m)
		return m
	}}
	waiting := awaitStatus(t, w, id, TaskInputRequired)
	for key, req := range waiting.InputRequests {
		if !strings.Contains(string(req), "inside the task") {
			t.Fatalf("the task's question: %s", req)
		}
		w.send(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": false}}}}, nil)
	}
	done := awaitStatus(t, w, id, TaskCompleted)
	if !strings.Contains(string(done.Result), "before=true inside=false") || runs != 2 {
		t.Fatalf("result %s after %d runs (one per round before the task)", done.Result, runs)
	}
}

// TestTaskInputBeforeTaskRequiresURL: a tool named in
// Options.InputBeforeTask that needs a URL elicitation completed before it
// works ends its first round as input_required with the URL, as a plain
// 2026-07-28 call does, not with the -32042 that 2026-07-28 reserves.
func TestTaskInputBeforeTaskRequiresURL(t *testing.T) {
	leakCheck(t)
	tool := taskTool("signs_in_first", "required", func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		u, err := call.NewURLElicitation(loginURL)
		if err != nil {
			return nil, err
		}
		return nil, call.RequireURL(URLNeed{Elicitation: u, URL: "https://mcp.example.com/connect"})
	}, loginURL)
	s := NewServer(Options{InputBeforeTask: []string{"signs_in_first"}})
	t.Cleanup(func() { _ = s.Close() })
	if err := s.AddTool(tool); err != nil {
		t.Fatal(err)
	}
	c := modernServer(t, s)
	c.caps = map[string]any{"elicitation": map[string]any{"url": map[string]any{}}, "extensions": map[string]any{extTasks: map[string]any{}}}
	first := c.call("tools/call", map[string]any{"name": "signs_in_first", "arguments": map[string]any{}}).result(t)
	if first["resultType"] != "input_required" || first["taskId"] != nil || !strings.Contains(jsonOf(first["inputRequests"]), "https://mcp.example.com/connect") {
		t.Fatalf("round one: %v", first)
	}
}
