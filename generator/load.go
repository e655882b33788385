package generator

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// The _meta keys mcpgen reads from a tool. Every key with metaPrefix is
// mcpgen's own and is removed from the advertised definition.
const (
	metaPrefix       = "mcpgen.dev/"
	metaElicitations = metaPrefix + "elicitations"
	metaGoName       = metaPrefix + "go-name"
	metaSingleUse    = metaPrefix + "singleUseState"
)

// nameRE is the specification's tool name rule (2025-11-25: A-Z a-z 0-9 _ - .)
// with the conformance suite's length limit of 64. Elicitation names follow it
// too, since they become input request keys.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// toolDef is one tool as read from an input file.
type toolDef struct {
	at          place // the tool object
	name        string
	description string
	goName      string         // from _meta, or ""
	goNameAt    *jsontree.Node // where the override is, if any
	input       *jsontree.Node // inputSchema
	output      *jsontree.Node // outputSchema, or nil
	elicitRefs  []*jsontree.Node
	singleUse   bool   // _meta: its 2026-07-28 requestState is single-use
	definition  []byte // the tool JSON as written, minus mcpgen's _meta keys

	// scopes are the OAuth scopes a caller needs (scopes.go).
	scopes []string
	// ui is its MCP Apps _meta.ui, or nil (load_apps.go).
	ui *toolUI
}

// elicitDef is one elicitation file.
type elicitDef struct {
	at          place
	name        string
	goName      string // x-go-name override, or ""
	description string
	mode        string // "form" or "url"
	message     string
	schema      *jsontree.Node // requestedSchema (form mode)
}

// model is everything the inputs declare, once they are known to be valid.
type model struct {
	tools   []*toolDef   // in input order: by file path, then position
	elicits []*elicitDef // sorted by name
	byName  map[string]*elicitDef
	// declared are the names of every elicitation file, including those with
	// errors of their own, for the suggestions of a reference to a missing one.
	declared map[string]bool
	// features are the prompts, resources and templates (load_features.go).
	features []*featureDef
	// skillOptions are the skill options files (skill_options.go).
	skillOptions []*skillOptionsDef
	// pages are the URIs of every ui:// resource, including those with
	// errors of their own (load_apps.go).
	pages map[string]bool
}

// load parses and checks every input, reporting all problems at once.
func load(inputs []InputFile, rep *reporter) *model {
	m := &model{byName: map[string]*elicitDef{}, declared: map[string]bool{}}
	for _, in := range inputs {
		doc, err := jsontree.Parse(in.Data)
		if err != nil {
			se := err.(*jsontree.SyntaxError)
			line, col := lineCol(in.Data, se.Offset)
			rep.diags = append(rep.diags, Diagnostic{File: in.Path, Line: line, Col: col,
				Message: "invalid JSON: " + se.Msg, Hint: "fix the syntax; nothing was generated"})
			continue
		}
		src := &source{path: in.Path, doc: doc}
		for _, dup := range doc.Duplicates {
			rep.errorf(place{src, dup}, "remove one of them", "key appears twice in the same object")
		}
		loadDoc(src, m, rep)
	}
	sort.SliceStable(m.tools, func(i, j int) bool { return before(m.tools[i].at, m.tools[j].at) })
	sort.SliceStable(m.elicits, func(i, j int) bool { return before(m.elicits[i].at, m.elicits[j].at) })

	// Duplicate names: the first place (by file, then offset) wins, later ones are errors.
	seenTool := map[string]*toolDef{}
	var tools []*toolDef
	for _, t := range m.tools {
		if first, ok := seenTool[t.name]; ok {
			rep.errorf(place{t.at.src, t.at.node.Get("name")}, "tool names must be unique per server; rename one",
				"duplicate tool name %q, first defined at %s", t.name, first.at)
			continue
		}
		seenTool[t.name] = t
		tools = append(tools, t)
	}
	var elicits []*elicitDef
	for _, e := range m.elicits {
		if first, ok := m.byName[e.name]; ok {
			rep.errorf(place{e.at.src, e.at.node.Get("name")}, "each elicitation is defined in exactly one file; delete or rename one",
				"elicitation %q is defined twice, first at %s", e.name, first.at)
			continue
		}
		m.byName[e.name] = e
		elicits = append(elicits, e)
	}
	m.tools, m.elicits = tools, elicits
	// Tools stay in input order (file path, then position in the file): it
	// is deterministic, and it is the order the original server listed them.
	sort.SliceStable(m.elicits, func(i, j int) bool { return m.elicits[i].name < m.elicits[j].name })

	used := map[string]bool{}
	checkFeatures(m, used, rep)
	for _, t := range m.tools {
		for _, ref := range t.elicitRefs {
			used[ref.Str] = true
			switch {
			case m.byName[ref.Str] != nil:
			case m.declared[ref.Str]:
				// The elicitation's own errors are reported where it is defined.
			default:
				rep.errorf(place{t.at.src, ref}, knownElicitations(m),
					"tool %q refers to elicitation %q, which no input file defines", t.name, ref.Str)
			}
		}
	}
	for _, e := range m.elicits {
		if !used[e.name] {
			rep.warnf(place{e.at.src, e.at.node.Get("name")}, fmt.Sprintf("list it in a tool's _meta[%q], or remove the file", metaElicitations),
				"no tool asks for elicitation %q; its type is generated, but no call handle offers it", e.name)
		}
	}
	return m
}

