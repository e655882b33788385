package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Structured output of any JSON type. 2026-07-28 (SEP-2106) lets
// structuredContent be "any JSON value (object, array, string, number,
// boolean, or null) that conforms to the tool's outputSchema", whose root may
// then be any JSON Schema. The earlier revisions do not: 2025-06-18 and
// 2025-11-25 define structuredContent as "An optional JSON object that
// represents the structured result of the tool call" and outputSchema as
// `type: "object"` ("Currently restricted to type: "object" at the root
// level"), and their client SDKs reject anything else (the TypeScript SDK
// fails the whole tools/list on an array-rooted outputSchema).
//
// So a session of 2025-11-25 or earlier sees such a tool the way the
// TypeScript SDK's own dual-era server shows it: tools/list advertises
// {"type":"object","properties":{"result":<the schema>},"required":["result"]}
// (same-document $refs rewritten to point into it, $schema kept at the
// root), and tools/call sends structuredContent {"result":<the value>}. The
// value is checked against the tool's own schema before it is wrapped, and
// the first text block is still the serialized value, which is what
// SEP-2106 asks of servers that send non-object structuredContent ("MUST
// also emit a TextContent block containing the serialized JSON") so that
// older clients can fall back to it. 2026-07-28 gets the value and the
// schema as written.

// ObjectOutputRoot reports whether an outputSchema's root declares
// "type": "object", the only root the 2025 revisions allow.
func ObjectOutputRoot(schema json.RawMessage) bool {
	var root struct {
		Type json.RawMessage `json:"type"`
	}
	return json.Unmarshal(schema, &root) == nil && string(bytes.TrimSpace(root.Type)) == `"object"`
}

// LegacyDefinition returns the tool definition a 2025-era session sees: def
// with its outputSchema wrapped under "result", or nil when def needs no
// change (no outputSchema, or an object root).
func LegacyDefinition(def json.RawMessage) (json.RawMessage, error) {
	start, end, schema, err := memberSpan(def, "outputSchema")
	if err != nil || schema == nil || ObjectOutputRoot(schema) {
		return nil, err
	}
	wrapped, err := WrapOutputSchema(schema)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(def)+64)
	out = append(out, def[:start]...)
	out = append(out, ':')
	out = append(out, wrapped...)
	out = append(out, def[end:]...)
	var compact bytes.Buffer
	if err := json.Compact(&compact, out); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}

// memberSpan finds the top-level member key of object doc: the span of its
// ": value" (from just after the key to the end of the value) and the value.
func memberSpan(doc []byte, key string) (start, end int, value json.RawMessage, err error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, nil, errors.New("the tool definition is not an object")
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return 0, 0, nil, err
		}
		k, _ := tok.(string)
		start := int(d.InputOffset())
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return 0, 0, nil, err
		}
		if k == key {
			return start, int(d.InputOffset()), v, nil
		}
	}
	return 0, 0, nil, nil
}

// WrapOutputSchema is schema as the "result" property of an object schema.
func WrapOutputSchema(schema json.RawMessage) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	var s any
	if err := d.Decode(&s); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("outputSchema: trailing data")
	}
	wrapper := map[string]any{"type": "object", "required": []string{"result"}}
	if m, ok := s.(map[string]any); ok {
		if v, ok := m["$schema"]; ok {
			wrapper["$schema"] = v
			delete(m, "$schema")
		}
	}
	wrapper["properties"] = map[string]any{"result": rebaseRefs(s)}
	return json.Marshal(wrapper)
}

// rebaseRefs rewrites the same-document JSON Pointer $refs of a schema
// ("#" and "#/...") to point into properties/result; anchors ("#name") and
// other documents are left as they are.
func rebaseRefs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if ref, ok := e.(string); ok && (k == "$ref" || k == "$dynamicRef") && (ref == "#" || strings.HasPrefix(ref, "#/")) {
				x[k] = "#/properties/result" + ref[1:]
				continue
			}
			x[k] = rebaseRefs(e)
		}
	case []any:
		for i, e := range x {
			x[i] = rebaseRefs(e)
		}
	}
	return v
}
