package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// headerParam is an inputSchema property marked "x-mcp-header": a
// 2026-07-28 client mirrors its value into the Mcp-Param-<name> header of a
// tools/call over HTTP.
type headerParam struct {
	header string
	path   []string
}

// headerParams returns the Mcp-Param-* headers of a 2026-07-28 tools/call
// over HTTP. The client learns which properties carry one from tools/list,
// once, as a real client does.
func (c *Client) headerParams(ctx context.Context, tool string, args json.RawMessage) (map[string][]string, error) {
	if _, http := c.tr.(*httpTransport); !http {
		return nil, nil
	}
	c.mu.Lock()
	known := c.toolHeaders
	c.mu.Unlock()
	if known == nil {
		tools, err := c.ListTools(ctx)
		if err != nil {
			return nil, fmt.Errorf("tools/call %s: listing the tools for their x-mcp-header properties: %w", tool, err)
		}
		known = map[string][]headerParam{}
		for _, t := range tools {
			known[t.Name] = findHeaderParams(t.InputSchema, nil)
		}
		c.mu.Lock()
		c.toolHeaders = known
		c.mu.Unlock()
	}
	params := known[tool]
	if len(params) == 0 {
		return nil, nil
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&root) != nil {
		return nil, nil
	}
	h := map[string][]string{}
	for _, p := range params {
		v := root
		for _, k := range p.path {
			obj, _ := v.(map[string]any)
			v = obj[k]
		}
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case bool:
			s = strconv.FormatBool(v)
		case json.Number:
			s = v.String()
		default:
			continue // absent or null: no header
		}
		h["Mcp-Param-"+p.header] = []string{encodeHeaderValue(s)}
	}
	return h, nil
}

// findHeaderParams walks a schema's properties, from the root through
// "properties" alone, for x-mcp-header.
func findHeaderParams(schema json.RawMessage, path []string) []headerParam {
	var node struct {
		Header     string                     `json:"x-mcp-header"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &node) != nil {
		return nil
	}
	var out []headerParam
	if node.Header != "" && len(path) > 0 {
		out = append(out, headerParam{header: node.Header, path: path})
	}
	for _, k := range slices.Sorted(maps.Keys(node.Properties)) {
		out = append(out, findHeaderParams(node.Properties[k], append(append([]string(nil), path...), k))...)
	}
	return out
}
