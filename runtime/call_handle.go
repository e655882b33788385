package runtime

import (
	"context"
	"encoding/json"
	"fmt"
)

// A generated package gives every tool, prompt and resource a call handle of
// its own: one of the two types below, embedded, plus exactly the
// elicitations it declares. They live here, not in each generated package,
// so that the handle's common part is written once. Neither reaches the
// *Call it wraps, so asking for an elicitation the input does not declare
// stays a compile error.

// FeatureCall is what the call handle of a prompt, resource or resource
// template offers besides its elicitations: progress, logging, sampling,
// roots, the caller, what the client declared (session, name and version,
// capabilities, protocol version) and change announcements.
type FeatureCall struct {
	call *Call
}

// NewFeatureCall is what generated code wraps call in for a prompt's or
// resource's handle.
func NewFeatureCall(call *Call) FeatureCall { return FeatureCall{call} }

// Progress reports progress when the client asked for it; total <= 0 means unknown.
func (c FeatureCall) Progress(ctx context.Context, progress, total float64, message string) error {
	return c.call.Progress(ctx, progress, total, message)
}

// Log sends a log message when level passes the client's threshold.
func (c FeatureCall) Log(ctx context.Context, level LogLevel, logger string, data any) error {
	return c.call.Log(ctx, level, logger, data)
}

// CreateMessage asks the client's model for a completion (sampling).
func (c FeatureCall) CreateMessage(ctx context.Context, req *SamplingRequest) (*SamplingResult, error) {
	return c.call.CreateMessage(ctx, req)
}

// ListRoots asks the client for its roots, every time.
func (c FeatureCall) ListRoots(ctx context.Context) ([]Root, error) { return c.call.ListRoots(ctx) }

// Roots returns the client's roots: in a legacy session the list the
// session holds (fetched after initialize and after each
// notifications/roots/list_changed), without asking; in 2026-07-28 it asks,
// one more round trip. ErrNoRoots when the client declared no roots.
func (c FeatureCall) Roots(ctx context.Context) ([]Root, error) { return c.call.Roots(ctx) }

// SessionID is the legacy session of the call ("" in 2026-07-28).
func (c FeatureCall) SessionID() string { return c.call.SessionID() }

// ProtocolVersion is the call's protocol version.
func (c FeatureCall) ProtocolVersion() string { return c.call.ProtocolVersion() }

// ClientInfo is the client's name and version as it declared them.
func (c FeatureCall) ClientInfo() ClientInfo { return c.call.ClientInfo() }

// ClientCapabilities are the capabilities the client declared.
func (c FeatureCall) ClientCapabilities() ClientCapabilities { return c.call.ClientCapabilities() }

// Principal is who the request's access token speaks for, or nil without
// authorization (stdio, no Options.Auth).
func (c FeatureCall) Principal() *Principal { return c.call.Principal() }

// NotifyResourceUpdated tells the clients subscribed to uri that it changed;
// a template's <Name>TemplateURI function builds the uri from its params.
func (c FeatureCall) NotifyResourceUpdated(uri string) { c.call.NotifyResourceUpdated(uri) }

// NotifyResourceListChanged tells every client that the resource list changed.
func (c FeatureCall) NotifyResourceListChanged() { c.call.NotifyResourceListChanged() }

// NotifyPromptListChanged tells every client that the prompt list changed.
func (c FeatureCall) NotifyPromptListChanged() { c.call.NotifyPromptListChanged() }

// NotifyToolListChanged tells every client that the tool list changed.
func (c FeatureCall) NotifyToolListChanged() { c.call.NotifyToolListChanged() }

// ToolCall is what every tool's call handle offers besides its
// elicitations: a FeatureCall's, plus blocks added to the result and state
// carried across 2026-07-28 rounds, which only a tool's result has.
type ToolCall struct {
	FeatureCall
}

// NewToolCall is what generated code wraps call in for a tool's handle.
func NewToolCall(call *Call) ToolCall { return ToolCall{FeatureCall{call}} }

// AddContent appends blocks to the result: text, images, audio, resource
// links and embedded resources, each with its annotations. For a tool with
// an outputSchema they are the content beside the structured output, in
// place of its JSON text block unless AddOutputJSON asks for it too; when
// the tool fails, they follow the error's text in the isError result.
func (c ToolCall) AddContent(blocks ...Content) { c.call.AddContent(blocks...) }

// State returns the state saved with SetState in an earlier round of this call (2026-07-28).
func (c ToolCall) State() []byte { return c.call.State() }

// SetState saves a small value for the next round of this call (2026-07-28).
func (c ToolCall) SetState(b []byte) { c.call.SetState(b) }

// DecodeArguments decodes the arguments of tool into dst, the tool's typed
// input; generated code calls it. The runtime has validated args against the
// inputSchema already, so an error here is a mismatch between the schema and
// the Go type; it is a JSON-RPC invalid params error naming the tool.
func DecodeArguments(tool string, args json.RawMessage, dst any) error {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, dst); err != nil {
		return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("tool %s: invalid arguments: %v", tool, err)}
	}
	return nil
}
