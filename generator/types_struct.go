package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// structOf declares the struct for an object schema.
func (b *typeBuilder) structOf(n *jsontree.Node, name string) *typeRef {
	return b.structFrom(n, []*jsontree.Node{n}, name)
}

// mergeAllOf returns the object schemas an allOf combines (n first), or nil
// when a branch is not a plain object schema.
func (b *typeBuilder) mergeAllOf(n *jsontree.Node, all []*jsontree.Node) []*jsontree.Node {
	if t := n.Get("type"); t != nil && (t.Kind != jsontree.String || t.Str != "object") {
		return nil
	}
	parts := []*jsontree.Node{n}
	for _, a := range all {
		t := a
		if r := a.Get("$ref"); r != nil && r.Kind == jsontree.String {
			t = b.resolve(r.Str)
		}
		switch {
		case t == nil || t.Kind != jsontree.Object:
			return nil
		case constraintsOnly([]*jsontree.Node{t}):
			continue
		}
		if typ := t.Get("type"); typ != nil && (typ.Kind != jsontree.String || typ.Str != "object") {
			return nil
		}
		for _, k := range []string{"$ref", "oneOf", "anyOf", "allOf", "additionalProperties"} {
			if t.Has(k) && !(k == "additionalProperties" && t.Get(k).Kind == jsontree.Bool) {
				return nil
			}
		}
		if !t.Has("properties") {
			return nil
		}
		parts = append(parts, t)
	}
	return parts
}

// structFrom declares a struct for n from the properties of parts: n alone,
// or n and the branches of its allOf, in order (the first definition of a
// property wins; required is the union).
func (b *typeBuilder) structFrom(n *jsontree.Node, parts []*jsontree.Node, name string) *typeRef {
	d := &structDecl{name: name, origin: b.origin(n), doc: docLines(n)}
	ref := &typeRef{kind: refNamed, name: name, decl: d}
	b.memo[n] = ref
	hint := `set "x-go-name" on one of the schemas`
	if n == b.root && b.rootHint != "" {
		hint = b.rootHint
	}
	b.ns.claim(name, b.at(n), hint)
	*b.decls = append(*b.decls, d)

	required := map[string]bool{}
	var members []jsontree.Member
	seen := map[string]bool{}
	for _, part := range parts {
		if req := part.Get("required"); req != nil {
			for _, r := range req.Elems {
				required[r.Str] = true
			}
		}
		if props := part.Get("properties"); props != nil {
			for _, m := range props.Members {
				if !seen[m.Key] {
					seen[m.Key] = true
					members = append(members, m)
				}
			}
		}
	}
	if len(members) > 0 {
		if ap := n.Get("additionalProperties"); ap != nil && (ap.Kind == jsontree.Object || ap.Kind == jsontree.Bool && ap.Bool) {
			b.extra = append(b.extra, ap)
		}
		if pp := n.Get("patternProperties"); pp != nil && pp.Kind == jsontree.Object && len(pp.Members) > 0 {
			b.extra = append(b.extra, pp)
		}
	}
	byGo := map[string]*jsontree.Node{}
	for _, m := range members {
		p := m.Value
		fname := fieldName(m.Key)
		if p.Kind == jsontree.Object {
			if o := p.Get(xGoFieldName); o != nil {
				if o.Kind == jsontree.String && isExportedIdent(o.Str) {
					fname = o.Str
				} else {
					b.ns.rep.errorf(b.at(o), "use an exported Go identifier", "%q must be an exported Go identifier", xGoFieldName)
				}
			}
		}
		if !validTagName(m.Key) {
			b.ns.rep.warnf(b.at(p), "rename the property", "property name %q cannot be written in a Go struct tag; the property is not represented", m.Key)
			continue
		}
		if first, dup := byGo[fname]; dup {
			b.ns.rep.errorf(b.at(p), `set "x-go-field-name" on one of the properties`,
				"Go field name %q collides with the one made for %s", fname, b.at(first))
			continue
		}
		byGo[fname] = p
		t, nullable := b.typeOf(p, name+fname)
		f := &field{goName: fname, jsonName: m.Key, typ: t, doc: docLines(p)}
		req := required[m.Key]
		def := defaultFor(b.src.doc, p, t)
		if dn := p.Get("default"); dn != nil && def == nil && !(dn.Kind == jsontree.Null && nullable) {
			what := fmt.Sprintf("does not fit the property's type (Go type %s)", t)
			if e, ok := t.decl.(*enumDecl); ok {
				what = "is not one of " + e.valueList()
			}
			b.ns.rep.warnf(b.at(dn), "fix the default or remove it", "default %s %s; it is not applied", compactJSON(b.src.doc, dn), what)
		}
		if !req && !nullable {
			f.def = def
		}
		if !req && nullable && t.kind != refRaw {
			// "Omit to keep, null to clear": the handler must tell absent,
			// null and a value apart, which a pointer cannot.
			f.typ, f.def, f.omitzero = &typeRef{kind: refOptional, elem: t}, nil, true
		} else {
			f.ptr = t.pointerable() && (nullable || (!req && f.def == nil))
			f.omitempty = !req && f.def == nil
			f.nonNil = req && !nullable && (t.kind == refSlice || t.kind == refMap)
		}
		d.fields = append(d.fields, f)
	}
	return ref
}

// validTagName mirrors encoding/json's rule for names in struct tags.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') && c < 0x80:
			return false
		case c >= 0x80 && !strconv.IsPrint(c):
			return false
		}
	}
	return true
}

// defaultFor returns a property's default when its type can hold it: a Go
// literal for scalars and enums, compact JSON for arrays, maps, objects,
// times and raw JSON.
func defaultFor(doc *jsontree.Doc, p *jsontree.Node, t *typeRef) *defaultLit {
	d := p.Get("default")
	if d == nil {
		return nil
	}
	rawDefault := func() *defaultLit {
		var buf bytes.Buffer
		_ = json.Compact(&buf, doc.Raw(d))
		return &defaultLit{raw: buf.String()}
	}
	switch t.kind {
	case refSlice:
		if d.Kind == jsontree.Array {
			return rawDefault()
		}
	case refMap:
		if d.Kind == jsontree.Object {
			return rawDefault()
		}
	case refTime:
		if d.Kind == jsontree.String {
			return rawDefault()
		}
	case refRaw:
		return rawDefault()
	case refBuiltin:
		switch {
		case t.name == "string" && d.Kind == jsontree.String:
			return &defaultLit{value: d.Str}
		case t.name == "bool" && d.Kind == jsontree.Bool:
			return &defaultLit{value: d.Bool}
		case (t.name == "int64" || t.name == "int32") && d.Kind == jsontree.Number && isInteger(d.Num):
			bits := 64
			if t.name == "int32" {
				bits = 32
			}
			v, err := strconv.ParseInt(d.Num, 10, bits)
			if err == nil {
				return &defaultLit{value: v}
			}
		case t.name == "float64" && d.Kind == jsontree.Number:
			v, err := strconv.ParseFloat(d.Num, 64)
			if err == nil {
				return &defaultLit{value: v}
			}
		}
	case refNamed:
		if _, ok := t.decl.(*choiceDecl); ok {
			return rawDefault() // its UnmarshalJSON picks the field by kind
		}
		e, ok := t.decl.(*enumDecl)
		if !ok {
			if d.Kind == jsontree.Object {
				return rawDefault() // a struct or a union
			}
			return nil
		}
		v := scalar(d)
		for _, ev := range e.values {
			if reflect.DeepEqual(ev.value, v) {
				return &defaultLit{konst: ev.constName}
			}
		}
	}
	return nil
}
