package generator

// featureIR is a prompt, resource or resource template ready to emit (an
// MCP Apps page too, which is a resource: page_build.go).
type featureIR struct {
	typ         featureType
	name        string // the MCP name
	key         string // prompt name, resource URI or URI template
	goName      string
	file        string
	description []string // doc lines
	source      string   // the input file's name, for the definition's doc comment
	definition  []byte   // as prompts/list, resources/list or resources/templates/list advertise it
	args        []argIR  // prompt arguments or template variables
	complete    []string // the arguments or variables that complete
	list        bool     // a template whose resources a Handler method lists
	cache       *cacheIR
	scopes      []string
	elicits     []*elicitIR
	// embedded is the resource's file, when it is served from one.
	embedded *embeddedFile
	mimeType string // of a resource, as declared
	// page marks an MCP Apps page; ui is its _meta.ui, compact.
	page bool
	ui   []byte
	// order is where it was declared, which is where its list shows it.
	order inputOrder
}

// argIR is a prompt argument or a template variable.
type argIR struct {
	name, goName string
	description  []string
	required     bool // prompts: required; templates: not optional
	list         bool // templates: exploded
}

// cacheIR is the cache hint of a resource's or template's reads.
type cacheIR struct {
	ttlMs   int64
	private bool
}

// embeddedFile is a resource's file as go:embed embeds it.
type embeddedFile struct {
	embed string // relative to the package's folder
	text  bool   // valid UTF-8: served as text, else as a base64 blob
	sum   string // hex SHA-256 of the contents as generated
}

// Names of what a feature declares.
func (f *featureIR) suffix() string {
	return [...]string{"Prompt", "Resource", "Template"}[f.typ]
}
func (f *featureIR) definitionName() string { return lowerFirst(f.goName + f.suffix() + "Definition") }
func (f *featureIR) funcName() string       { return lowerFirst(f.goName + f.suffix()) }
func (f *featureIR) callName() string       { return f.goName + f.suffix() + "Call" }

// argsName is the arguments struct of a prompt or the params struct of a template.
func (f *featureIR) argsName() string {
	if f.typ == kindPrompt {
		return f.goName + "PromptArgs"
	}
	return f.goName + "Params"
}

// nameConst is the exported constant naming the feature in requests: a
// prompt's name, a resource's URI, a template's URI template.
func (f *featureIR) nameConst() string {
	switch f.typ {
	case kindPrompt:
		return f.goName + "PromptName"
	case kindResource:
		return f.uriName()
	}
	return f.goName + "URITemplate"
}

// uriName is the exported constant holding a resource's URI.
func (f *featureIR) uriName() string { return f.goName + "ResourceURI" }

// templateURIName is the function that builds the URI of a template's
// resource from its params.
func (f *featureIR) templateURIName() string { return f.goName + "TemplateURI" }

// fileVar is the package variable holding an embedded file.
func (f *featureIR) fileVar() string { return lowerFirst(f.goName + "ResourceFile") }

// method is the Handler method that answers the feature.
func (f *featureIR) method() string {
	if f.typ == kindPrompt {
		return f.goName + "Prompt"
	}
	return "Read" + f.goName
}
func (f *featureIR) listMethod() string             { return "List" + f.goName }
func (f *featureIR) completeMethod(a *argIR) string { return "Complete" + f.goName + a.goName }

// hasArgs reports whether the handler method takes an arguments struct.
func (f *featureIR) hasArgs() bool { return f.typ == kindTemplate || len(f.args) > 0 }

// hasMethod reports whether a Handler method answers the feature: every one
// but a resource served from its file.
func (f *featureIR) hasMethod() bool { return f.embedded == nil }

func (f *featureIR) arg(name string) *argIR {
	for i := range f.args {
		if f.args[i].name == name {
			return &f.args[i]
		}
	}
	return nil
}

// featurePart is the prompts, resources and resource templates of the
// package.
type featurePart struct {
	features []*featureIR // in input order
}
