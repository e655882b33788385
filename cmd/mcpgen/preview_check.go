package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/mcpgen/mcpgen/internal/schemacheck"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// checkArguments validates the arguments a user typed for a tool against
// its inputSchema before the preview calls it, with the compiler settings
// and the wording of mcpgen's runtime for the same check
// (internal/schemacheck: 2020-12 unless the schema says otherwise, formats
// asserted, no remote $ref followed: the schema comes from the server and
// must not make the preview read a file or fetch a URL), so that the
// preview refuses what the server would and says where. It returns one
// "/pointer: what is wrong" per problem, sorted, none when the arguments
// are valid, and an error when the schema does not compile.
func checkArguments(schema, args json.RawMessage) ([]string, error) {
	compiled, err := schemacheck.Compile("inputSchema.json", schema)
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
		lines := schemacheck.Violations(ve, doc)
		sort.Strings(lines) // the validator visits properties in map order
		return lines, nil
	}
	if err != nil {
		return nil, err
	}
	return []string{}, nil
}
