package generator

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// Prompts, resources and resource templates as input files. Each is
// recognised by its shape, like a tool: a Prompt object (it has
// "arguments"; write "arguments": [] for a prompt without any), a Resource
// ("uri"), a ResourceTemplate ("uriTemplate"), arrays of them, and the
// results of prompts/list, resources/list and resources/templates/list.
// The files stay valid MCP: mcpgen's own keys go in _meta.

// The _meta keys of prompts, resources and templates, besides
// metaElicitations and metaGoName.
const (
	// metaComplete lists the arguments (prompts) or template variables
	// (templates) that offer completion: ["language"].
	metaComplete = metaPrefix + "complete"
	// metaList marks a template whose resources are listed at run time by a
	// List<Name> handler method: true.
	metaList = metaPrefix + "list"
	// metaCache is the cache hint of a resource's or template's reads:
	// {"ttlMs": 300000, "scope": "private"}.
	metaCache = metaPrefix + "cache"
)

// featureKind is what a feature file declares.
type featureKind int

const (
	kindPrompt featureKind = iota
	kindResource
	kindTemplate
)

func (k featureKind) String() string {
	return [...]string{"prompt", "resource", "resource template"}[k]
}

// featureDef is one prompt, resource or resource template as read.
type featureDef struct {
	kind        featureKind
	at          place
	name        string // the MCP name
	description string
	key         string // prompt name, resource URI or URI template: unique per kind
	keyAt       *jsontree.Node
	goName      string
	goNameAt    *jsontree.Node
	elicitRefs  []*jsontree.Node
	complete    []string // argument or variable names
	list        bool     // templates: resources listed at run time
	cache       *cacheDef
	scopes      []string     // OAuth scopes the caller's token must grant
	args        []featureArg // prompt arguments or template variables
	definition  []byte
	// file serves a resource's contents from a file (resource_file.go).
	file *resourceFile
	// ui is a ui:// page's _meta.ui, compact, which resources/read sends
	// with the page (load_apps.go).
	ui []byte
}

// featureArg is a prompt argument or a template variable.
type featureArg struct {
	name        string
	goName      string
	description string
	required    bool // prompts: required; templates: not Optional
	list        bool // templates: exploded
}

// cacheDef is a _meta cache hint.
type cacheDef struct {
	ttlMs   int64
	private bool
}

// argNameRE is a prompt argument name that makes a Go identifier.
var argNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// featureList is the key of a list result that holds features of a kind.
var featureList = map[string]featureKind{"prompts": kindPrompt, "resources": kindResource, "resourceTemplates": kindTemplate}

// isFeatureList reports whether obj is a prompts/list, resources/list or
// resources/templates/list result.
func isFeatureList(obj *jsontree.Node) bool {
	if obj.Kind != jsontree.Object || obj.Has("tools") {
		return false
	}
	for k := range featureList {
		if obj.Has(k) {
			return true
		}
	}
	return false
}

// featureKindOf tells a feature object apart from a tool by its shape.
func featureKindOf(n *jsontree.Node) (featureKind, bool) {
	switch {
	case n.Kind != jsontree.Object || n.Has("inputSchema") || n.Has("mode") || n.Has("requestedSchema"):
		return 0, false
	case n.Has("uriTemplate"):
		return kindTemplate, true
	case n.Has("uri"):
		return kindResource, true
	case n.Has("arguments"):
		return kindPrompt, true
	}
	return 0, false
}

// loadFeatureDoc loads a file that holds features, reporting whether it did.
func loadFeatureDoc(at place, m *model, rep *reporter) bool {
	root := at.node
	if isFeatureList(root) {
		for _, mem := range root.Members {
			kind, ok := featureList[mem.Key]
			if !ok {
				continue
			}
			if mem.Value.Kind != jsontree.Array {
				rep.errorf(place{at.src, mem.Value}, "a list result holds an array", "%q is a %s", mem.Key, mem.Value.Kind)
				continue
			}
			for _, el := range mem.Value.Elems {
				loadFeature(kind, place{at.src, el}, m, rep)
			}
		}
		return true
	}
	return loadFeatureItem(at, m, rep)
}

// loadFeatureItem loads one feature object, reporting whether it is one.
func loadFeatureItem(at place, m *model, rep *reporter) bool {
	kind, ok := featureKindOf(at.node)
	if ok {
		loadFeature(kind, at, m, rep)
	}
	return ok
}

