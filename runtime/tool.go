package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/schemacheck"
	"github.com/mcpgen/mcpgen/runtime/internal/schema"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// ToolHandler runs one tools/call. args is the "arguments" object, already
// validated against the tool's inputSchema. Generated code decodes it into the
// typed input, calls the user's Handler and turns its answer into a result.
type ToolHandler func(ctx context.Context, call *Call, args json.RawMessage) (*ToolResult, error)

// Tool is one tool as generated code registers it.
type Tool struct {
	// Name is the tool's name, as in Definition.
	Name string
	// Definition is the tool object advertised by tools/list, byte for byte as
	// the input file wrote it (keyword order, $schema, $defs kept) with only
	// mcpgen's own _meta key removed.
	Definition json.RawMessage
	// Elicitations are the forms this tool may ask for; their schemas are
	// compiled once, when the tool is added.
	Elicitations []*Elicitation
	// Handler runs the call.
	Handler ToolHandler
	// Scopes are the OAuth scopes a caller's token must grant to call the tool
	// (_meta["mcpgen.dev/scopes"]); checked only when Options.Auth is set.
	Scopes []string
	// SingleUseState makes this tool's 2026-07-28 requestState single-use,
	// as Options.SingleUseState does for every tool: a retry runs the
	// handler once, and the same requestState again is refused. Generated
	// code sets it for a tool whose _meta has "mcpgen.dev/singleUseState":
	// true.
	SingleUseState bool
}

// ToolResult is the result of one tools/call.
type ToolResult struct {
	Content []Content
	// StructuredContent is the tool's typed output, already marshalled; nil for
	// tools without an outputSchema.
	StructuredContent json.RawMessage
	IsError           bool
}

// MarshalJSON writes content as an array even when empty, as the schema requires.
func (r *ToolResult) MarshalJSON() ([]byte, error) {
	content := r.Content
	if content == nil {
		content = []Content{}
	}
	return json.Marshal(struct {
		Content           []Content       `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError,omitempty"`
	}{content, r.StructuredContent, r.IsError})
}

// ContentResult is the result of a tool without an outputSchema: the
// handler's blocks plus any the call added (NewContentTool).
func ContentResult(call *Call, blocks []Content) *ToolResult {
	return &ToolResult{Content: append(blocks, withoutMarks(call.extraContent())...)}
}

// StructuredResult is the result of a tool with an outputSchema: out as
// structuredContent, and as content the blocks the call added or, when it
// added none, the same JSON as a text block (NewStructuredTool).
func StructuredResult(call *Call, out any) (*ToolResult, error) {
	return structuredResult(call, out, nil)
}

// toolErrorResult turns a handler error into what the model reads: an isError
// result carrying the message, then the blocks the handler added before it
// failed. Protocol-level outcomes (*Error, ErrInputRequired,
// ErrCapabilityMissing) are not tool errors; callers check them before
// calling this.
func toolErrorResult(err error) *ToolResult {
	return &ToolResult{Content: append([]Content{Text(err.Error())}, addedContent(err)...), IsError: true}
}

// registeredTool is a Tool with its input schema compiled.
type registeredTool struct {
	Tool
	input        *jsonschema.Schema
	headerParams []headerParam    // 2026-07-28 x-mcp-header parameters
	flat         *schema.Flat     // the allocation-free fast path of input, or nil
	keys         *schema.KeyShape // the names input declares, for an exact decode
	output       *outputCheck     // the compiled outputSchema, or nil
	legacyDef    []byte           // Definition as 2025-era sessions see it (output_root.go), or nil: the same
}

