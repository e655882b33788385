package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// addTaskTools adds the tools the task tests run as tasks: ask_task asks
// for a number and reports it with the replica that ran it; hang_task runs
// until its context ends (the replica test kills the process under it).
func addTaskTools(srv *runtime.Server, replicaID string) error {
	err := srv.AddTool(runtime.Tool{
		Name: "ask_task",
		Definition: json.RawMessage(`{"name":"ask_task","description":"Asks for a number, as a task.",` +
			`"inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}`),
		Elicitations: []*runtime.Elicitation{pick},
		Handler: func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			var ans struct {
				Value int `json:"value"`
			}
			if err := call.Elicit(ctx, pick, "a number for the task", &ans); err != nil {
				return nil, err
			}
			text := fmt.Sprintf(`{"value":%d,"replica":%q}`, ans.Value, replicaID)
			return runtime.ContentResult(call, []runtime.Content{runtime.Text(text)}), nil
		},
	})
	if err != nil {
		return err
	}
	return srv.AddTool(runtime.Tool{
		Name: "hang_task",
		Definition: json.RawMessage(`{"name":"hang_task","description":"Runs until cancelled, as a task.",` +
			`"inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}`),
		Handler: func(ctx context.Context, _ *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
}
