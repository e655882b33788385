package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/ext/tasks"
	"github.com/mcpgen/mcpgen/internal/wiretest"
	"github.com/mcpgen/mcpgen/runtime"
)

// The tests drive servers with tasks through the wire only, in every era
// and transport, as clients do: the package is an extension, and nothing
// of the runtime beyond its public API is reached.

// tasksCaps are 2026-07-28 client capabilities declaring elicitation and
// the extension.
var tasksCaps = map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{tasks.ExtensionID: map[string]any{}}}

// taskTool is a tool definition with execution.taskSupport.
func taskTool(name, support string, h runtime.ToolHandler, forms ...*runtime.Elicitation) runtime.Tool {
	def := fmt.Sprintf(`{"name":%q,"description":"test task tool","inputSchema":{"type":"object"},"execution":{"taskSupport":%q}}`, name, support)
	return runtime.Tool{Name: name, Definition: json.RawMessage(def), Handler: h, Elicitations: forms}
}

// echoTool answers its text, and never runs as a task.
func echoTool() runtime.Tool {
	return runtime.Tool{Name: "echo", Definition: json.RawMessage(`{"name":"echo","description":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}`),
		Handler: func(_ context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(args, &in)
			return runtime.ContentResult(call, []runtime.Content{runtime.Text(in.Text)}), nil
		}}
}

// confirmForm is a one-field form.
var confirmForm = &runtime.Elicitation{Name: "confirm", Mode: "form", Message: "Sure?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)}

type confirmAnswer struct {
	Confirm bool `json:"confirm"`
}

// newServer is a Server with tasks (topts) and tools, closed with the test.
func newServer(t *testing.T, opts runtime.Options, topts tasks.Options, tools ...runtime.Tool) *runtime.Server {
	t.Helper()
	s := runtime.NewServer(opts)
	t.Cleanup(func() { _ = s.Close() })
	if err := tasks.Add(s, topts); err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if err := s.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// serve serves s on a loopback httptest server and returns its URL.
func serve(t *testing.T, s *runtime.Server) string { return wiretest.Serve(t, s) }

// wires are the four era/transport pairs, each on its own server.
func wires(t *testing.T, opts runtime.Options, topts tasks.Options, tools ...runtime.Tool) []*wiretest.Conn {
	t.Helper()
	return []*wiretest.Conn{
		wiretest.LegacyHTTP(t, serve(t, newServer(t, opts, topts, tools...)), runtime.Version20251125, `{"elicitation":{}}`, wiretest.Options{}),
		wiretest.ModernHTTP(t, serve(t, newServer(t, opts, topts, tools...)), tasksCaps, wiretest.Options{}),
		wiretest.Stdio(t, newServer(t, opts, topts, tools...), runtime.Version20251125, map[string]any{"elicitation": map[string]any{}}),
		wiretest.Stdio(t, newServer(t, opts, topts, tools...), runtime.Version20260728, tasksCaps),
	}
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
	Error          *runtime.Error             `json:"error"`
	ResultType     string                     `json:"resultType"`
	Task           *wireTask                  `json:"task"`
}

func decodeTask(t *testing.T, m wiretest.Message) wireTask {
	t.Helper()
	var w wireTask
	wiretest.Result(t, m, &w)
	if w.Task != nil {
		return *w.Task
	}
	return w
}

// taskParams are tools/call params that make a call a task in the era.
func taskParams(c *wiretest.Conn, tool string) map[string]any {
	p := map[string]any{"name": tool, "arguments": map[string]any{}}
	if !c.Modern {
		p["task"] = map[string]any{"ttl": 60000}
	}
	return p
}

// callAsTask starts tool as a task the way the wire's era asks for one.
func callAsTask(t *testing.T, w *wiretest.Conn, tool string) wireTask {
	t.Helper()
	m := w.Call(t, "tools/call", taskParams(w, tool))
	task := decodeTask(t, m)
	if w.Modern && task.ResultType != "task" {
		t.Fatalf("%s: resultType %q, want task", w.Name, task.ResultType)
	}
	if task.TaskID == "" || task.Status != tasks.Working || task.CreatedAt == "" || task.LastUpdatedAt == "" {
		t.Fatalf("%s: created task %+v", w.Name, task)
	}
	if w.Modern && (task.TTLMs == nil || task.PollIntervalMs == nil || task.TTL != nil) ||
		!w.Modern && (task.TTL == nil || task.PollInterval == nil || task.TTLMs != nil) {
		t.Fatalf("%s: TTL and poll interval spelled for the other era: %s", w.Name, m.Result)
	}
	return task
}

func getTask(t *testing.T, w *wiretest.Conn, id string) wireTask {
	t.Helper()
	return decodeTask(t, w.Call(t, "tasks/get", map[string]any{"taskId": id}))
}

// awaitStatus polls tasks/get until the task has status, for at most 5s.
func awaitStatus(t *testing.T, w *wiretest.Conn, id, status string) wireTask {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		task := getTask(t, w, id)
		if task.Status == status {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: task %s is %s, want %s", w.Name, id, task.Status, status)
		}
		time.Sleep(5 * time.Millisecond) // polling, as a client does
	}
}

// awaitEnd polls tasks/get until the task is completed or failed.
func awaitEnd(t *testing.T, w *wiretest.Conn, id string) wireTask {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		task := getTask(t, w, id)
		if task.Status == tasks.Completed || task.Status == tasks.Failed || time.Now().After(deadline) {
			return task
		}
	}
}

const testIssuer = "https://as.example"

// scopedOptions are Options with Auth on test tokens "subject;scope+scope".
func scopedOptions(o runtime.Options) runtime.Options {
	o.Auth = &runtime.Auth{Resource: "http://127.0.0.1:1/mcp", AuthorizationServers: []string{testIssuer},
		Verifier: runtime.TokenVerifierFunc(func(_ context.Context, tok string) (*runtime.Principal, error) {
			sub, scopes, ok := strings.Cut(tok, ";")
			if !ok || sub == "" {
				return nil, fmt.Errorf("%w: not a test token", runtime.ErrInvalidToken)
			}
			return &runtime.Principal{Issuer: testIssuer, Subject: sub, Scopes: strings.FieldsFunc(scopes, func(r rune) bool { return r == '+' }),
				Expiry: time.Now().Add(time.Hour)}, nil
		})}
	return o
}

// eraConns are a 2025-11-25 session and a 2026-07-28 client of the server
// at url as the principal of token.
func eraConns(t *testing.T, url, token string) []*wiretest.Conn {
	t.Helper()
	o := wiretest.Options{Token: token}
	return []*wiretest.Conn{
		wiretest.LegacyHTTP(t, url, runtime.Version20251125, `{"elicitation":{}}`, o),
		wiretest.ModernHTTP(t, url, tasksCaps, o),
	}
}

// limited reports whether m is a refusal naming bound.
func limited(m wiretest.Message, bound string) bool {
	if m.Error == nil || m.Error.Code != runtime.CodeLimitExceeded {
		return false
	}
	b, _ := json.Marshal(m.Error.Data)
	return strings.Contains(string(b), `"bound":"`+bound+`"`)
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var _ = http.StatusOK
