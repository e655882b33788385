package generator

// elicitIR is an elicitation ready to emit.
type elicitIR struct {
	name        string // the MCP name, as tools list it
	goName      string
	file        string
	mode        string   // "form" or "url"
	message     string   // what elicitation/create says: the message, or else the description
	description []string // doc lines
	// schema is the requestedSchema as elicitation/create sends it (form
	// mode): as written, without mcpgen's overrides; compact is the same,
	// compact, as the test client compares it.
	schema, compact []byte
	answer          *typeRef // form mode
	decls           []decl
}

// varName is the package variable holding the runtime's Elicitation.
func (e *elicitIR) varName() string { return lowerFirst(e.goName + "Elicitation") }

// constName is the exported constant holding the elicitation's name.
func (e *elicitIR) constName() string { return e.goName + "ElicitationName" }

// answerMethods are the test client's methods that answer a form:
// Answer (or, for URL mode, Accept), Decline and Cancel.
func (e *elicitIR) answerMethods() []string {
	if e.mode == "url" {
		return []string{"Accept" + e.goName, "Decline" + e.goName, "Cancel" + e.goName}
	}
	return []string{"Answer" + e.goName, "Decline" + e.goName, "Cancel" + e.goName}
}

// elicitPart is the elicitations of the package.
type elicitPart struct {
	elicits []*elicitIR // by name
}
