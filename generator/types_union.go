package generator

import (
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// alternatives handles oneOf/anyOf: titled enums (every branch a const),
// nullable (T or null), and discriminated unions. ok is false when none fits.
func (b *typeBuilder) alternatives(n *jsontree.Node, key string, alts *jsontree.Node, name string) (*typeRef, bool, bool) {
	allConst := true
	constKinds := map[jsontree.Kind]bool{}
	var nonNull []*jsontree.Node
	for _, a := range alts.Elems {
		if c := a.Get("const"); c == nil {
			allConst = false
		} else if c.Kind != jsontree.Null {
			constKinds[c.Kind] = true
		}
		if t := a.Get("type"); t != nil && t.Kind == jsontree.String && t.Str == "null" && len(a.Members) == 1 {
			continue
		}
		nonNull = append(nonNull, a)
	}
	if allConst && len(constKinds) == 1 {
		var vals []*jsontree.Node
		var titles []string
		for _, a := range alts.Elems {
			vals = append(vals, a.Get("const"))
			t := a.Get("title")
			if t == nil {
				titles = append(titles, "")
			} else {
				titles = append(titles, t.Str)
			}
		}
		t, nullable := b.enum(n, vals, titles, name)
		return t, nullable, true
	}
	if len(nonNull) == 1 && len(alts.Elems) == 2 {
		t, _ := b.typeOf(nonNull[0], name)
		return t, true, true
	}
	if t, ok := b.union(n, nonNull, name); ok {
		return t, len(nonNull) < len(alts.Elems), true
	}
	if constraintsOnly(nonNull) {
		// {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]} beside
		// properties only constrains them: the caller ignores it.
		return nil, false, false
	}
	t, why, ok := b.choice(n, nonNull, name)
	if !ok {
		b.whyNot = why
	}
	return t, len(nonNull) < len(alts.Elems), ok
}

// union builds a sum type when every branch is an object that requires one
// common property holding a distinct string const (or the schema names the
// property in "discriminator": {"propertyName": ...}).
func (b *typeBuilder) union(n *jsontree.Node, alts []*jsontree.Node, name string) (*typeRef, bool) {
	targets := make([]*jsontree.Node, len(alts))
	for i, a := range alts {
		t := a
		if r := a.Get("$ref"); r != nil {
			t = b.resolve(r.Str)
		}
		if t == nil || t.Kind != jsontree.Object || t.Get("properties") == nil {
			return nil, false
		}
		targets[i] = t
	}
	// discValues are the values of prop that select branch t: a const, or
	// an enum (a branch may take several tags, another only one).
	discValues := func(t *jsontree.Node, prop string) ([]string, bool) {
		p := t.Get("properties").Get(prop)
		if p == nil {
			return nil, false
		}
		var vals []*jsontree.Node
		if c := p.Get("const"); c != nil {
			vals = []*jsontree.Node{c}
		} else if e := p.Get("enum"); e != nil && e.Kind == jsontree.Array {
			vals = e.Elems
		}
		var out []string
		for _, v := range vals {
			if v.Kind != jsontree.String {
				return nil, false
			}
			out = append(out, v.Str)
		}
		req := t.Get("required")
		if len(out) == 0 || req == nil {
			return nil, false
		}
		for _, r := range req.Elems {
			if r.Str == prop {
				return out, true
			}
		}
		return nil, false
	}
	var candidates []string
	if d := n.Get("discriminator"); d != nil && d.Get("propertyName") != nil {
		candidates = []string{d.Get("propertyName").Str}
	} else {
		for _, m := range targets[0].Get("properties").Members {
			candidates = append(candidates, m.Key)
		}
	}
	prop := ""
	var values [][]string
candidate:
	for _, c := range candidates {
		seen := map[string]bool{}
		values = values[:0]
		for _, t := range targets {
			vs, ok := discValues(t, c)
			if !ok {
				continue candidate
			}
			for _, v := range vs {
				if seen[v] {
					continue candidate
				}
				seen[v] = true
			}
			values = append(values, vs)
		}
		prop = c
		break
	}
	if prop == "" || !validTagName(prop) {
		return nil, false
	}
	if !b.ns.claim(name, b.at(n), `set "x-go-name" on one of the schemas`) {
		return rawType, true
	}
	d := &unionDecl{name: name, origin: b.origin(n), doc: docLines(n), prop: prop}
	ref := &typeRef{kind: refNamed, name: name, decl: d}
	b.memo[n] = ref
	*b.decls = append(*b.decls, d)
	byField := map[string]bool{}
	for i, a := range alts {
		fname := fieldName(strings.Join(values[i], " or "))
		if methodNames[fname] {
			fname += "Field"
		}
		if byField[fname] {
			b.ns.rep.errorf(b.at(a), `set "x-go-name" on the variant schemas`, "variant %q makes a Go field name %q used by another variant", strings.Join(values[i], ", "), fname)
			continue
		}
		byField[fname] = true
		t, _ := b.typeOf(a, name+fname)
		sd, ok := t.decl.(*structDecl)
		if !ok {
			continue
		}
		v := variant{field: fname, values: values[i], typ: t}
		for _, f := range sd.fields {
			if f.jsonName == prop && len(values[i]) == 1 {
				v.discField = f.goName
			}
		}
		d.variants = append(d.variants, v)
	}
	return ref, true
}
