package generator

import (
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// metaSingleUse makes a tool's 2026-07-28 requestState single-use:
// _meta["mcpgen.dev/singleUseState"]: true.
const metaSingleUse = metaPrefix + "singleUseState"

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

func loadTool(at place, rep *reporter) *toolDef {
	if at.node.Kind != jsontree.Object {
		rep.errorf(at, "each tool is a JSON object", "expected a tool object, found a %s", at.node.Kind)
		return nil
	}
	t := &toolDef{at: at}
	ok := true
	name, has := str(at, "name", true, "every tool needs a name", rep)
	if has {
		if !nameRE.MatchString(name) {
			rep.errorf(place{at.src, at.node.Get("name")}, nameRule,
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
				ok = loadElicitRefs(at, v, &t.elicitRefs, rep) && ok
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
	if !ok {
		return nil
	}
	t.definition = withResourceURIKeys(stripMeta(at.src.doc, at.node), t.ui)
	return t
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
