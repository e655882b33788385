package generator

import "github.com/mcpgen/mcpgen/generator/internal/jsontree"

// An inputKind is one kind of input (tools, elicitations, prompts and
// resources, MCP Apps pages, skill folders): its loader, its IR and its
// emitter as one unit, registered once in kinds.go. Generate knows only
// this interface: it offers each JSON item of the inputs to the kinds,
// loads it with the one that claims it best, lets every kind finish
// (duplicates, inputs that are not JSON, references to other kinds'
// keys), builds each kind's part in registry order, and emits the parts.
// doc.go says how to add one.
type inputKind interface {
	// claim says how well a JSON item fits the kind. list is where the item
	// stands: "" for a whole file, "[]" for an element of an array, or the
	// key of the list result holding it ("tools", "resources").
	claim(item *jsontree.Node, list string) claimStrength
	// lists are the list results whose items are the kind's, such as
	// tools/list's "tools".
	lists() []listResult
	// shapes describes the kind's files for the message of a file no kind
	// claims ("a tool, an array of tools, ..."); "" leaves it out.
	shapes() string
	// load loads an item the kind claimed, reporting its problems; list is
	// where it stands, as for claim.
	load(at place, list string, lc *loadContext)
	// finish runs once every file is loaded: checks across the kind's
	// items, the inputs that are not JSON, and the references its items
	// make to other kinds' keys (loadContext).
	finish(lc *loadContext)
	// build names the kind's good items and maps their schemas to Go
	// types. What it returns holds no load model: emit reads only it.
	build(bc *buildContext) part
	// fileKinds are the last words of the names of the files it writes
	// (mcpgen_<name>_<kind>.go), which Owned recognizes.
	fileKinds() []string
}

// listResult is a key of a list result and the method that returns it.
type listResult struct{ key, method string }

// claimStrength is how well an item fits a kind: the kind with the
// strongest claim loads it, the earlier one in the registry on a tie.
type claimStrength int

const (
	noClaim claimStrength = iota
	// fallbackClaim: the kind takes what no other kind claims (a tool is
	// anything with a name).
	fallbackClaim
	// shapeClaim: a key only this kind's items have ("mode" of an
	// elicitation, "uri" of a resource), or the list the item stands in.
	shapeClaim
	// refinedClaim: a narrower shape inside another kind's (a resource
	// whose URI is ui:// is an MCP Apps page).
	refinedClaim
)

// A folderKind is a kind whose inputs include folders, not JSON files:
// skill folders. ReadPaths offers it every folder among mcpgen's inputs and
// every folder directly inside one.
type folderKind interface {
	inputKind
	// claimsFolder reports whether dir is one of its inputs.
	claimsFolder(dir string) bool
	// readFolders reads the folders it claimed into cfg, for a package
	// written to pkgDir.
	readFolders(dirs []string, pkgDir string, cfg *Config) error
}
