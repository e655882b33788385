package mcptest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// CallTool calls tool name with args (any value that encodes as the
// arguments object; nil for none). The handler's questions are answered
// from the script, in every era. A JSON-RPC error holds a *runtime.Error
// (errors.As); an isError result is a result (see ToolResult.Err).
func (c *Client) CallTool(ctx context.Context, name string, args any) (*ToolResult, error) {
	raw, err := encodeArgs(args)
	if err != nil {
		return nil, fmt.Errorf("tools/call %s: encoding the arguments: %w", name, err)
	}
	x := &exchange{method: "tools/call", name: name, hasName: true}
	if c.era.stateless() {
		if x.header, err = c.headerParams(ctx, name, raw); err != nil {
			return nil, err
		}
	}
	res, err := c.request(ctx, x, map[string]any{"name": name, "arguments": raw})
	if err != nil {
		return nil, err
	}
	out := &ToolResult{tool: name, era: c.era}
	if err := json.Unmarshal(res, out); err != nil {
		return nil, fmt.Errorf("tools/call %s: decoding the result: %w", name, err)
	}
	return out, nil
}

func encodeArgs(args any) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage("{}"), nil
	}
	return json.Marshal(args)
}

// GetPrompt gets prompt name with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*PromptResult, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	res, err := c.request(ctx, &exchange{method: "prompts/get", name: name, hasName: true}, params)
	if err != nil {
		return nil, err
	}
	var out PromptResult
	if err := json.Unmarshal(res, &out); err != nil {
		return nil, fmt.Errorf("prompts/get %s: decoding the result: %w", name, err)
	}
	return &out, nil
}

// ReadResource reads the resource at uri. A resource that does not exist
// holds a *runtime.Error (-32002 in a session, -32602 in 2026-07-28).
func (c *Client) ReadResource(ctx context.Context, uri string) (*ResourceResult, error) {
	res, err := c.request(ctx, &exchange{method: "resources/read", name: uri, hasName: true}, map[string]any{"uri": uri})
	if err != nil {
		return nil, err
	}
	var out ResourceResult
	if err := json.Unmarshal(res, &out); err != nil {
		return nil, fmt.Errorf("resources/read %s: decoding the result: %w", uri, err)
	}
	return &out, nil
}

// Ref is what completion/complete completes an argument of.
type Ref struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// PromptRef refers to prompt name.
func PromptRef(name string) Ref { return Ref{Type: "ref/prompt", Name: name} }

// TemplateRef refers to the resource template uriTemplate.
func TemplateRef(uriTemplate string) Ref { return Ref{Type: "ref/resource", URI: uriTemplate} }

// Complete asks for completions of argument (a prompt argument or a
// template variable) of ref, given what the user typed so far (value) and
// the other arguments already chosen (context, or nil).
func (c *Client) Complete(ctx context.Context, ref Ref, argument, value string, context map[string]string) (*runtime.Completion, error) {
	params := map[string]any{"ref": ref, "argument": map[string]string{"name": argument, "value": value}}
	if context != nil {
		params["context"] = map[string]any{"arguments": context}
	}
	res, err := c.request(ctx, &exchange{method: "completion/complete"}, params)
	if err != nil {
		return nil, err
	}
	var out struct {
		Completion struct {
			Values  []string `json:"values"`
			Total   int      `json:"total"`
			HasMore bool     `json:"hasMore"`
		} `json:"completion"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return nil, fmt.Errorf("completion/complete: decoding the result: %w", err)
	}
	return &runtime.Completion{Values: out.Completion.Values, Total: out.Completion.Total, HasMore: out.Completion.HasMore}, nil
}

// maxPages bounds the pages a list method follows.
const maxPages = 1000

// list follows a list method's nextCursor and appends each page's items
// (under key) to dst.
func list[T any](ctx context.Context, c *Client, method, key string) ([]T, error) {
	var all []T
	var cursor string
	for range maxPages {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := c.request(ctx, &exchange{method: method}, params)
		if err != nil {
			return nil, err
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(res, &page); err != nil {
			return nil, fmt.Errorf("%s: decoding the result: %w", method, err)
		}
		var items []T
		if err := json.Unmarshal(page[key], &items); err != nil {
			return nil, fmt.Errorf("%s: decoding %s: %w", method, key, err)
		}
		all = append(all, items...)
		cursor = ""
		if next := page["nextCursor"]; next != nil {
			_ = json.Unmarshal(next, &cursor)
		}
		if cursor == "" {
			return all, nil
		}
	}
	return nil, fmt.Errorf("%s: more than %d pages", method, maxPages)
}

// ListTools lists every tool, following the pages.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	return list[Tool](ctx, c, "tools/list", "tools")
}

// ListPrompts lists every prompt, following the pages.
func (c *Client) ListPrompts(ctx context.Context) ([]Prompt, error) {
	return list[Prompt](ctx, c, "prompts/list", "prompts")
}

// ListResources lists every resource, following the pages.
func (c *Client) ListResources(ctx context.Context) ([]runtime.ResourceInfo, error) {
	return list[runtime.ResourceInfo](ctx, c, "resources/list", "resources")
}

// ListResourceTemplates lists every resource template, following the pages.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	return list[ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates")
}

// Request sends any request (params: any value that encodes as a JSON
// object, or nil) and returns its raw result, for methods the client has no
// method for. Like every request of the client, a 2026-07-28 one carries the
// era's _meta and has its input_required rounds answered.
func (c *Client) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p := map[string]any{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("%s: encoding the params: %w", method, err)
		}
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("%s: params must encode as a JSON object: %w", method, err)
		}
	}
	x := &exchange{method: method}
	// The request's name, for the Mcp-Name header of 2026-07-28.
	nameKey := map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
		"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}[method]
	if name, ok := p[nameKey].(string); ok {
		x.name, x.hasName = name, true
	}
	if method == "tools/call" && x.hasName && c.era.stateless() {
		args, _ := json.Marshal(p["arguments"])
		var err error
		if x.header, err = c.headerParams(ctx, x.name, args); err != nil {
			return nil, err
		}
	}
	return c.request(ctx, x, p)
}

// ServerCapabilities returns the capabilities the server declares to the
// client's era: those of the session's initialize result, or in 2026-07-28
// those of server/discover (asked anew on each call). Extensions the server
// offers are in its extensions member.
func (c *Client) ServerCapabilities(ctx context.Context) (json.RawMessage, error) {
	if !c.era.stateless() {
		return c.serverCaps, nil
	}
	res, err := c.request(ctx, &exchange{method: "server/discover"}, map[string]any{})
	if err != nil {
		return nil, err
	}
	var discover struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(res, &discover); err != nil {
		return nil, fmt.Errorf("server/discover: decoding the result: %w", err)
	}
	if discover.Capabilities == nil {
		return nil, fmt.Errorf("server/discover: the result has no capabilities: %.200s", res)
	}
	return discover.Capabilities, nil
}
