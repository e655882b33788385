package generator

import (
	"fmt"
	"regexp"
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

// featureDef is one prompt, resource or resource template as read.
type featureDef struct {
	kind        featureType
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

// metaHook reads a _meta key a kind built on features knows beyond
// theirs (an MCP Apps page's "ui"); handled says whether it was one.
type metaHook func(key string, v place, f *featureDef) (handled, ok bool)

func loadFeature(kind featureType, at place, rep *reporter, hook metaHook) *featureDef {
	if at.node.Kind != jsontree.Object {
		rep.errorf(at, "each "+kind.String()+" is a JSON object", "expected a %s object, found a %s", kind, at.node.Kind)
		return nil
	}
	f := &featureDef{kind: kind, at: at}
	ok := true
	name, has := str(at, "name", true, "every "+kind.String()+" needs a name", rep)
	ok = has
	f.name = name
	if kind == kindPrompt && has && !nameRE.MatchString(name) {
		rep.errorf(place{at.src, at.node.Get("name")}, nameRule,
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
	ok = loadFeatureMeta(at, f, rep, hook) && ok
	if !ok {
		return nil
	}
	f.definition = stripMeta(at.src.doc, at.node)
	return f
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

func loadFeatureMeta(at place, f *featureDef, rep *reporter, hook metaHook) bool {
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
		if hook != nil {
			if handled, good := hook(mem.Key, vp, f); handled {
				ok = good && ok
				continue
			}
		}
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
