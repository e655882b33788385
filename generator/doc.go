// Package generator turns MCP definitions (tools, elicitation forms,
// prompts, resources, resource templates, MCP Apps pages, skill folders,
// event types)
// into typed Go. [Generate] is a pure function from a [Config] to the
// package's files as a map of name to bytes; the CLI, --check and the
// golden tests all use it, and [ReadPaths] reads what mcpgen generate is
// given into a Config.
//
// # The pipeline
//
// The flow is one way: load -> IR -> emit.
//
//   - Load: each JSON input file is parsed once and every item in it (the
//     whole file, each element of an array, each item of a list result such
//     as {"tools": [...]}) is offered to the input kinds; the kind with the
//     strongest claim (input_kind.go) loads it into its load model, checking
//     it and reporting every problem. Inputs that are not JSON (skill
//     folders) reach their kind through the Config. Then each kind finishes
//     (duplicates, folders, the references its items make to other kinds'
//     keys, such as a tool naming an elicitation or a page), and the
//     loadContext reports references nothing declares.
//   - Build: each kind, in the order of the registry, names its good items
//     (claiming Go identifiers, file names, Handler and test client methods
//     in a buildContext, so that a collision between two kinds is one error
//     naming both) and maps their schemas to Go types. What it returns is
//     its part: IR that holds no load model.
//   - Emit: each part adds its share of the package to a packageCode (its
//     own files, Handler's methods, what Register adds and does, the test
//     client's methods and forms, the phrases of Handler's doc), and the
//     package emitter writes mcpgen_handler.go and the test client from
//     it. Emit files read only the IR; no emit file builds IR.
//
// layering_test.go holds the files to that flow: it maps each file to its
// stage and fails when a file names a declaration of a stage its own may
// not use, or when the file graph (exact, from go/types) has a cycle
// longer than 6 files or one holding a load and an emit file.
//
// # Files by stage
//
//   - pipeline: generate.go (Generate, Owned), kinds.go (the registry of
//     input kinds), dispatch.go (items of a file to the kinds),
//     read_paths.go (ReadPaths), doc.go.
//   - build: input_kind.go (the inputKind interface), build_context.go,
//     the schema-to-type mapper types.go, types_struct.go, types_enum.go,
//     types_choice.go, types_union.go, and each kind's build step:
//     elicit_build.go, tool_build.go, feature_build.go, page_build.go,
//     skill_build.go, event_build.go.
//   - load: load_context.go, schema_check.go, schema_satisfiable.go, meta_strip.go, scopes.go,
//     output_schema.go, and each kind's loader: elicit_load.go,
//     elicit_subset.go, tool_load.go, tool_ui_load.go, feature_load.go,
//     resource_file.go, page_load.go, skill_input.go, skill_load.go,
//     skill_frontmatter.go, skill_mime.go, skill_options.go, event_load.go.
//   - ir: ir.go (Go types), and each kind's IR: elicit_ir.go, tool_ir.go,
//     feature_ir.go, page_ir.go, skill_ir.go, event_ir.go.
//   - emit: emit_file.go, emit_types.go, emit_handles.go (call handles),
//     the package emitter emit_package.go, emit_handler.go,
//     emit_testclient.go, and each kind's emitter: elicit_emit.go,
//     elicit_url_emit.go, tool_emit.go, feature_emit.go,
//     template_uri_emit.go, page_emit.go, skill_emit.go, event_emit.go.
//   - seam: part.go (the part interface and packageCode).
//   - shared: diag.go, inputs.go, limits.go (Limits), names.go, doc_comments.go,
//     json_values.go, meta_keys.go, mcp_apps.go, feature_type.go.
//
// # Adding an input kind
//
// A kind is a unit of its own files, registered in one place; adding one
// edits neither Generate, the package emitter nor Register. For event
// types (JSON files with "inputSchema" and "payloadSchema"), say:
//
//  1. event_load.go: the load model (eventDef) and loadEvent, which checks
//     one item and reports its problems located (place, reporter).
//  2. event_ir.go: eventIR, holding everything emit needs (names, types,
//     definition bytes), never a load model pointer; and eventPart.
//  3. event_build.go: eventKind, implementing inputKind: claim (a
//     shapeClaim for objects with "payloadSchema"; lists, if a list result
//     holds them), load, finish (duplicates; references through the
//     loadContext), build (claim names in the buildContext, map the
//     schemas with bc.typeBuilder, return the eventPart), fileKinds
//     ("event", so that Owned knows mcpgen_<name>_event.go) and shapes.
//  4. event_emit.go: eventPart.emit, adding to the packageCode its files
//     (typed subscription arguments, payloads, Emit<Name> functions), its
//     Handler methods (with what UnimplementedHandler answers), what
//     Register adds or does (a registerStep with a key, so that it runs
//     once however many parts need it), the test client's methods and a
//     phrase of Handler's doc.
//  5. kinds.go: one line, in the order its part should appear in.
//  6. layering_test.go's stages (and this map): the four files.
//
// A kind whose inputs are folders also implements folderKind, and
// ReadPaths hands it the folders it claims.
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
// One file per input, each starting with [Header] ([Owned] tells which
// files of a folder mcpgen may replace or remove):
//
//   - mcpgen_<tool>_tool.go: the name constant (AddNoteToolName, what
//     tools/call names and an interceptor sees as IncomingRequest.Name),
//     the definition as tools/list advertises it (a raw string literal when
//     nothing in it needs escaping), the input and output types, the
//     AddNoteCall handle (runtime.ToolCall plus one Elicit method per
//     declared elicitation) and the wiring, one call of
//     runtime.NewStructuredTool or NewContentTool.
//   - mcpgen_<elicitation>_elicitation.go: its name constant
//     (ConfirmDeleteElicitationName), the answer struct of a form, and the
//     runtime.Elicitation the handles ask with.
//   - mcpgen_<name>_prompt.go, _resource.go or _template.go per prompt,
//     resource, resource template or MCP Apps page: the name constant
//     (SummarizeNotePromptName, the resource's NotesResourceURI, the
//     template's NoteURITemplate), the arguments or params struct, the
//     call handle and the wiring.
//   - mcpgen_<skill>_skill.go per skill folder: its embedded files and the
//     skills.Skill that Register passes to the skills extension.
//   - mcpgen_handler.go: Handler (a method for each tool, prompt, resource,
//     template, completion, listing, page and dynamic skill file),
//     UnimplementedHandler, whose errors name the constants, and Register,
//     which adds every tool, prompt, resource and template in input order
//     and then runs the steps the parts ask for (serving skills, declaring
//     MCP Apps).
//   - <pkg>test/mcpgen_client.go, with Config.ImportPath: the typed test
//     client, a method per tool (and <Tool>WithContent, which returns the
//     content blocks beside a tool's typed output), prompt, resource,
//     template and completion, typed answers to the forms, and Run, which
//     runs a test in every protocol era.
//
// A tool with an outputSchema returns its typed output; it goes out as
// structuredContent and, by default, as a JSON text block too. A handler
// that adds blocks of its own through its handle (AddContent: text,
// images, audio, resource links, embedded resources, with annotations)
// chooses the content instead, and gets the JSON block among them only
// when it asks with AddOutputJSON; the blocks it added before failing stay
// in the isError result. A struct with required arrays or maps has a
// MarshalJSON that sends a nil one as [] or {}, so that outputs, answers to
// forms and the test client's arguments pass the schema; a nil root array
// or map output goes out empty too (runtime.NewStructuredTool).
package generator