func loadFeature(kind featureKind, at place, m *model, rep *reporter) {
	if at.node.Kind != jsontree.Object {
		rep.errorf(at, "each "+kind.String()+" is a JSON object", "expected a %s object, found a %s", kind, at.node.Kind)
		return
	}
	f := &featureDef{kind: kind, at: at}
	ok := true
	name, has := str(at, "name", true, "every "+kind.String()+" needs a name", rep)
	ok = has
	f.name = name
	if kind == kindPrompt && has && !nameRE.MatchString(name) {
		rep.errorf(place{at.src, at.node.Get("name")}, "use 1 to 64 characters from A-Z a-z 0-9 _ - .",
			"prompt name %q is outside the allowed characters", name)
		ok = false
	}
	f.description, _ = str(at, "description", false, "", rep)
	if n := at.node.Get("description"); n != nil && n.Kind != jsontree.String {
		ok = false
	}
	switch kind {
	case kindPrompt:
		f.key, f.keyAt = name, at.node.Get("name")
		ok = loadPromptArgs(at, f, rep) && ok
	case kindResource:
		uri, has := str(at, "uri", true, "", rep)
		f.key, f.keyAt = uri, at.node.Get("uri")
		if isAppURI(uri) {
			m.declarePage(uri)
		}
		if has && uri == "" {
			rep.errorf(place{at.src, f.keyAt}, "write the resource's URI, such as \"file:///readme.md\"", "the uri is empty")
			ok = false
		}
		ok = has && ok
	case kindTemplate:
		tmpl, has := str(at, "uriTemplate", true, "", rep)
		f.key, f.keyAt = tmpl, at.node.Get("uriTemplate")
		ok = has && loadTemplateVars(place{at.src, f.keyAt}, f, rep) && ok
	}
	ok = loadFeatureMeta(at, f, rep) && ok
	if ok {
		f.definition = stripMeta(at.src.doc, at.node)
		m.features = append(m.features, f)
	}
}

func loadPromptArgs(at place, f *featureDef, rep *reporter) bool {
	args := at.node.Get("arguments")
	if args == nil {
		return true
	}
	if args.Kind != jsontree.Array {
		rep.errorf(place{at.src, args}, `write [{"name": "language", "required": true}, ...]`, "\"arguments\" must be an array, not a %s", args.Kind)
		return false
	}
	ok := true
	seen := map[string]string{} // Go name -> argument name
	for _, el := range args.Elems {
		ap := place{at.src, el}
		if el.Kind != jsontree.Object {
			rep.errorf(ap, `write {"name": "language", "required": true}`, "a prompt argument is an object, not a %s", el.Kind)
			ok = false
			continue
		}
		name, has := str(ap, "name", true, "every prompt argument needs a name", rep)
		if !has {
			ok = false
			continue
		}
		nameAt := place{at.src, el.Get("name")}
		a := featureArg{name: name, goName: fieldName(name)}
		a.description, _ = str(ap, "description", false, "", rep)
		if req := el.Get("required"); req != nil {
			if req.Kind != jsontree.Bool {
				rep.errorf(place{at.src, req}, "write true or false", "\"required\" must be a boolean")
				ok = false
			}
			a.required = req.Bool
		}
		switch first, dup := seen[a.goName]; {
		case !argNameRE.MatchString(name):
			rep.errorf(nameAt, "start with a letter or _, then use letters, digits, _ - .",
				"argument name %q does not make a Go identifier", name)
			ok = false
		case dup && first == name:
			rep.errorf(nameAt, "list each argument once", "argument %q is listed twice", name)
			ok = false
		case dup:
			rep.errorf(nameAt, "rename one of them", "argument %q gets the Go name %s, like argument %q", name, a.goName, first)
			ok = false
		default:
			seen[a.goName] = name
			f.args = append(f.args, a)
		}
	}
	return ok
}