func knownElicitations(m *model) string {
	if len(m.declared) == 0 {
		return "add an elicitation file with this name to the inputs"
	}
	names := make([]string, 0, len(m.declared))
	for n := range m.declared {
		names = append(names, n)
	}
	sort.Strings(names)
	return "add an elicitation file with this name, or use one of: " + strings.Join(names, ", ")
}

func before(a, b place) bool {
	if a.src.path != b.src.path {
		return a.src.path < b.src.path
	}
	return a.node.Start < b.node.Start
}

func lineCol(data []byte, off int) (int, int) {
	line, col := 1, 1
	for i := 0; i < off && i < len(data); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// loadDoc recognises what a file holds by its shape.
func loadDoc(src *source, m *model, rep *reporter) {
	root := src.doc.Root
	at := place{src, root}
	// A tools/list response saved whole: {"jsonrpc": "2.0", "id": ..., "result": {"tools": [...]}}.
	if root.Kind == jsontree.Object && root.Has("jsonrpc") && !root.Has("inputSchema") {
		res := root.Get("result")
		if res == nil || res.Kind != jsontree.Object || !res.Has("tools") && !isFeatureList(res) {
			rep.errorf(at, `save the response of a successful tools/list, prompts/list, resources/list or resources/templates/list, or just its "result"`,
				"the file holds a JSON-RPC message that is not a list result")
			return
		}
		root, at = res, place{src, res}
	}
	const shapes = "expected a tool, an array of tools, a tools/list result {\"tools\": [...]}, a prompt, resource or resource template (or an array or list result of them), or an elicitation {\"name\", \"description\", \"mode\", ...}"
	switch {
	case root.Kind == jsontree.Array:
		for _, el := range root.Elems {
			if !loadFeatureItem(place{src, el}, m, rep) {
				loadTool(place{src, el}, m, rep)
			}
		}
	case root.Kind != jsontree.Object:
		rep.errorf(at, shapes, "the file holds a JSON %s", root.Kind)
	case loadSkillOptions(at, m, rep): // {"skill": ...}
	case loadFeatureDoc(at, m, rep): // prompts, resources, templates
	case root.Has("tools") && !root.Has("inputSchema"):
		tools := root.Get("tools")
		if tools.Kind != jsontree.Array {
			rep.errorf(place{src, tools}, "a tools/list result holds an array of tools", "\"tools\" is a %s", tools.Kind)
			return
		}
		for _, el := range tools.Elems {
			loadTool(place{src, el}, m, rep)
		}
	case root.Has("mode") || root.Has("requestedSchema"):
		if e := loadElicitation(at, m.declared, rep); e != nil {
			m.elicits = append(m.elicits, e)
		}
	case root.Has("inputSchema") || root.Has("name"):
		loadTool(at, m, rep)
	default:
		rep.errorf(at, shapes, "cannot tell what this file holds")
	}
}

// str returns the string at key of obj, reporting a wrong type.
func str(at place, key string, required bool, hint string, rep *reporter) (string, bool) {
	n := at.node.Get(key)
	if n == nil {
		if required {
			rep.errorf(at, hint, "%q is missing", key)
		}
		return "", false
	}
	if n.Kind != jsontree.String {
		rep.errorf(place{at.src, n}, "", "%q must be a string, not a %s", key, n.Kind)
		return "", false
	}
	return n.Str, true
}

func loadTool(at place, m *model, rep *reporter) {
	if at.node.Kind != jsontree.Object {
		rep.errorf(at, "each tool is a JSON object", "expected a tool object, found a %s", at.node.Kind)
		return
	}
	t := &toolDef{at: at}
	ok := true
	name, has := str(at, "name", true, "every tool needs a name", rep)
	if has {
		if !nameRE.MatchString(name) {
			rep.errorf(place{at.src, at.node.Get("name")}, "use 1 to 64 characters from A-Z a-z 0-9 _ - .",
				"tool name %q is outside the specification's character rules", name)
			ok = false
		}
	} else {
		ok = false
	}
	t.name = name
	// The description is optional in MCP; when present it must be a string.
	desc, _ := str(at, "description", false, "", rep)
	if n := at.node.Get("description"); n != nil && n.Kind != jsontree.String {
		ok = false
	}
	t.description = desc

	t.input = at.node.Get("inputSchema")
	if t.input == nil {
		rep.errorf(at, `add "inputSchema": {"type": "object"} for a tool without arguments`, "tool %q has no inputSchema", name)
		ok = false
	} else if !checkToolSchema(place{at.src, t.input}, "inputSchema", rep) {
		ok = false
	}
	if t.output = at.node.Get("outputSchema"); t.output != nil && !checkOutputSchema(place{at.src, t.output}, rep) {
		ok = false
	}

	if meta := at.node.Get("_meta"); meta != nil {
		if meta.Kind != jsontree.Object {
			rep.errorf(place{at.src, meta}, "", "\"_meta\" must be an object")
			ok = false
		}
		for _, mem := range meta.Members {
			v := mem.Value
			switch mem.Key {
			case metaElicitations:
				if v.Kind != jsontree.Array {
					rep.errorf(place{at.src, v}, `write ["confirm_delete", ...]`, "%q must be an array of elicitation names", metaElicitations)
					ok = false
					continue
				}
				seen := map[string]bool{}
				for _, el := range v.Elems {
					if el.Kind != jsontree.String {
						rep.errorf(place{at.src, el}, "", "elicitation names are strings, not a %s", el.Kind)
						ok = false
					} else if seen[el.Str] {
						rep.errorf(place{at.src, el}, "list each elicitation once", "elicitation %q is listed twice", el.Str)
						ok = false
					} else {
						seen[el.Str] = true
						t.elicitRefs = append(t.elicitRefs, el)
					}
				}
			case metaGoName:
				if v.Kind != jsontree.String || !isExportedIdent(v.Str) {
					rep.errorf(place{at.src, v}, "use an exported Go identifier such as \"DeleteFile\"", "%q must be an exported Go identifier", metaGoName)
					ok = false
					continue
				}
				t.goName, t.goNameAt = v.Str, v
			case metaScopes:
				ok = loadScopes(at, v, &t.scopes, rep) && ok
			case metaSingleUse:
				if v.Kind != jsontree.Bool {
					rep.errorf(place{at.src, v}, "write true or false", "%q must be a boolean", metaSingleUse)
					ok = false
					continue
				}
				t.singleUse = v.Bool
			case "ui", flatResourceURI:
				// MCP Apps keys, read together below.
			default:
				if strings.HasPrefix(mem.Key, metaPrefix) {
					rep.errorf(place{at.src, v}, "mcpgen knows "+metaElicitations+", "+metaGoName+", "+metaScopes+" and "+metaSingleUse, "unknown mcpgen key %q", mem.Key)
					ok = false
				}
			}
		}
		if meta.Kind == jsontree.Object {
			ok = loadToolUI(at, meta, t, rep) && ok
		}
	}
	if ok {
		t.definition = withResourceURIKeys(stripMeta(at.src.doc, at.node), t.ui)
		m.tools = append(m.tools, t)
	}
}

// checkToolSchema checks an inputSchema or outputSchema: an object schema that
// compiles as JSON Schema (2020-12 unless $schema says otherwise). A schema
// without "type" ({} included, which some servers advertise for tools without
// arguments) is taken as an object, with a warning: it is advertised as
// written, and its Go type has only the properties it declares.
func checkToolSchema(at place, key string, rep *reporter) bool {
	if at.node.Kind != jsontree.Object {
		rep.errorf(at, `write {"type": "object", "properties": {...}}`, "a tool schema must be a JSON object, not a %s", at.node.Kind)
		return false
	}
	ok := true
	switch typ := at.node.Get("type"); {
	case typ == nil && !at.node.Has("$ref") && !composes(at.node):
		what := "an object with no declared properties"
		if at.node.Has("properties") {
			what = "an object with the properties it declares"
		}
		rep.warnf(at, `MCP asks for "type": "object"; add it to silence this warning`, "%s has no \"type\"; it is taken as %s", key, what)
	case typ == nil:
	case typ.Kind != jsontree.String || typ.Str != "object":
		rep.errorf(place{at.src, typ}, `MCP requires "type": "object" at the root of tool schemas`, "the schema's root type must be \"object\"")
		ok = false
	}
	return compileSchema(at, rep) && ok
}

// composes reports whether a schema is a $ref-free composition (allOf, oneOf,
// anyOf) whose branches give it its type.
func composes(n *jsontree.Node) bool {
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		if alts := n.Get(k); alts != nil && alts.Kind == jsontree.Array && !constraintsOnly(alts.Elems) {
			return true
		}
	}
	return false
}

