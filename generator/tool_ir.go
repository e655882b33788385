package generator

// toolIR is a tool ready to emit.
type toolIR struct {
	name        string // the MCP name
	goName      string
	file        string
	description []string // doc lines
	source      string   // the input file's name, for the definition's doc comment
	definition  []byte   // as tools/list advertises it
	input       *typeRef
	output      *typeRef // nil without outputSchema
	decls       []decl
	elicits     []*elicitIR
	scopes      []string
	singleUse   bool
	// objectOutput is set when the Go output is the struct of an object
	// root; wireObject when the outputSchema's root says "type": "object",
	// the runtime's test for output it sends unwrapped in every era
	// (output_schema.go).
	objectOutput, wireObject bool
	// apps is set when the tool has an MCP Apps _meta.ui; page is the ui://
	// page showing its results ("" for none), appOnly that only the page
	// may call it.
	apps    bool
	page    string
	appOnly bool
	order   inputOrder
}

// constName is the exported constant holding the tool's name.
func (t *toolIR) constName() string { return t.goName + "ToolName" }

// definitionName is the constant holding the tool's advertised definition.
func (t *toolIR) definitionName() string { return lowerFirst(t.goName + "Definition") }

// funcName is the function that wires the tool to a Handler.
func (t *toolIR) funcName() string { return lowerFirst(t.goName + "Tool") }

// callName is the tool's call handle.
func (t *toolIR) callName() string { return t.goName + "Call" }

// needsCall reports whether the tool's handle keeps the *runtime.Call: to
// ask its elicitations, or to tell whether the host renders its page.
func (t *toolIR) needsCall() bool { return len(t.elicits) > 0 || t.page != "" }

// toolPart is the tools of the package.
type toolPart struct {
	tools []*toolIR // in input order
}
