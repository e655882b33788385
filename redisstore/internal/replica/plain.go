package main

import (
	"context"
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime"
)

// addPlainTools registers the tools the round-trip counts measure besides
// "ask": echo, a call that sends nothing but its result, and progress, which
// reports progress once (when the request carries a progressToken) before
// its result.
func addPlainTools(srv *runtime.Server) error {
	err := srv.AddTool(runtime.Tool{
		Name: "echo",
		Definition: json.RawMessage(`{"name":"echo","description":"Returns its text.",` +
			`"inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}`),
		Handler: func(_ context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
			var in struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return runtime.ContentResult(call, []runtime.Content{runtime.Text(in.Text)}), nil
		},
	})
	if err != nil {
		return err
	}
	return srv.AddTool(runtime.Tool{
		Name: "progress",
		Definition: json.RawMessage(`{"name":"progress","description":"Reports progress once, then returns done.",` +
			`"inputSchema":{"type":"object"}}`),
		Handler: func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			if err := call.Progress(ctx, 1, 2, "half way"); err != nil {
				return nil, err
			}
			return runtime.ContentResult(call, []runtime.Content{runtime.Text("done")}), nil
		},
	})
}
