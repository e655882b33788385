package generator

import (
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// A choice is a oneOf/anyOf (or a "type" array) without a discriminator whose
// branches a decoder still tells apart: by the JSON kind of the value
// (string | string[], boolean | string, an object or a string), and, among
// object branches, by a key that only one of them requires. Branches of one
// scalar kind merge first: two string branches that differ only in their
// constraints are one string, string consts are one enum. What is left
// ambiguous (two array branches, object branches no required key tells
// apart) stays json.RawMessage.

// choiceKinds are the JSON kinds in the order a choice lists its fields.
var choiceKinds = []string{"string", "number", "boolean", "array", "object"}

// option is one branch of a choice, or the merged branches of one kind.
type option struct {
	nodes   []*jsontree.Node // the branch schemas as written
	targets []*jsontree.Node // the same, with a $ref resolved
	kind    string           // one of choiceKinds
	integer bool             // number branches that are all integers
	key     string           // object branches: the key only this one requires
	field   string
}

// branchKind is the JSON kind a schema admits: one of choiceKinds
// ("integer" counts as "number", with integer set), or "" when it does not
// say or admits several.
func branchKind(n *jsontree.Node) (kind string, integer bool) {
	if n == nil || n.Kind != jsontree.Object {
		return "", false
	}
	valueKind := func(v *jsontree.Node) string {
		switch v.Kind {
		case jsontree.String:
			return "string"
		case jsontree.Number:
			integer = isInteger(v.Num)
			return "number"
		case jsontree.Bool:
			return "boolean"
		case jsontree.Array:
			return "array"
		case jsontree.Object:
			return "object"
		}
		return ""
	}
	if t := n.Get("type"); t != nil {
		if t.Kind != jsontree.String {
			return "", false
		}
		switch t.Str {
		case "integer":
			return "number", true
		case "string", "number", "boolean", "array", "object":
			return t.Str, false
		}
		return "", false
	}
	if c := n.Get("const"); c != nil {
		return valueKind(c), integer
	}
	if e := n.Get("enum"); e != nil && e.Kind == jsontree.Array && len(e.Elems) > 0 {
		kind, allInt := "", true
		for _, v := range e.Elems {
			k := valueKind(v)
			if kind != "" && k != kind {
				return "", false
			}
			kind, allInt = k, allInt && integer
		}
		return kind, kind == "number" && allInt
	}
	switch {
	case n.Has("properties") || n.Has("additionalProperties") || n.Has("required"):
		return "object", false
	case n.Has("items") || n.Has("prefixItems"):
		return "array", false
	}
	return "", false
}

// composedKind is the kind of a schema that only composes others (a $ref,
// or a oneOf/anyOf whose branches all have one kind), resolving references
// up to a small depth; "" when it cannot tell.
func (b *typeBuilder) composedKind(n *jsontree.Node, depth int) (string, bool) {
	if kind, integer := branchKind(n); kind != "" || depth > 8 || n == nil || n.Kind != jsontree.Object {
		return kind, integer
	}
	if r := n.Get("$ref"); r != nil && r.Kind == jsontree.String {
		return b.composedKind(b.resolve(r.Str), depth+1)
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		alts := n.Get(k)
		if alts == nil || alts.Kind != jsontree.Array || len(alts.Elems) == 0 {
			continue
		}
		kind, integer := "", true
		for _, a := range alts.Elems {
			ak, ai := b.composedKind(a, depth+1)
			if ak == "" || kind != "" && ak != kind {
				return "", false
			}
			kind, integer = ak, integer && ai
		}
		return kind, kind == "number" && integer
	}
	return "", false
}

// choice maps the non-null branches of a oneOf/anyOf to a sum type decoded
// by kind and required key. ok is false when the branches cannot be told
// apart; why says how.
func (b *typeBuilder) choice(n *jsontree.Node, branches []*jsontree.Node, name string) (t *typeRef, why string, ok bool) {
	byKind := map[string]*option{}
	var objects []*option
	for _, br := range branches {
		target := br
		if r := br.Get("$ref"); r != nil && r.Kind == jsontree.String {
			if target = b.resolve(r.Str); target == nil {
				return nil, fmt.Sprintf("reference %q is not resolved", r.Str), false
			}
		}
		kind, integer := b.composedKind(target, 0)
		if kind == "" {
			return nil, "a branch does not say which kind of JSON value it is", false
		}
		if kind == "object" {
			objects = append(objects, &option{nodes: []*jsontree.Node{br}, targets: []*jsontree.Node{target}, kind: kind})
			continue
		}
		o := byKind[kind]
		if o == nil {
			o = &option{kind: kind, integer: true}
			byKind[kind] = o
		}
		o.nodes, o.targets = append(o.nodes, br), append(o.targets, target)
		o.integer = o.integer && integer
	}
	if a := byKind["array"]; a != nil && len(a.nodes) > 1 {
		return nil, "two array branches cannot be told apart by the kind of the value", false
	}
	if len(objects) > 1 {
		if why, ok := objectKeys(objects); !ok {
			return nil, why, false
		}
	}
	var opts []*option
	for _, k := range choiceKinds {
		if o := byKind[k]; o != nil {
			opts = append(opts, o)
		}
		if k == "object" {
			opts = append(opts, objects...)
		}
	}
	fields := map[string]bool{}
	for _, o := range opts {
		switch {
		case o.kind == "number" && o.integer:
			o.field = "Integer"
		case o.kind != "object":
			o.field = goName(o.kind)
		case o.key == "":
			o.field = "Object"
		default:
			o.field = fieldName(o.key)
			if methodNames[o.field] {
				o.field += "Field"
			}
			if r := o.nodes[0].Get("$ref"); r != nil && r.Kind == jsontree.String {
				toks := strings.Split(r.Str, "/")
				if f := joinWords(jsontree.Unescape(toks[len(toks)-1])); isExportedIdent(f) {
					o.field = f
				}
			}
		}
		if fields[o.field] {
			return nil, fmt.Sprintf("two branches make the Go field name %q", o.field), false
		}
		fields[o.field] = true
	}
	if len(opts) == 1 {
		return b.optionType(n, opts[0], name), "", true
	}
	if !b.ns.claim(name, b.at(n), `set "x-go-name" on one of the schemas`) {
		return rawType, "", true
	}
	d := &choiceDecl{name: name, origin: b.origin(n), doc: docLines(n)}
	ref := &typeRef{kind: refNamed, name: name, decl: d}
	b.memo[n] = ref
	*b.decls = append(*b.decls, d)
	for _, o := range opts {
		c := choiceField{field: o.field, kind: o.kind, key: o.key, typ: b.optionType(n, o, name+o.field)}
		if len(o.nodes) == 1 {
			c.doc = docLines(o.nodes[0])
		}
		d.fields = append(d.fields, c)
	}
	return ref, "", true
}

// objectKeys gives every object branch but at most one a key that it
// requires and no other object branch declares; the branch without one
// takes every other object. It fails when that is not possible.
func objectKeys(objects []*option) (string, bool) {
	declares := func(o *option, key string) bool {
		t := o.targets[0]
		if p := t.Get("properties"); p != nil && p.Get(key) != nil {
			return true
		}
		if req := t.Get("required"); req != nil {
			for _, r := range req.Elems {
				if r.Str == key {
					return true
				}
			}
		}
		return false
	}
	rest := 0
	for _, o := range objects {
		if req := o.targets[0].Get("required"); req != nil {
		key:
			for _, r := range req.Elems {
				for _, other := range objects {
					if other != o && declares(other, r.Str) {
						continue key
					}
				}
				if r.Kind == jsontree.String && validTagName(r.Str) {
					o.key = r.Str
					break
				}
			}
		}
		if o.key == "" {
			rest++
		}
	}
	if rest > 1 {
		return "object branches that no required key tells apart cannot be represented as a Go type", false
	}
	return "", true
}

// optionType is the Go type of one option: the branch's own type, or for
// merged scalar branches a string enum (when every branch lists its values)
// or the plain scalar (the runtime validates the rest).
func (b *typeBuilder) optionType(n *jsontree.Node, o *option, name string) *typeRef {
	if len(o.nodes) == 1 {
		t, _ := b.typeOf(o.nodes[0], name)
		return t
	}
	switch o.kind {
	case "string":
		var vals []*jsontree.Node
		var titles []string
		for _, t := range o.targets {
			if c := t.Get("const"); c != nil {
				vals = append(vals, c)
				titles = append(titles, title(t))
				continue
			}
			e := t.Get("enum")
			if e == nil || e.Kind != jsontree.Array {
				return builtin("string")
			}
			for _, v := range e.Elems {
				vals = append(vals, v)
				titles = append(titles, "")
			}
		}
		if hasTitles(titles) {
			t, _ := b.enum(o.nodes[0], vals, titles, name)
			return t
		}
		t, _ := b.enum(o.nodes[0], vals, nil, name)
		return t
	case "number":
		if o.integer {
			return builtin("int64")
		}
		return builtin("float64")
	case "boolean":
		return builtin("bool")
	}
	return rawType
}

func title(n *jsontree.Node) string {
	if t := n.Get("title"); t != nil && t.Kind == jsontree.String {
		return t.Str
	}
	return ""
}

func hasTitles(titles []string) bool {
	for _, t := range titles {
		if t != "" {
			return true
		}
	}
	return false
}

// choiceOfTypes maps a schema whose "type" lists several kinds (["boolean",
// "string"]) to a choice over those kinds.
func (b *typeBuilder) choiceOfTypes(n *jsontree.Node, kinds []string, name string) (*typeRef, bool) {
	has := map[string]bool{}
	integerOnly := true
	for _, k := range kinds {
		switch k {
		case "integer":
			has["number"] = true
		case "number":
			has["number"], integerOnly = true, false
		case "string", "boolean", "array", "object":
			has[k] = true
		default:
			return nil, false
		}
	}
	if !b.ns.claim(name, b.at(n), `set "x-go-name" on the schema`) {
		return rawType, true
	}
	d := &choiceDecl{name: name, origin: b.origin(n), doc: docLines(n)}
	ref := &typeRef{kind: refNamed, name: name, decl: d}
	b.memo[n] = ref
	*b.decls = append(*b.decls, d)
	for _, k := range choiceKinds {
		if !has[k] {
			continue
		}
		c := choiceField{field: goName(k), kind: k}
		switch k {
		case "number":
			c.typ = builtin("float64")
			if integerOnly {
				c.field, c.typ = "Integer", builtin("int64")
			}
		default:
			c.typ, _ = b.ofType(n, k, name+c.field, false)
		}
		d.fields = append(d.fields, c)
	}
	return ref, true
}