func loadElicitation(at place, declared map[string]bool, rep *reporter) *elicitDef {
	root := at.node
	e := &elicitDef{at: at}
	ok := true
	for _, mem := range root.Members {
		switch mem.Key {
		case "name", "description", "mode", "message", "requestedSchema":
		case xGoName:
			if v := mem.Value; v.Kind != jsontree.String || !isExportedIdent(v.Str) {
				rep.errorf(place{at.src, v}, "use an exported Go identifier such as \"ConfirmDelete\"", "%q must be an exported Go identifier", xGoName)
				ok = false
			} else {
				e.goName = v.Str
			}
		default:
			rep.errorf(place{at.src, mem.Value}, "an elicitation file holds name, description, mode, message, (form mode) requestedSchema, and x-go-name",
				"unknown key %q in an elicitation", mem.Key)
			ok = false
		}
	}
	name, has := str(at, "name", true, "every elicitation needs a name; tools refer to it in _meta[\""+metaElicitations+"\"]", rep)
	if has && nameRE.MatchString(name) {
		declared[name] = true
	}
	if has && !nameRE.MatchString(name) {
		rep.errorf(place{at.src, root.Get("name")}, "use 1 to 64 characters from A-Z a-z 0-9 _ - .", "elicitation name %q is outside the allowed characters", name)
		ok = false
	}
	ok = ok && has
	e.name = name
	desc, has := str(at, "description", true, "say what the elicitation asks the user for", rep)
	if has && strings.TrimSpace(desc) == "" {
		rep.errorf(place{at.src, root.Get("description")}, "say what the elicitation asks the user for", "the description is empty")
		ok = false
	}
	ok = ok && has
	e.description = desc
	e.message, _ = str(at, "message", false, "", rep)
	if n := root.Get("message"); n != nil && n.Kind != jsontree.String {
		ok = false
	}
	mode, has := str(at, "mode", true, `add "mode": "form" or "mode": "url"`, rep)
	e.mode = mode
	schema := root.Get("requestedSchema")
	switch {
	case !has:
		ok = false
	case mode == "form":
		if schema == nil {
			rep.errorf(at, `add "requestedSchema": {"type": "object", "properties": {...}}`, "a form elicitation needs a requestedSchema")
			ok = false
		} else if !checkFormSchema(place{at.src, schema}, rep) {
			ok = false
		}
		e.schema = schema
	case mode == "url":
		if schema != nil {
			rep.errorf(place{at.src, schema}, "the URL is given when the tool asks; remove requestedSchema or use form mode",
				"a URL-mode elicitation has no requestedSchema")
			ok = false
		}
	default:
		rep.errorf(place{at.src, root.Get("mode")}, `use "form" or "url"`, "unknown mode %q", mode)
		ok = false
	}
	if !ok {
		return nil
	}
	return e
}
