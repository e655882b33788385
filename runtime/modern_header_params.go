package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// headerParam is one inputSchema property marked "x-mcp-header": the client
// mirrors its value into the Mcp-Param-<Header> header so that proxies can
// route on it without reading the body (2026-07-28).
type headerParam struct {
	Header string   // the x-mcp-header value, e.g. "Region"
	Path   []string // property names from the root of the arguments
	Type   string   // "string", "integer" or "boolean"
}

// parseHeaderParams finds the x-mcp-header properties of an inputSchema.
// They may sit only on string, integer or boolean properties reached from the
// root through "properties" alone; header names are RFC 9110 tokens, unique
// case-insensitively. A schema that breaks these rules is an error.
func parseHeaderParams(inputSchema json.RawMessage) ([]headerParam, error) {
	var out []headerParam
	seen := map[string]string{}
	var walk func(schema json.RawMessage, path []string) error
	walk = func(schema json.RawMessage, path []string) error {
		var node struct {
			Type       json.RawMessage            `json:"type"`
			Header     json.RawMessage            `json:"x-mcp-header"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if len(schema) == 0 || !isObjectJSON(schema) {
			return nil
		}
		if err := json.Unmarshal(schema, &node); err != nil {
			return fmt.Errorf("inputSchema at /%s: %w", strings.Join(path, "/properties/"), err)
		}
		if node.Header != nil {
			where := "/properties/" + strings.Join(path, "/properties/")
			var name string
			if len(path) == 0 || json.Unmarshal(node.Header, &name) != nil || !isHeaderToken(name) {
				return fmt.Errorf("inputSchema%s: x-mcp-header must be a non-empty RFC 9110 token on a property", where)
			}
			var typ string
			_ = json.Unmarshal(node.Type, &typ)
			if typ != "string" && typ != "integer" && typ != "boolean" {
				return fmt.Errorf("inputSchema%s: x-mcp-header %q is allowed only on string, integer or boolean properties", where, name)
			}
			key := strings.ToLower(name)
			if prev, dup := seen[key]; dup {
				return fmt.Errorf("inputSchema%s: x-mcp-header %q is already used by %s", where, name, prev)
			}
			seen[key] = where
			out = append(out, headerParam{Header: name, Path: append([]string(nil), path...), Type: typ})
		}
		for _, k := range slices.Sorted(maps.Keys(node.Properties)) {
			if err := walk(node.Properties[k], append(path, k)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(inputSchema, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// checkToolHeaders checks the Mcp-Param-* headers of a tools/call against
// the arguments of the tool it names. An unknown tool is the method's to
// report.
func (s *Server) checkToolHeaders(h http.Header, msg *message) *Error {
	p := msg.params()
	if msg.Method != methodToolsCall || p.Name == nil {
		return nil
	}
	s.mu.RLock()
	t := s.byName[string(p.Name)]
	s.mu.RUnlock()
	if t == nil {
		return nil
	}
	return checkHeaderParams(h, t.headerParams, p.Arguments)
}

// checkHeaderParams compares each Mcp-Param-* header with the argument it
// mirrors. A value in the body needs its header; null or absent values need
// none. Integers compare numerically. The error is -32020.
func checkHeaderParams(h http.Header, params []headerParam, args json.RawMessage) *Error {
	if len(params) == 0 {
		return nil
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if len(args) > 0 && dec.Decode(&root) != nil {
		return nil // the arguments are invalid; input validation reports it
	}
	for _, p := range params {
		v, ok := lookupArgPath(root, p.Path)
		if !ok || v == nil {
			continue
		}
		name := headerParamPrefix + p.Header
		raw, sent := modernHeader(h, name)
		if !sent {
			return headerMismatch(name, "the %s header is required: arguments.%s has a value", name, strings.Join(p.Path, "."))
		}
		hv, err := decodeHeaderValue(raw)
		if err != nil {
			return headerMismatch(name, "%s: %v", name, err)
		}
		if !headerParamEqual(p.Type, hv, v) {
			return headerMismatch(name, "the %s header does not match arguments.%s", name, strings.Join(p.Path, "."))
		}
	}
	return nil
}

// headerParamEqual compares a decoded header with the body value v.
func headerParamEqual(typ, header string, v any) bool {
	switch typ {
	case "string":
		s, ok := v.(string)
		return ok && s == header
	case "boolean":
		b, ok := v.(bool)
		return ok && strconv.FormatBool(b) == header
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		bv, err1 := strconv.ParseFloat(n.String(), 64)
		hv, err2 := strconv.ParseFloat(header, 64)
		return err1 == nil && err2 == nil && bv == hv
	}
	return false
}

func lookupArgPath(v any, path []string) (any, bool) {
	for _, k := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// isHeaderToken reports whether s is a non-empty RFC 9110 token.
func isHeaderToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}
