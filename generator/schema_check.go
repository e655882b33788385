package generator

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// compileSchema compiles the schema at at with jsonschema/v5 (2020-12 unless
// $schema names another draft, annotations kept, remote references never
// fetched) and reports every problem at its place in the file.
func compileSchema(at place, rep *reporter) bool {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.ExtractAnnotations = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("remote reference %q is not fetched", u)
	}
	const url = "mcpgen:///schema.json"
	if err := c.AddResource(url, bytes.NewReader(at.src.doc.Raw(at.node))); err != nil {
		rep.errorf(at, "", "not a JSON Schema: %v", trimJSONSchemaErr(err))
		return false
	}
	_, err := c.Compile(url)
	if err == nil {
		return true
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		reportLeaves(at, leaves(ve, nil), rep)
		return false
	}
	msg := trimJSONSchemaErr(err)
	hint := ""
	if strings.Contains(msg, "remote reference") {
		hint = "inline the referenced schema under $defs and refer to it as #/$defs/Name"
	}
	rep.errorf(at, hint, "not a valid schema: %s", msg)
	return false
}

// leaves collects the deepest causes of a meta-schema validation failure.
func leaves(ve *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return append(out, ve)
	}
	for _, c := range ve.Causes {
		out = leaves(c, out)
	}
	return out
}

// reportLeaves reports each failure at the place in the file it concerns.
// Where the meta-schema tried alternatives ("expected array, but got
// string" beside "value must be one of ..."), the type mismatches of the
// alternatives not taken are left out.
func reportLeaves(at place, all []*jsonschema.ValidationError, rep *reporter) {
	byLoc := map[string][]string{}
	var locs []string
	for _, ve := range all {
		if _, ok := byLoc[ve.InstanceLocation]; !ok {
			locs = append(locs, ve.InstanceLocation)
		}
		byLoc[ve.InstanceLocation] = append(byLoc[ve.InstanceLocation], ve.Message)
	}
	for _, loc := range locs {
		msgs := byLoc[loc]
		var specific []string
		for _, m := range msgs {
			if !strings.HasPrefix(m, "expected ") {
				specific = append(specific, m)
			}
		}
		if len(specific) > 0 && len(specific) < len(msgs) {
			msgs = specific
		}
		n := at.src.doc.At(at.node.Ptr + loc)
		if n == nil {
			n = at.node
		}
		seen := map[string]bool{}
		for _, m := range msgs {
			if !seen[m] {
				seen[m] = true
				rep.errorf(place{at.src, n}, "the schema must be valid JSON Schema 2020-12", "invalid schema: %s", m)
			}
		}
	}
}

func trimJSONSchemaErr(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "compilation failed: "); i >= 0 {
		msg = msg[i+len("compilation failed: "):]
	}
	msg = strings.TrimPrefix(msg, "jsonschema: ")
	return strings.ReplaceAll(msg, "mcpgen:///schema.json", "")
}

// constraintsOnly reports whether schemas only constrain (required, minimum,
// ...) rather than describe other shapes, so that ignoring them in the Go type
// is safe: the runtime validates input against the full schema. Nested
// compositions of constraints ({"anyOf": [{"required": ["a"]}, ...]}) count.
func constraintsOnly(alts []*jsontree.Node) bool {
	for _, a := range alts {
		if a.Kind == jsontree.Bool {
			continue
		}
		if a.Kind != jsontree.Object {
			return false
		}
		for _, k := range []string{"type", "properties", "$ref", "items", "const", "enum", "additionalProperties"} {
			if a.Has(k) {
				return false
			}
		}
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			if n := a.Get(k); n != nil && (n.Kind != jsontree.Array || !constraintsOnly(n.Elems)) {
				return false
			}
		}
	}
	return true
}
