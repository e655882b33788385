package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// checkArguments validates the arguments a user typed for a tool against
// its inputSchema before the preview calls it, with the validator and the
// settings mcpgen's runtime uses for the same check (JSON Schema 2020-12
// unless the schema says otherwise, formats asserted, no remote $ref), so
// that the preview refuses what the server would and says where. It
// returns one "/pointer: what is wrong" per problem, none when the
// arguments are valid, and an error when the schema does not compile.
func checkArguments(schema, args json.RawMessage) ([]string, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		// The schema comes from the server: it must not make the preview
		// read a file or fetch a URL.
		return nil, fmt.Errorf("a $ref to %q is not followed (the schema must be self-contained)", u)
	}
	const location = "inputSchema.json"
	if err := c.AddResource(location, bytes.NewReader(schema)); err != nil {
		return nil, fmt.Errorf("the tool's inputSchema is not JSON Schema: %v", err)
	}
	compiled, err := c.Compile(location)
	if err != nil {
		return nil, fmt.Errorf("the tool's inputSchema does not compile: %v", err)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return []string{"/: not JSON: " + err.Error()}, nil
	}
	if _, ok := v.(map[string]any); !ok {
		return []string{"/: the arguments of a tool are a JSON object, such as {}"}, nil
	}
	err = compiled.Validate(v)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		var doc any
		_ = json.Unmarshal(schema, &doc) // it compiled: it is JSON
		return violations(ve, doc), nil
	}
	if err != nil {
		return nil, err
	}
	return []string{}, nil
}

// violations lists the leaves of a validation error: the problems
// themselves, not the keywords that contain them. An anyOf or oneOf whose
// every branch is a const reads "must be one of ..."; doc is the schema
// document, to read the branches' values from.
func violations(ve *jsonschema.ValidationError, doc any) []string {
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		loc := e.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		if choices := constChoices(e, doc); choices != nil {
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
	sort.Strings(lines) // the validator visits properties in map order
	return lines
}

// constChoices returns the values of a failed anyOf or oneOf whose every
// branch failed its const (a titled enum), read from the schema document.
func constChoices(e *jsonschema.ValidationError, doc any) []string {
	if !strings.HasSuffix(e.KeywordLocation, "/oneOf") && !strings.HasSuffix(e.KeywordLocation, "/anyOf") || len(e.Causes) == 0 {
		return nil
	}
	var choices []string
	for _, c := range e.Causes {
		if len(c.Causes) != 0 || !strings.HasSuffix(c.KeywordLocation, "/const") {
			return nil
		}
		_, ptr, _ := strings.Cut(c.AbsoluteKeywordLocation, "#")
		v, ok := jsonPointer(doc, ptr)
		if !ok {
			return nil
		}
		b, _ := json.Marshal(v)
		choices = append(choices, string(b))
	}
	return choices
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
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			doc = n[i]
		default:
			return nil, false
		}
	}
	return doc, true
}