// loadTemplateVars checks a URI template with the rules resources/read
// matches by (the runtime's parser) and reads its variables.
func loadTemplateVars(at place, f *featureDef, rep *reporter) bool {
	vars, err := resourceuri.Variables(f.key)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("URI template %q: ", f.key))
		rep.errorf(at, "use {var}, {+var}, {#var}, {/var}, {.var}, {var*} and, at the end, {?a,b} (RFC 6570 without prefixes)",
			"bad URI template: %s", msg)
		return false
	}
	ok := true
	seen := map[string]string{}
	for _, v := range vars {
		a := featureArg{name: v.Name, required: !v.Optional, list: v.List}
		if strings.ContainsAny(v.Name, "%.") || !argNameRE.MatchString(v.Name) {
			rep.errorf(at, "use letters, digits and _ in variable names", "template variable %q does not make a Go identifier", v.Name)
			ok = false
			continue
		}
		a.goName = fieldName(v.Name)
		if first, dup := seen[a.goName]; dup {
			if first == v.Name {
				rep.errorf(at, "use each variable once, or give the second another name", "template variable %q appears twice", v.Name)
			} else {
				rep.errorf(at, "rename one of them", "template variable %q gets the Go name %s, like variable %q", v.Name, a.goName, first)
			}
			ok = false
			continue
		}
		seen[a.goName] = v.Name
		f.args = append(f.args, a)
	}
	return ok
}

func loadFeatureMeta(at place, f *featureDef, rep *reporter) bool {
	meta := at.node.Get("_meta")
	if meta == nil {
		return true
	}
	if meta.Kind != jsontree.Object {
		rep.errorf(place{at.src, meta}, "", "\"_meta\" must be an object")
		return false
	}
	ok := true
	known := metaElicitations + ", " + metaGoName + ", " + metaScopes
	if f.kind != kindResource {
		known += ", " + metaComplete
	}
	if f.kind != kindPrompt {
		known += ", " + metaCache
	}
	if f.kind == kindTemplate {
		known += ", " + metaList
	}
	if f.kind == kindResource {
		known += ", " + metaFile
	}
	for _, mem := range meta.Members {
		v := mem.Value
		vp := place{at.src, v}
		switch {
		case mem.Key == metaElicitations:
			ok = loadElicitRefs(at, v, &f.elicitRefs, rep) && ok
		case mem.Key == metaGoName:
			if v.Kind != jsontree.String || !isExportedIdent(v.Str) {
				rep.errorf(vp, "use an exported Go identifier such as \"CodeReview\"", "%q must be an exported Go identifier", metaGoName)
				ok = false
				continue
			}
			f.goName, f.goNameAt = v.Str, v
		case mem.Key == metaScopes:
			ok = loadScopes(at, v, &f.scopes, rep) && ok
		case mem.Key == metaComplete && f.kind != kindResource:
			ok = loadComplete(vp, f, rep) && ok
		case mem.Key == metaList && f.kind == kindTemplate:
			if v.Kind != jsontree.Bool {
				rep.errorf(vp, "write true or false", "%q must be a boolean", metaList)
				ok = false
				continue
			}
			f.list = v.Bool
		case mem.Key == metaFile && f.kind == kindResource:
			ok = loadFileRef(vp, f, rep) && ok
		case mem.Key == "ui" && f.kind == kindResource && isAppURI(f.key):
			ok = loadResourceUI(vp, f, rep) && ok
		case mem.Key == metaCache && f.kind != kindPrompt:
			c, good := loadCache(vp, rep)
			f.cache, ok = c, good && ok
		case strings.HasPrefix(mem.Key, metaPrefix):
			rep.errorf(vp, "on a "+f.kind.String()+" mcpgen knows "+known, "unknown mcpgen key %q", mem.Key)
			ok = false
		}
	}
	return ok
}

// loadElicitRefs reads a _meta elicitations array.
func loadElicitRefs(at place, v *jsontree.Node, refs *[]*jsontree.Node, rep *reporter) bool {
	if v.Kind != jsontree.Array {
		rep.errorf(place{at.src, v}, `write ["confirm_delete", ...]`, "%q must be an array of elicitation names", metaElicitations)
		return false
	}
	ok := true
	seen := map[string]bool{}
	for _, el := range v.Elems {
		switch {
		case el.Kind != jsontree.String:
			rep.errorf(place{at.src, el}, "", "elicitation names are strings, not a %s", el.Kind)
			ok = false
		case seen[el.Str]:
			rep.errorf(place{at.src, el}, "list each elicitation once", "elicitation %q is listed twice", el.Str)
			ok = false
		default:
			seen[el.Str] = true
			*refs = append(*refs, el)
		}
	}
	return ok
}

