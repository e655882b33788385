package runtime

import (
	"bytes"
	"fmt"
	"io"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// compileSchema compiles one JSON Schema document. A schema without $schema is
// 2020-12 (the MCP default since 2025-11-25). Remote $refs are never fetched:
// a schema must be self-contained.
func compileSchema(location string, doc []byte) (*jsonschema.Schema, error) {
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
