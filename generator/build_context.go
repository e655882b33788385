package generator

import "github.com/mcpgen/mcpgen/generator/internal/jsontree"

// buildContext is what the kinds' build steps share within one generation:
// the names every part of the package claims (Go identifiers, file names,
// Handler methods, test client methods, so that a collision between two
// kinds is an error naming both), the type mapper's table, and the
// elicitations the kind built first, which tools, prompts and resources
// ask for by name.
type buildContext struct {
	pkg string
	rep *reporter
	ns  *names
	// testClient is set when the package gets a typed test client.
	testClient bool

	files   map[string]place
	methods map[string]string
	client  map[string]string
	elicits map[string]*elicitIR
}

func newBuildContext(pkg string, testClient bool, rep *reporter) *buildContext {
	return &buildContext{pkg: pkg, rep: rep, testClient: testClient,
		ns:    &names{rep: rep, owners: map[string]place{}, shared: map[string]sharedDef{}},
		files: map[string]place{}, methods: map[string]string{}, client: map[string]string{}, elicits: map[string]*elicitIR{}}
}

// typeBuilder starts mapping the schemas of one input: owner says what it
// is (`tool "add"`), base is the JSON pointer of its object, prefix the Go
// name its $defs types start with.
func (bc *buildContext) typeBuilder(src *source, base, owner, prefix string, decls *[]decl) *typeBuilder {
	return &typeBuilder{ns: bc.ns, src: src, prefix: prefix, decls: decls, owner: owner, base: base,
		memo: map[*jsontree.Node]*typeRef{}, roots: map[*jsontree.Node]string{}}
}

// claimFile takes a file name of the package for at.
func (bc *buildContext) claimFile(name string, at place, hint string) bool {
	if first, ok := bc.files[name]; ok {
		bc.rep.errorf(at, hint, "file name %s collides with the one made for %s", name, first)
		return false
	}
	bc.files[name] = at
	return true
}

// identTaken says what took a package-level Go identifier already, for an
// input without a JSON place to claim it at (a skill folder).
func (bc *buildContext) identTaken(name string) (string, bool) {
	if _, owned := bc.ns.owners[name]; owned || reserved[name] {
		return name + ", a name of the package's other inputs", true
	}
	return "", false
}

// claimMethod takes a Handler method for what made it (by: a place, or a
// description where there is none), or says what took it first.
func (bc *buildContext) claimMethod(name, by string) (first string, ok bool) {
	if first, taken := bc.methods[name]; taken {
		return first, false
	}
	bc.methods[name] = by
	return "", true
}

// embeddedClient is the test client's embedded *mcptest.Client, a field no
// method may be named after.
const embeddedClient = "Client"

// claimClientMethod takes a method of the typed test client for what made
// it, and reports a collision at at with hint. Without a test client every
// claim succeeds.
func (bc *buildContext) claimClientMethod(name string, at place, hint, what string) bool {
	if !bc.testClient {
		return true
	}
	switch first, taken := bc.client[name]; {
	case name == embeddedClient:
		bc.rep.errorf(at, hint, "%s gets the test client method %s, the name of the client's embedded mcptest.Client", what, name)
	case taken:
		bc.rep.errorf(at, hint, "%s gets the test client method %s, like %s", what, name, first)
	default:
		bc.client[name] = at.String()
		return true
	}
	return false
}

// elicitations are the built elicitations that refs name, in that order;
// a name that has none was reported when loading.
func (bc *buildContext) elicitations(refs []string) []*elicitIR {
	var out []*elicitIR
	for _, r := range refs {
		if e := bc.elicits[r]; e != nil {
			out = append(out, e)
		}
	}
	return out
}
