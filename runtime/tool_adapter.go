package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// The adapters generated code wires each tool with, the way connect-go's
// NewUnaryHandler carries the typing of an RPC in the library's generics:
// decode the arguments into the typed input, wrap the *Call in the tool's
// own handle, call the Handler method, and turn what it returns into the
// result. A tool's generated wiring is then one call:
//
//	return runtime.NewStructuredTool(runtime.Tool{Name: AddNoteToolName, Definition: ...}, newAddNoteCall, h.AddNote)
//
// What the result holds:
//
//   - With an outputSchema (NewStructuredTool), the output is the result's
//     structuredContent. When the handler added no blocks of its own, the
//     same JSON is also its one text block, as the specification asks for
//     clients that read only content. When it added blocks (AddContent:
//     text, images, audio, resource links, embedded resources), they are
//     the content, and the JSON block is left out unless the handler asked
//     for it with AddOutputJSON, which puts it where that call stands among
//     the blocks.
//   - Without one (NewContentTool), the content is the blocks the handler
//     returned, then those it added.
//   - When the handler fails with a tool error (any error but a protocol
//     one: *Error, ErrInputRequired, ErrCapabilityMissing), the isError
//     result carries the error's text first and then the blocks the handler
//     added before it failed, so that what it already showed is not lost.

// NewStructuredTool returns t answered by fn, for a tool with an
// outputSchema. handle makes the tool's call handle from the runtime's
// *Call. A nil slice or map returned for an outputSchema whose root is
// "type": "array" or "object" goes out as [] or {}, which the schema
// accepts, instead of null, which it does not.
func NewStructuredTool[In, Out, C any](t Tool, handle func(*Call) C, fn func(context.Context, C, In) (Out, error)) Tool {
	name, empty := t.Name, emptyOutput(t.Definition)
	t.Handler = func(ctx context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
		var in In
		if err := DecodeArguments(name, args, &in); err != nil {
			return nil, err
		}
		out, err := fn(ctx, handle(call), in)
		if err != nil {
			return nil, withAddedContent(call, err)
		}
		return structuredResult(call, out, empty)
	}
	return t
}

// NewContentTool returns t answered by fn, for a tool without an
// outputSchema: its result is the blocks fn returns, then those it added
// through its handle.
func NewContentTool[In, C any](t Tool, handle func(*Call) C, fn func(context.Context, C, In) ([]Content, error)) Tool {
	name := t.Name
	t.Handler = func(ctx context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
		var in In
		if err := DecodeArguments(name, args, &in); err != nil {
			return nil, err
		}
		blocks, err := fn(ctx, handle(call), in)
		if err != nil {
			return nil, withAddedContent(call, err)
		}
		return ContentResult(call, blocks), nil
	}
	return t
}

// AddOutputJSON asks for the structured output as a text block of JSON,
// at this place among the blocks the handler adds: a tool that adds blocks
// of its own gets none otherwise. Only the first call counts. A tool
// without an outputSchema has no structured output, and the request is
// ignored.
func (c ToolCall) AddOutputJSON() { c.call.AddOutputJSON() }

// AddOutputJSON is ToolCall.AddOutputJSON.
func (c *Call) AddOutputJSON() { c.AddContent(outputJSONMark{}) }

// outputJSONMark stands among a call's added blocks where AddOutputJSON
// asked for the output's JSON; the result puts the text block there (or,
// for a tool without structured output, drops it). It never reaches the
// wire.
type outputJSONMark struct{}

func (outputJSONMark) contentType() string { return "text" }

// structuredResult is out as the result of a tool with an outputSchema:
// structuredContent, and the content as the package comment above says.
// empty replaces a null output where the schema's root needs an array or
// an object; nil keeps it.
func structuredResult(call *Call, out any, empty []byte) (*ToolResult, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the tool's output: %w", err)
	}
	if empty != nil && string(b) == "null" {
		b = empty
	}
	added := call.extraContent()
	if len(added) == 0 {
		return &ToolResult{Content: []Content{Text(string(b))}, StructuredContent: b}, nil
	}
	blocks := make([]Content, 0, len(added))
	marked := false
	for _, c := range added {
		if _, ok := c.(outputJSONMark); ok {
			if !marked {
				blocks = append(blocks, Text(string(b)))
			}
			marked = true
			continue
		}
		blocks = append(blocks, c)
	}
	return &ToolResult{Content: blocks, StructuredContent: b}, nil
}

// withoutMarks is blocks without the AddOutputJSON marks, for a result
// that has no structured output to put there.
func withoutMarks(blocks []Content) []Content {
	out := blocks[:0:0]
	for _, c := range blocks {
		if _, ok := c.(outputJSONMark); !ok {
			out = append(out, c)
		}
	}
	return out
}

// addedContentError is a handler's error carrying the blocks its call
// added before it failed; toolErrorResult puts them after the error's text.
// It unwraps to the handler's error, so that protocol errors are still told
// apart.
type addedContentError struct {
	err     error
	content []Content
}

func (e *addedContentError) Error() string { return e.err.Error() }
func (e *addedContentError) Unwrap() error { return e.err }

// withAddedContent is err carrying the blocks call added, or err itself
// when it added none.
func withAddedContent(call *Call, err error) error {
	added := withoutMarks(call.extraContent())
	if len(added) == 0 {
		return err
	}
	return &addedContentError{err: err, content: added}
}

// addedContent is the blocks an error carries (withAddedContent), or nil.
func addedContent(err error) []Content {
	var ae *addedContentError
	if errors.As(err, &ae) {
		return ae.content
	}
	return nil
}

// emptyOutput is what a null output becomes for a tool definition whose
// outputSchema's root is exactly "type": "array" ([]) or "type": "object"
// ({}); nil for any other root, where null is the output as written (a
// nullable root allows it) or breaks the schema anyway.
func emptyOutput(def json.RawMessage) []byte {
	var d struct {
		OutputSchema struct {
			Type json.RawMessage `json:"type"`
		} `json:"outputSchema"`
	}
	if json.Unmarshal(def, &d) != nil {
		return nil
	}
	switch string(bytes.TrimSpace(d.OutputSchema.Type)) {
	case `"array"`:
		return []byte("[]")
	case `"object"`:
		return []byte("{}")
	}
	return nil
}
