package interop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// confirmAll accepts every elicitation with confirm: true.
type confirmAll struct{}

func (confirmAll) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"confirm": true},
	}}, nil
}

// TestMCPGoTasks drives the 2025-11-25 experimental tasks of the example
// server with mcp-go's task API over Streamable HTTP: a task-augmented
// tools/call, tasks/list, WaitForTask (tasks/get polling), tasks/result, an
// elicitation delivered on the tasks/result stream, and tasks/cancel.
// mcp-go v1.2.1 parses the CreateTaskResult of CallTool as a CallToolResult
// and reports "content is missing" although the task was created, so the
// test finds each new task with tasks/list.
func TestMCPGoTasks(t *testing.T) {
	tr, err := transport.NewStreamableHTTP(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithElicitationHandler(confirmAll{}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgen-interop-mcp-go-tasks", Version: "1.0.0"}
	init.Params.Capabilities.Elicitation = &mcp.ElicitationCapability{}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if res.Capabilities.Tasks == nil {
		t.Fatalf("initialize advertised no tasks capability: %+v", res.Capabilities)
	}
	known := map[string]bool{}
	startTask := func(name string, args map[string]any) string {
		t.Helper()
		ttl := int64(60000)
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments, req.Params.Task = name, args, &mcp.TaskParams{TTL: &ttl}
		if _, err := c.CallTool(ctx, req); err != nil && !strings.Contains(err.Error(), "content is missing") {
			t.Fatalf("tools/call %s as a task: %v", name, err)
		}
		list, err := c.ListTasks(ctx, mcp.ListTasksRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range list.Tasks {
			if !known[task.TaskId] {
				known[task.TaskId] = true
				return task.TaskId
			}
		}
		t.Fatalf("tasks/list shows no new task after tools/call %s", name)
		return ""
	}
	text := func(r *mcp.TaskResultResult) string {
		var out []string
		for _, c := range r.Content {
			if tc, ok := mcp.AsTextContent(c); ok {
				out = append(out, tc.Text)
			}
		}
		return strings.Join(out, " ")
	}

	id := startTask("slow_compute", map[string]any{"seconds": 1, "label": "mcp-go"})
	done, err := c.WaitForTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}}, 50*time.Millisecond)
	if err != nil || done.Status != mcp.TaskStatusCompleted {
		t.Fatalf("WaitForTask: %+v %v", done, err)
	}
	out, err := c.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: id}})
	if err != nil || !strings.Contains(text(out), "Result: 42") {
		t.Fatalf("tasks/result: %+v %v", out, err)
	}

	id = startTask("confirm_delete", map[string]any{"filename": "mcp-go.txt"})
	out, err = c.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: id}})
	if err != nil || text(out) != "deleted 'mcp-go.txt'" {
		t.Fatalf("tasks/result with an elicitation on its stream: %+v %v", out, err)
	}

	id = startTask("slow_compute", map[string]any{"seconds": 60, "label": "mcp-go-cancel"})
	cancelled, err := c.CancelTask(ctx, mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: id}})
	if err != nil || cancelled.Status != mcp.TaskStatusCancelled {
		t.Fatalf("tasks/cancel: %+v %v", cancelled, err)
	}
}
