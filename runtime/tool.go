package runtime

import (
	"context"
	"encoding/json"
	"fmt"
)

// ToolHandler runs one tools/call. args is the "arguments" object, already
// validated against the tool's inputSchema. Generated code decodes it into the
// typed input, calls the user's Handler and turns its answer into a result.
type ToolHandler func(ctx context.Context, call *Call, args json.RawMessage) (*ToolResult, error)

// Tool is one tool as generated code registers it.
type Tool struct {
	// Name is the tool's name, as in Definition.
	Name string
	// Definition is the tool object advertised by tools/list, byte for byte as
	// the input file wrote it (keyword order, $schema, $defs kept) with only
	// mcpgen's own _meta key removed.
	Definition json.RawMessage
	// Elicitations are the forms this tool may ask for; their schemas are
	// compiled once, when the tool is added.
	Elicitations []*Elicitation
	// Handler runs the call.
	Handler ToolHandler
	// Scopes are the OAuth scopes a caller's token must grant to call the tool
	// (_meta["mcpgen.dev/scopes"]); checked only when Options.Auth is set.
	Scopes []string
	// SingleUseState makes this tool's 2026-07-28 requestState single-use,
	// as Options.SingleUseState does for every tool: a retry runs the
	// handler once, and the same requestState again is refused. Generated
	// code sets it for a tool whose _meta has "mcpgen.dev/singleUseState":
	// true.
	SingleUseState bool
}

// ToolResult is the result of one tools/call.
type ToolResult struct {
	Content []Content
	// StructuredContent is the tool's typed output, already marshalled; nil for
	// tools without an outputSchema.
	StructuredContent json.RawMessage
	IsError           bool
}

// MarshalJSON writes content as an array even when empty, as the schema requires.
func (r *ToolResult) MarshalJSON() ([]byte, error) {
	content := r.Content
	if content == nil {
		content = []Content{}
	}
	return json.Marshal(struct {
		Content           []Content       `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError,omitempty"`
	}{content, r.StructuredContent, r.IsError})
}

// ContentResult is what generated code returns for a tool without an
// outputSchema: the handler's blocks plus any the call added.
func ContentResult(call *Call, blocks []Content) *ToolResult {
	return &ToolResult{Content: append(blocks, call.extraContent()...)}
}

// StructuredResult is what generated code returns for a tool with an
// outputSchema: out as structuredContent, the same JSON as a text block (so
// clients that ignore structuredContent still see it), then any blocks the
// call added.
func StructuredResult(call *Call, out any) (*ToolResult, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the tool's output: %w", err)
	}
	blocks := append([]Content{Text(string(b))}, call.extraContent()...)
	return &ToolResult{Content: blocks, StructuredContent: b}, nil
}

// toolErrorResult turns a handler error into what the model reads: an isError
// result carrying the message. Protocol-level outcomes (*Error,
// ErrInputRequired, ErrCapabilityMissing) are not tool errors; callers check
// them before calling this.
func toolErrorResult(err error) *ToolResult {
	return &ToolResult{Content: []Content{Text(err.Error())}, IsError: true}
}
