// Package schemacheck compiles JSON Schema documents with the settings
// mcpgen's runtime validates with (2020-12 unless $schema says otherwise,
// formats asserted, no remote $ref followed) and words a failed validation
// as located violations. The runtime checks tool arguments, outputs and
// form answers with it; mcpgen preview checks the arguments a user types
// with it, so that the preview refuses what the server would, in the same
// words.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Compile compiles one JSON Schema document. A schema without $schema is
// 2020-12 (the MCP default since 2025-11-25). Remote $refs are never fetched:
// a schema must be self-contained.
func Compile(location string, doc []byte) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.ExtractAnnotations = true
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("remote $ref %q is not fetched; inline it under $defs", u)
	}
	if err := c.AddResource(location, bytes.NewReader(doc)); err != nil {
		return nil, fmt.Errorf("%s: %w", location, err)
	}
	s, err := c.Compile(location)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", location, err)
	}
	return s, nil
}

// Violations lists every problem of a failed validation, one
// "/instance/pointer: what is wrong" each. A oneOf or anyOf whose branches
// are all consts (a titled enum) reads "must be one of a, b" instead of one
// "value must be" per branch; doc is the schema document, to read the
// branches' values from.
func Violations(ve *jsonschema.ValidationError, doc any) []string {
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		loc := e.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		if choices, ok := constChoices(e, doc); ok {
			lines = append(lines, loc+": must be one of "+strings.Join(choices, ", "))
			return
		}
		if len(e.Causes) == 0 {
			lines = append(lines, loc+": "+e.Message)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return lines
}

// constChoices returns the values of a failed oneOf/anyOf whose every
// branch failed its const.
func constChoices(e *jsonschema.ValidationError, doc any) ([]string, bool) {
	kw := e.KeywordLocation
	if !strings.HasSuffix(kw, "/oneOf") && !strings.HasSuffix(kw, "/anyOf") || len(e.Causes) == 0 {
		return nil, false
	}
	var choices []string
	for _, c := range e.Causes {
		if len(c.Causes) != 0 || !strings.HasSuffix(c.KeywordLocation, "/const") {
			return nil, false
		}
		_, ptr, _ := strings.Cut(c.AbsoluteKeywordLocation, "#")
		v, ok := jsonPointer(doc, ptr)
		if !ok {
			return nil, false
		}
		if s, isString := v.(string); isString {
			choices = append(choices, s)
		} else {
			b, _ := json.Marshal(v)
			choices = append(choices, string(b))
		}
	}
	return choices, true
}

// jsonPointer resolves an RFC 6901 pointer in decoded JSON.
func jsonPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch n := doc.(type) {
		case map[string]any:
			v, ok := n[tok]
			if !ok {
				return nil, false
			}
			doc = v
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			doc = n[i]
		default:
			return nil, false
		}
	}
	return doc, true
}
