package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/schema"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// outputCheck is a tool's compiled outputSchema. The specification says
// servers MUST provide structured results that conform to it, and every
// client SDK that validates rejects the whole call when they do not, so a
// handler's output that breaks its schema is a server bug: it never reaches
// the client as structuredContent. The check costs one scan of the encoded
// output when the schema is flat (see schema.Flat); anything else, or a flat
// check that cannot accept for certain, goes to the full JSON Schema
// validation, which also says what broke and where.
type outputCheck struct {
	schema *jsonschema.Schema
	flat   *schema.Flat // the allocation-free fast path, or nil
}

// compileOutput compiles a tool definition's outputSchema; nil when the
// definition has none.
func compileOutput(tool string, def json.RawMessage) (*outputCheck, error) {
	var d struct {
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(def, &d); err != nil {
		return nil, fmt.Errorf("definition: %w", err)
	}
	raw := bytes.TrimSpace(d.OutputSchema)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	s, err := schema.Compile("mcpgen:tool/"+tool+"/outputSchema", raw)
	if err != nil {
		return nil, err
	}
	return &outputCheck{schema: s, flat: schema.CompileFlat(raw)}, nil
}

// checkOutput returns res when its structuredContent conforms to the
// tool's outputSchema (or the tool has none), and otherwise an isError
// result that says what broke and where, logged as a server bug. A
// successful result without structuredContent breaks the schema too (the
// specification requires structured results when an outputSchema is
// given); an isError result may omit it.
func (s *Server) checkOutput(t *registeredTool, res *ToolResult) *ToolResult {
	oc := t.output
	if oc == nil || res == nil {
		return res
	}
	sc := bytes.TrimSpace(res.StructuredContent)
	if len(sc) == 0 {
		if res.IsError {
			return res
		}
		return s.outputBroken(t, "no structuredContent (the tool declares an outputSchema)")
	}
	if oc.flat != nil && oc.flat.Accepts(sc) {
		return res
	}
	d := json.NewDecoder(bytes.NewReader(sc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return s.outputBroken(t, "structuredContent is not JSON: "+err.Error())
	}
	if err := oc.schema.Validate(v); err != nil {
		return s.outputBroken(t, schemaViolations(err, t.schemaDoc("outputSchema")))
	}
	return res
}

// outputBroken logs a handler's nonconforming output and returns the
// error result the client gets instead.
func (s *Server) outputBroken(t *registeredTool, why string) *ToolResult {
	s.logger.Error("tool output does not match its outputSchema (a bug in the tool's handler)",
		slog.String("tool", t.Name), slog.String("schema.Violations", why))
	return toolErrorResult(fmt.Errorf("internal error: the output of tool %q does not match its outputSchema: %s", t.Name, why))
}

// schemaViolations lists what a failed validation against doc (the schema,
// decoded) found, every problem "location: message" (see schema.Violations).
func schemaViolations(err error, doc any) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	return strings.Join(schema.Violations(ve, doc), "; ")
}