// compileTool checks a tool and compiles its schemas and forms.
func compileTool(t Tool) (*registeredTool, error) {
	var def struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(t.Definition, &def); err != nil {
		return nil, fmt.Errorf("tool %q: definition: %w", t.Name, err)
	}
	if def.Name != t.Name {
		return nil, fmt.Errorf("tool %q: definition names %q", t.Name, def.Name)
	}
	if t.Handler == nil {
		return nil, fmt.Errorf("tool %q: no handler", t.Name)
	}
	in, err := schemacheck.Compile("mcpgen:tool/"+t.Name+"/inputSchema", def.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	hp, err := parseHeaderParams(def.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	if err := checkScopes("tool", t.Name, t.Scopes); err != nil {
		return nil, err
	}
	out, err := compileOutput(t.Name, t.Definition)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	for _, e := range t.Elicitations {
		if _, err := e.form(); err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, t.Definition); err != nil {
		return nil, fmt.Errorf("tool %q: definition: %w", t.Name, err)
	}
	t.Definition = compact.Bytes()
	legacyDef, err := schema.LegacyDefinition(t.Definition)
	if err != nil {
		return nil, fmt.Errorf("tool %q: outputSchema: %w", t.Name, err)
	}
	return &registeredTool{Tool: t, input: in, headerParams: hp, flat: schema.CompileFlat(def.InputSchema),
		keys: schema.CompileKeyShape(def.InputSchema), output: out, legacyDef: legacyDef}, nil
}

// checkArguments returns the arguments object ({} when absent); anything but
// an object is invalid params.
func (t *registeredTool) checkArguments(raw json.RawMessage) (json.RawMessage, *Error) {
	raw = trimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] != '{' {
		return nil, NewError(CodeInvalidParams, "tools/call: arguments of %q must be an object", t.Name)
	}
	return raw, nil
}

// validate checks args against the compiled inputSchema and returns them
// as the handler decodes them (without keys that are declared names in
// another case, see schema.KeyShape), or the isError result that tells the model
// what was wrong.
func (t *registeredTool) validate(args json.RawMessage) (json.RawMessage, *ToolResult) {
	if t.flat != nil && t.flat.Accepts(args) {
		return args, nil
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, toolErrorResult(fmt.Errorf("invalid arguments for tool %q: %v", t.Name, err))
	}
	err := t.input.Validate(v)
	if err == nil {
		if t.keys.Strip(v) {
			if args, err = json.Marshal(v); err != nil {
				return nil, toolErrorResult(fmt.Errorf("invalid arguments for tool %q: %v", t.Name, err))
			}
		}
		return args, nil
	}
	return nil, toolErrorResult(fmt.Errorf("invalid arguments for tool %q: %s", t.Name, schemaViolations(err, t.schemaDoc("inputSchema"))))
}

// schemaDoc is one of the tool's schemas decoded, for error messages.
func (t *registeredTool) schemaDoc(key string) any {
	var def map[string]any
	_ = json.Unmarshal(t.Definition, &def)
	return def[key]
}

// run calls the tool's handler, turning a panic into an error (logged).
func (t *registeredTool) run(ctx context.Context, logger *slog.Logger, call *Call, args json.RawMessage) (res *ToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			logger.Error("tool handler panicked", slog.String("tool", t.Name), slog.String("subject", subjectOf(call.principal)),
				slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
			res, err = nil, errHandlerPanic
		}
	}()
	return t.Handler(ctx, call, args)
}

var errHandlerPanic = &Error{Code: CodeInternalError, Message: "internal error: the tool handler panicked"}

// headerParam is one inputSchema property marked "x-mcp-header": the client
// mirrors its value into the Mcp-Param-<Header> header so that proxies can
// route on it without reading the body (2026-07-28).
type headerParam struct {
	Header string   // the x-mcp-header value, e.g. "Region"
	Path   []string // property names from the root of the arguments
	Type   string   // "string", "integer" or "boolean"
}

// parseHeaderParams finds the x-mcp-header properties of an inputSchema.
// They may sit only on string, integer or boolean properties reached from the
// root through "properties" alone; header names are RFC 9110 tokens, unique
// case-insensitively. A schema that breaks these rules is an error.
func parseHeaderParams(inputSchema json.RawMessage) ([]headerParam, error) {
	var out []headerParam
	seen := map[string]string{}
	var walk func(schema json.RawMessage, path []string) error
	walk = func(schema json.RawMessage, path []string) error {
		var node struct {
			Type       json.RawMessage            `json:"type"`
			Header     json.RawMessage            `json:"x-mcp-header"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if len(schema) == 0 || !isObjectJSON(schema) {
			return nil
		}
		if err := json.Unmarshal(schema, &node); err != nil {
			return fmt.Errorf("inputSchema at /%s: %w", strings.Join(path, "/properties/"), err)
		}
		if node.Header != nil {
			where := "/properties/" + strings.Join(path, "/properties/")
			var name string
			if len(path) == 0 || json.Unmarshal(node.Header, &name) != nil || !isHeaderToken(name) {
				return fmt.Errorf("inputSchema%s: x-mcp-header must be a non-empty RFC 9110 token on a property", where)
			}
			var typ string
			_ = json.Unmarshal(node.Type, &typ)
			if typ != "string" && typ != "integer" && typ != "boolean" {
				return fmt.Errorf("inputSchema%s: x-mcp-header %q is allowed only on string, integer or boolean properties", where, name)
			}
			key := strings.ToLower(name)
			if prev, dup := seen[key]; dup {
				return fmt.Errorf("inputSchema%s: x-mcp-header %q is already used by %s", where, name, prev)
			}
			seen[key] = where
			out = append(out, headerParam{Header: name, Path: append([]string(nil), path...), Type: typ})
		}
		for _, k := range slices.Sorted(maps.Keys(node.Properties)) {
			if err := walk(node.Properties[k], append(path, k)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(inputSchema, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// isHeaderToken reports whether s is a non-empty RFC 9110 token.
func isHeaderToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}
