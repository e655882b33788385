package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/internal/schemacheck"
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
	s, err := schemacheck.Compile("mcpgen:tool/"+tool+"/outputSchema", raw)
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
func (t *registeredTool) checkOutput(res *ToolResult, logger *slog.Logger) *ToolResult {
	oc := t.output
	if oc == nil || res == nil {
		return res
	}
	sc := bytes.TrimSpace(res.StructuredContent)
	if len(sc) == 0 {
		if res.IsError {
			return res
		}
		return t.outputBroken(logger, "no structuredContent (the tool declares an outputSchema)")
	}
	if oc.flat != nil && oc.flat.Accepts(sc) {
		return res
	}
	d := json.NewDecoder(bytes.NewReader(sc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return t.outputBroken(logger, "structuredContent is not JSON: "+err.Error())
	}
	if err := oc.schema.Validate(v); err != nil {
		return t.outputBroken(logger, schemaViolations(err, t.schemaDoc("outputSchema")))
	}
	return res
}

// outputBroken logs a handler's nonconforming output and returns the
// error result the client gets instead.
func (t *registeredTool) outputBroken(logger *slog.Logger, why string) *ToolResult {
	logger.Error("tool output does not match its outputSchema (a bug in the tool's handler)",
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
	return strings.Join(schemacheck.Violations(ve, doc), "; ")
}

// appendToolResult appends r as JSON. Text blocks without annotations, the
// common case, are written directly; other blocks go through encoding/json.
// The output decodes to what encoding/json would produce for r (byte for
// byte the same but for \b and \f, written \u0008 and \u000c).
func appendToolResult(b []byte, r *ToolResult) ([]byte, error) {
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		if t, ok := c.(*TextContent); ok && t != nil && t.Annotations == nil {
			b = append(b, `{"type":"text","text":`...)
			b = appendJSONString(b, t.Text)
			b = append(b, '}')
			continue
		}
		cb, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		b = append(b, cb...)
	}
	b = append(b, ']')
	if len(r.StructuredContent) > 0 {
		if !json.Valid(r.StructuredContent) {
			return nil, errors.New("structuredContent is not valid JSON")
		}
		b = append(b, `,"structuredContent":`...)
		b = append(b, r.StructuredContent...)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string with encoding/json's escaping
// rules (HTML-safe, U+2028/U+2029 escaped, invalid UTF-8 replaced), except
// that \b and \f are written \u0008 and \u000c.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// legacyResult is res as a 2025-era session gets it: structuredContent
// wrapped as {"result": value}. res itself is not changed.
func legacyResult(res *ToolResult) *ToolResult {
	sc := bytes.TrimSpace(res.StructuredContent)
	if len(sc) == 0 {
		return res
	}
	w := *res
	b := make([]byte, 0, len(sc)+11)
	b = append(b, `{"result":`...)
	b = append(b, sc...)
	w.StructuredContent = append(b, '}')
	return &w
}
