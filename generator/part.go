package generator

import "github.com/dave/jennifer/jen"

// A part is what an input kind built (input_kind.go): the IR of its inputs,
// self-contained, which writes the package's code for them. The package
// emitter (emit_package.go, emit_handler.go, emit_testclient.go) asks every
// part in the order of the kinds (kinds.go) and assembles what they give:
// no file there knows any kind.
type part interface {
	// emit adds the part's share of the package to pc. It only reads the
	// IR; the files it adds are rendered concurrently.
	emit(pc *packageCode)
}

// packageCode is what the parts give the package.
type packageCode struct {
	pkg        string // the package's name
	importPath string // its import path; "" when it gets no test client

	// files are the parts' own files.
	files []genFile
	// methods are the methods of Handler, each also answered by
	// UnimplementedHandler.
	methods []handlerMethod
	// handlerDoc are the phrases of Handler's doc comment that say what its
	// methods answer ("one per tool").
	handlerDoc []string
	// adds are the values Register adds to the server.
	adds []registration
	// steps are what Register does after adding them.
	steps []registerStep
	// calls and answers are declarations of the typed test client: calls
	// (a method per tool, prompt, resource...) first, then answers (how
	// the client answers the forms); forms are the entries of its forms
	// variable.
	calls, answers []func(f *jen.File)
	forms          []jen.Code
	// imports are the package names of the import paths the parts name.
	imports map[string]string
}

// genFile is one file of the package and the function that renders it.
type genFile struct {
	name  string
	build func() *jen.File
}

// handlerMethod is one method of Handler.
type handlerMethod struct {
	name           string
	doc            []string
	params, result []jen.Code // params named
	anon           []jen.Code // params unnamed, for UnimplementedHandler
	// what is what the method answers, for UnimplementedHandler's doc:
	// tool "add_note".
	what string
	// notImplemented is the error UnimplementedHandler returns.
	notImplemented jen.Code
	// zero is the first result UnimplementedHandler returns; nil is nil.
	zero jen.Code
	// byDefault, when set, is UnimplementedHandler's doc of a method whose
	// default is an answer, not an error (an event type's subscriptions
	// are accepted as asked): anon then names the parameters zero returns.
	byDefault string
}

// registration is one value Register adds to the server, with
// s.<add>(<value>). Register adds them in groups, one per add method in the
// order of addMethods, each group in input order: the order the lists show
// them in.
type registration struct {
	add   string   // the Server method: AddTool, AddPrompt, AddResource, AddResourceTemplate
	typ   string   // the value's runtime type: Tool, Prompt, Resource, ResourceTemplate
	what  string   // what it is, for Register's doc: tool, prompt, resource, resource template
	value jen.Code // such as addNoteTool(h)
	order inputOrder
}

// addMethods are the Server's add methods in the order Register calls them.
var addMethods = []string{"AddTool", "AddPrompt", "AddResource", "AddResourceTemplate"}

// registerStep is a statement of Register after the adds, such as serving
// skills through their extension. Steps with the same key are written
// once, where the first stands: two parts may need one extension.
type registerStep struct {
	key  string
	doc  string // what it does, for Register's doc: "serves its skills through the skills extension"
	code jen.Code
}
