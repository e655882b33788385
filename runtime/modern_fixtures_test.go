package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Hand-written tools (runtime.Tool, no generator) mirroring the conformance
// suite's 2026-07-28 fixtures.

func toolDef(name, inputSchema string) json.RawMessage {
	if inputSchema == "" {
		inputSchema = `{"type":"object","additionalProperties":false}`
	}
	return json.RawMessage(fmt.Sprintf(`{"name":%q,"description":"test tool %s","inputSchema":%s}`, name, name, inputSchema))
}

var userNameForm = &Elicitation{
	Name: "user_name", Mode: "form", Message: "What is your name?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"]}`),
}

type nameAnswer struct {
	Name string `json:"name"`
}

// elicitationTool asks user_name and greets.
func elicitationTool() Tool {
	return Tool{
		Name: "test_input_required_result_elicitation", Definition: toolDef("test_input_required_result_elicitation", ""),
		Elicitations: []*Elicitation{userNameForm},
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			var a nameAnswer
			if err := call.Elicit(ctx, userNameForm, "", &a); err != nil {
				return nil, err
			}
			return ContentResult(call, []Content{Text("Hello, " + a.Name + "!")}), nil
		},
	}
}

// samplingTool asks the client's model a question.
func samplingTool(name string) Tool {
	return Tool{
		Name: name, Definition: toolDef(name, ""),
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			res, err := call.CreateMessage(ctx, UserText("What is the capital of France?", 50))
			if err != nil {
				return nil, err
			}
			var c TextContent
			_ = json.Unmarshal(res.Content, &c)
			return ContentResult(call, []Content{Text("model said: " + c.Text)}), nil
		},
	}
}

// rootsTool lists the client's roots.
func rootsTool() Tool {
	return Tool{
		Name: "test_input_required_result_list_roots", Definition: toolDef("test_input_required_result_list_roots", ""),
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			roots, err := call.ListRoots(ctx)
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range roots {
				uris = append(uris, r.URI)
			}
			return ContentResult(call, []Content{Text("roots: " + strings.Join(uris, ","))}), nil
		},
	}
}

// requestStateTool saves state before asking and checks it afterwards.
func requestStateTool() Tool {
	return Tool{
		Name: "test_input_required_result_request_state", Definition: toolDef("test_input_required_result_request_state", ""),
		Elicitations: []*Elicitation{userNameForm},
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			first := call.State() == nil
			if first {
				call.SetState([]byte("started"))
			}
			var a nameAnswer
			if err := call.Elicit(ctx, userNameForm, "", &a); err != nil {
				return nil, err
			}
			if first || string(call.State()) != "started" {
				return nil, fmt.Errorf("state lost: %q", call.State())
			}
			return ContentResult(call, []Content{Text("state-ok: " + a.Name)}), nil
		},
	}
}

// multipleInputsTool asks three independent questions in one round: it
// keeps going after ErrInputRequired, as a handler that swallows it would.
func multipleInputsTool() Tool {
	return Tool{
		Name: "test_input_required_result_multiple_inputs", Definition: toolDef("test_input_required_result_multiple_inputs", ""),
		Elicitations: []*Elicitation{userNameForm},
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			call.SetState([]byte("multi"))
			var a nameAnswer
			errE := call.Elicit(ctx, userNameForm, "", &a)
			s, errS := call.CreateMessage(ctx, UserText("Say hello", 20))
			roots, errR := call.ListRoots(ctx)
			if err := errors.Join(errE, errS, errR); err != nil {
				return ContentResult(call, []Content{Text("swallowed: " + err.Error())}), nil
			}
			var c TextContent
			_ = json.Unmarshal(s.Content, &c)
			return ContentResult(call, []Content{Text(fmt.Sprintf("%s|%s|%d roots|%s", a.Name, c.Text, len(roots), call.State()))}), nil
		},
	}
}

var stepForm = &Elicitation{
	Name: "step", Mode: "form", Message: "Next step?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`),
}

// multiRoundTool asks twice, one question per round, keeping a counter in
// its state: three rounds in all.
func multiRoundTool() Tool {
	return Tool{
		Name: "test_input_required_result_multi_round", Definition: toolDef("test_input_required_result_multi_round", ""),
		Elicitations: []*Elicitation{stepForm},
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			var v1, v2 struct {
				Value string `json:"value"`
			}
			if err := call.Elicit(ctx, stepForm, "step 1", &v1); err != nil {
				return nil, err
			}
			call.SetState([]byte("after-step-1:" + v1.Value))
			if err := call.Elicit(ctx, stepForm, "step 2", &v2); err != nil {
				return nil, err
			}
			return ContentResult(call, []Content{Text(string(call.State()) + "," + v2.Value)}), nil
		},
	}
}

// progressLogTool reports progress 0, 50, 100 of 100 and logs at debug,
// info and error.
func progressLogTool() Tool {
	return Tool{
		Name: "test_tool_with_progress", Definition: toolDef("test_tool_with_progress", ""),
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			for _, p := range []float64{0, 50, 100} {
				if err := call.Progress(ctx, p, 100, fmt.Sprintf("at %v", p)); err != nil {
					return nil, err
				}
			}
			for _, l := range []LogLevel{LevelDebug, LevelInfo, LevelError} {
				if err := call.Log(ctx, l, "test", "message at "+string(l)); err != nil {
					return nil, err
				}
			}
			return ContentResult(call, []Content{Text("done")}), nil
		},
	}
}

// streamingElicitationTool sends progress, then elicits: the stream must
// carry the progress and an input_required result, never a request.
func streamingElicitationTool() Tool {
	return Tool{
		Name: "test_streaming_elicitation", Definition: toolDef("test_streaming_elicitation", ""),
		Elicitations: []*Elicitation{userNameForm},
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			_ = call.Progress(ctx, 1, 2, "asking")
			var a nameAnswer
			if err := call.Elicit(ctx, userNameForm, "", &a); err != nil {
				return nil, err
			}
			return ContentResult(call, []Content{Text(a.Name)}), nil
		},
	}
}

// headerParamTool mirrors three arguments into Mcp-Param-* headers.
func headerParamTool() Tool {
	schema := `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"count":{"type":"integer","x-mcp-header":"Count"},
		"dry_run":{"type":"boolean","x-mcp-header":"Dry-Run"},
		"opts":{"type":"object","properties":{"tenant":{"type":"string","x-mcp-header":"Tenant"}}},
		"note":{"type":"string"}}}`
	return Tool{
		Name: "test_header_params", Definition: toolDef("test_header_params", schema),
		Handler: func(ctx context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
			return ContentResult(call, []Content{Text("ok")}), nil
		},
	}
}
