// Package generator turns MCP tool definitions and elicitation schemas into
// typed Go. [Generate] is a pure function: it loads and checks the inputs
// (load.go, schema_check.go, elicit_subset.go), builds an intermediate
// representation of the Go types (ir.go, types.go, names.go) and emits the
// package with jennifer (emit_types.go, emit_files.go), returning the files as
// a map of name to bytes. The CLI, --check and the golden tests all use it.
//
// # Inputs
//
// Each input file is recognised by its shape:
//
//   - a tool: {"name", "description", "inputSchema", "outputSchema"?, ...}
//     exactly as tools/list returns it;
//   - an array of tools, or a tools/list result {"tools": [...]};
//   - an elicitation: {"name", "description", "mode": "form", "message"?,
//     "requestedSchema"} or {"name", "description", "mode": "url", "message"?};
//   - a prompt {"name", "arguments": [...], ...}, a resource {"uri", "name",
//     ...} or a resource template {"uriTemplate", "name", ...}, arrays of
//     them, and prompts/list, resources/list and resources/templates/list
//     results (load_features.go lists their _meta keys).
//
// A tool lists the elicitations it may ask for in its _meta:
//
//	{
//	  "name": "delete_file",
//	  "description": "Delete a file after asking the user",
//	  "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
//	  "_meta": {"mcpgen.dev/elicitations": ["confirm_delete"]}
//	}
//
//	{
//	  "name": "confirm_delete",
//	  "description": "Confirm the deletion",
//	  "mode": "form",
//	  "requestedSchema": {
//	    "type": "object",
//	    "properties": {"confirm": {"type": "boolean"}, "reason": {"type": "string", "enum": ["old", "dup"]}},
//	    "required": ["confirm"]
//	  }
//	}
//
// Tool names follow the specification (1 to 64 characters of A-Z a-z 0-9 _ - .);
// the description is optional. A whole JSON-RPC response of tools/list is
// read as its result, and a tool schema without "type" as an object. Schemas are JSON Schema 2020-12 unless
// $schema names another draft; they are validated with jsonschema/v5, and
// remote references are never fetched. A requestedSchema must stay inside the
// specification's restricted subset: a flat object of string (minLength,
// maxLength, format email|uri|date|date-time), number, integer (minimum,
// maximum), boolean and enum properties (untitled enum, titled oneOf of
// {const, title}, legacy enum+enumNames, multi-select arrays with items.enum
// or items.anyOf), each with an optional default.
//
// Every problem of a run is reported, one line each, as
// file:LINE:COL: /json/pointer: message (hint), and nothing is generated.
// Warnings (a schema that becomes json.RawMessage, say) use the same form with
// "warning:" before the message.
//
// # Types
//
// Required properties are values, optional ones pointers (or values when
// they have a default, applied when decoding), optional ones that allow null
// runtime.Optional[T] (absent, null and a value told apart). Enums are typed
// constants. A oneOf/anyOf whose object branches carry a const or enum tag is
// a discriminated sum type; one without a tag is a sum type of the same shape
// when its branches differ in JSON kind or, among objects, in a key only one
// requires (types_choice.go). What stays ambiguous is json.RawMessage, with
// a warning that says why.
//
// # Names and overrides
//
// Go names come from the JSON names (userId -> UserID, delete_file ->
// DeleteFile) plus the path: the input of tool delete_file is DeleteFileInput,
// its property "options" of object type is DeleteFileInputOptions, array items
// add Item, map values add Value, $defs/Address becomes DeleteFileAddress (a
// tool's input and output schemas may share an identical $defs entry). Two
// schemas that would get the same name are an error naming both places; settle
// it with an override:
//
//   - "x-go-name": "Name" on a schema names the Go type made from it (on an
//     elicitation file, next to "name", it names the answer struct);
//   - "x-go-field-name": "Name" on a property names its struct field;
//   - "x-go-enum-names": ["A", "B"] on an enum names its constants (the type
//     name plus each entry);
//   - _meta["mcpgen.dev/go-name"]: "Name" on a tool names its Go identifiers.
//
// A tool may require OAuth scopes of its callers:
// _meta["mcpgen.dev/scopes"]: ["files:write"]. The generated code carries them
// to the runtime as runtime.Tool.Scopes; a server with authorization switched
// on (runtime.Options.Auth) refuses a call whose token lacks them with 403
// insufficient_scope before the handler runs, and advertises them in its
// Protected Resource Metadata.
//
// _meta["mcpgen.dev/singleUseState"]: true on a tool makes its 2026-07-28
// requestState single-use (runtime.Tool.SingleUseState): one answer runs the
// tool once, and the same retry sent again is refused.
//
// Every _meta key starting with "mcpgen.dev/" is removed from the definition
// that tools/list advertises (and _meta itself when nothing else is left), and
// so is every override above where it stands as a schema keyword (also from
// the requestedSchema that elicitation/create sends); the rest of the tool is
// advertised byte for byte as written.
//
// # Generated files
//
// mcpgen_handler.go (Handler, UnimplementedHandler, Register), one
// mcpgen_<tool>_tool.go per tool (input and output types, the XxxCall handle
// with one Elicit method per declared elicitation, the runtime wiring) and
// one mcpgen_<elicitation>_elicitation.go per elicitation (the answer struct and
// its declaration), and one mcpgen_<name>_prompt.go, _resource.go or
// _template.go per prompt, resource or resource template (its arguments or
// params struct, call handle and wiring). Each starts with [Header]; [Owned] tells which files of a
// folder mcpgen may replace or remove.
package generator
