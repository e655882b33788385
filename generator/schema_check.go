package generator

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
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
		reportLeaves(at, ve, rep, map[string]bool{})
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

// reportLeaves reports the deepest causes of a meta-schema validation failure,
// each at the place in the file that it concerns.
func reportLeaves(at place, ve *jsonschema.ValidationError, rep *reporter, seen map[string]bool) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			reportLeaves(at, c, rep, seen)
		}
		return
	}
	key := ve.InstanceLocation + "\x00" + ve.Message
	if seen[key] {
		return
	}
	seen[key] = true
	n := at.src.doc.At(at.node.Ptr + ve.InstanceLocation)
	if n == nil {
		n = at.node
	}
	rep.errorf(place{at.src, n}, "the schema must be valid JSON Schema 2020-12", "invalid schema: %s", ve.Message)
}

func trimJSONSchemaErr(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "compilation failed: "); i >= 0 {
		msg = msg[i+len("compilation failed: "):]
	}
	msg = strings.TrimPrefix(msg, "jsonschema: ")
	return strings.ReplaceAll(msg, "mcpgen:///schema.json", "")
}
