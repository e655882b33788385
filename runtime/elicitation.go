package runtime

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpgen/mcpgen/internal/schemacheck"
	"github.com/mcpgen/mcpgen/runtime/internal/schema"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Elicitation describes one elicitation a tool may ask for, as generated code
// declares it (one package-level value per elicitation file, never mutated).
type Elicitation struct {
	// Name is the elicitation's name from its file; 2026-07-28 input request
	// keys derive from it.
	Name string
	// Mode is "form" or "url".
	Mode string
	// Message is the default message shown to the user when the caller passes
	// none.
	Message string
	// RequestedSchema is the form's schema, byte for byte as written (form mode).
	RequestedSchema json.RawMessage

	once     sync.Once
	compiled *compiledForm
	err      error
}

// compiledForm is a form schema ready to validate answers.
type compiledForm struct {
	schema   *jsonschema.Schema
	defaults map[string]any
	// flat is the allocation-free check of flat forms; withDefaults has the
	// bits of the properties that have a default.
	flat         *schema.Flat
	withDefaults uint64
	keys         *schema.KeyShape // the form's names, for an exact decode
}

// form compiles the requested schema once, whichever server uses it first.
// The result is immutable, so sharing it across servers is safe.
func (e *Elicitation) form() (*compiledForm, error) {
	e.once.Do(func() {
		if e.Mode != "form" {
			return
		}
		s, err := schemacheck.Compile("mcpgen:elicitation/"+e.Name, e.RequestedSchema)
		if err != nil {
			e.err = fmt.Errorf("elicitation %q: %w", e.Name, err)
			return
		}
		var shape struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(e.RequestedSchema, &shape); err != nil {
			e.err = fmt.Errorf("elicitation %q: %w", e.Name, err)
			return
		}
		defaults := map[string]any{}
		for k, p := range shape.Properties {
			if len(p.Default) > 0 {
				var v any
				if err := json.Unmarshal(p.Default, &v); err == nil {
					defaults[k] = v
				}
			}
		}
		e.compiled = &compiledForm{schema: s, defaults: defaults, flat: schema.CompileFlat(e.RequestedSchema), keys: schema.CompileKeyShape(e.RequestedSchema)}
		if f := e.compiled.flat; f != nil {
			for k := range defaults {
				e.compiled.withDefaults |= f.Bit(k)
			}
		}
	})
	return e.compiled, e.err
}

// decodeAnswer applies the schema's defaults to an accepted form's content,
// validates it against the requested schema and decodes it into dst.
func (e *Elicitation) decodeAnswer(content json.RawMessage, dst any) error {
	f, err := e.form()
	if err != nil {
		return err
	}
	// Fast path: a flat form whose answer certainly matches and needs no
	// default decodes straight into dst.
	if f.flat != nil && len(content) > 0 {
		if ok, seen := f.flat.Scan(content); ok && seen&f.withDefaults == f.withDefaults {
			if dst == nil {
				return nil
			}
			if err := json.Unmarshal(content, dst); err != nil {
				return fmt.Errorf("%w: elicitation %q: %v", ErrInvalidAnswer, e.Name, err)
			}
			return nil
		}
	}
	obj := map[string]any{}
	if len(content) > 0 && string(content) != "null" {
		if err := json.Unmarshal(content, &obj); err != nil {
			return fmt.Errorf("%w: elicitation %q: content is not an object: %v", ErrInvalidAnswer, e.Name, err)
		}
	}
	for k, v := range f.defaults {
		if _, ok := obj[k]; !ok {
			obj[k] = v
		}
	}
	if err := f.schema.Validate(obj); err != nil {
		return fmt.Errorf("%w: elicitation %q: %v", ErrInvalidAnswer, e.Name, err)
	}
	f.keys.Strip(obj) // what dst gets is what was validated
	if dst == nil {
		return nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("%w: elicitation %q: %v", ErrInvalidAnswer, e.Name, err)
	}
	return nil
}

// CheckAnswer reports what is wrong with result as the client's answer to
// a server-to-client request of method (elicitation/create,
// sampling/createMessage, roots/list): nil when it is well formed. The
// runtime checks every answer a Call takes; an extension that takes
// answers itself (a method of its own that carries them) checks them with
// it.
func CheckAnswer(method string, result json.RawMessage) error {
	return checkAnswerShape(method, result)
}

// checkAnswerShape checks that an input response has the shape of the
// method's result; the content of a form is validated later, against its
// requestedSchema, by Elicit.
func checkAnswerShape(method string, raw json.RawMessage) error {
	if !isObjectJSON(raw) {
		return fmt.Errorf("not an object")
	}
	switch method {
	case methodElicit:
		var r struct {
			Action  string          `json:"action"`
			Content json.RawMessage `json:"content"`
		}
		if err := decodeValue(raw, &r); err != nil {
			return err
		}
		if r.Action != "accept" && r.Action != "decline" && r.Action != "cancel" {
			return fmt.Errorf("action must be accept, decline or cancel")
		}
		if len(r.Content) > 0 && string(r.Content) != "null" && !isObjectJSON(r.Content) {
			return fmt.Errorf("content must be an object")
		}
	case methodCreateMessage:
		var r struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := decodeValue(raw, &r); err != nil {
			return err
		}
		if r.Role == "" || len(r.Content) == 0 {
			return fmt.Errorf("role and content are required")
		}
	case methodListRoots:
		var r struct {
			Roots []Root `json:"roots"`
		}
		if err := decodeValue(raw, &r); err != nil {
			return err
		}
		if r.Roots == nil {
			return fmt.Errorf("roots is required")
		}
	}
	return nil
}