func loadComplete(at place, f *featureDef, rep *reporter) bool {
	what := "argument"
	if f.kind == kindTemplate {
		what = "template variable"
	}
	if at.node.Kind != jsontree.Array {
		rep.errorf(at, `write ["language", ...]`, "%q must be an array of %s names", metaComplete, what)
		return false
	}
	ok := true
	seen := map[string]bool{}
	for _, el := range at.node.Elems {
		ep := place{at.src, el}
		if el.Kind != jsontree.String {
			rep.errorf(ep, "", "%s names are strings, not a %s", what, el.Kind)
			ok = false
			continue
		}
		found := false
		var names []string
		for _, a := range f.args {
			found = found || a.name == el.Str
			names = append(names, a.name)
		}
		switch {
		case seen[el.Str]:
			rep.errorf(ep, "list each "+what+" once", "%s %q is listed twice", what, el.Str)
			ok = false
		case !found:
			hint := "this " + f.kind.String() + " has none"
			if len(names) > 0 {
				hint = "use one of: " + strings.Join(names, ", ")
			}
			rep.errorf(ep, hint, "%q offers completion for %s %q, which it does not have", f.name, what, el.Str)
			ok = false
		default:
			seen[el.Str] = true
			f.complete = append(f.complete, el.Str)
		}
	}
	return ok
}

func loadCache(at place, rep *reporter) (*cacheDef, bool) {
	const hint = `write {"ttlMs": 300000, "scope": "private"}`
	if at.node.Kind != jsontree.Object {
		rep.errorf(at, hint, "%q must be an object", metaCache)
		return nil, false
	}
	c := &cacheDef{private: true}
	ok := true
	for _, mem := range at.node.Members {
		v := mem.Value
		switch mem.Key {
		case "ttlMs":
			n, isInt := jsonInt(v)
			if !isInt || n < 0 {
				rep.errorf(place{at.src, v}, hint, "\"ttlMs\" must be a whole number of milliseconds, 0 or more")
				ok = false
			}
			c.ttlMs = n
		case "scope":
			if v.Kind != jsontree.String || (v.Str != "public" && v.Str != "private") {
				rep.errorf(place{at.src, v}, hint, "\"scope\" must be \"public\" or \"private\"")
				ok = false
			}
			c.private = v.Str != "public"
		default:
			rep.errorf(place{at.src, v}, hint, "unknown key %q in a cache hint", mem.Key)
			ok = false
		}
	}
	return c, ok
}

// checkFeatures reports duplicate prompt names, resource URIs and URI
// templates (the first place wins) and references to missing elicitations,
// and marks the elicitations features use.
func checkFeatures(m *model, used map[string]bool, rep *reporter) {
	sort.SliceStable(m.features, func(i, j int) bool { return before(m.features[i].at, m.features[j].at) })
	seen := map[featureKind]map[string]*featureDef{kindPrompt: {}, kindResource: {}, kindTemplate: {}}
	what := map[featureKind]string{kindPrompt: "prompt name", kindResource: "resource URI", kindTemplate: "URI template"}
	var kept []*featureDef
	for _, f := range m.features {
		if first, ok := seen[f.kind][f.key]; ok {
			rep.errorf(place{f.at.src, f.keyAt}, what[f.kind]+"s must be unique per server; change one",
				"duplicate %s %q, first defined at %s", what[f.kind], f.key, first.at)
			continue
		}
		seen[f.kind][f.key] = f
		kept = append(kept, f)
		for _, ref := range f.elicitRefs {
			used[ref.Str] = true
			if m.byName[ref.Str] == nil && !m.declared[ref.Str] {
				rep.errorf(place{f.at.src, ref}, knownElicitations(m),
					"%s %q refers to elicitation %q, which no input file defines", f.kind, f.name, ref.Str)
			}
		}
	}
	m.features = kept
}

// jsonInt reads a whole JSON number that fits an int64.
func jsonInt(n *jsontree.Node) (int64, bool) {
	if n.Kind != jsontree.Number || !isInteger(n.Num) || !fitsInt64(n.Num) {
		return 0, false
	}
	var v int64
	_, err := fmt.Sscan(n.Num, &v)
	return v, err == nil
}
