package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
)

// addPlainTools registers the tools the round-trip counts measure besides
// "ask": echo, a call that sends nothing but its result, progress, which
// reports progress once (when the request carries a progressToken) before
// its result, and big, whose event stream carries a result of the size
// asked for (the bound on a session's event bytes).
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
	err = srv.AddTool(runtime.Tool{
		Name: "big",
		Definition: json.RawMessage(`{"name":"big","description":"Logs once (so its response is an event stream), then returns a text of the given size.",` +
			`"inputSchema":{"type":"object","properties":{"bytes":{"type":"integer","minimum":0,"maximum":2000000}},"required":["bytes"]}}`),
		Handler: func(ctx context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
			var in struct {
				Bytes int `json:"bytes"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			if err := call.Log(ctx, runtime.LevelInfo, "big", "a big result follows"); err != nil {
				return nil, err
			}
			return runtime.ContentResult(call, []runtime.Content{runtime.Text(strings.Repeat("x", in.Bytes))}), nil
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
