package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
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
			switch {
			case !b.output:
				b.ns.rep.errorf(b.at(p), "rename the property", "property name %q cannot be written in a Go struct tag: the handler would never see the argument", m.Key)
			case required[m.Key]:
				b.ns.rep.warnf(b.at(p), "rename the property", "property name %q cannot be written in a Go struct tag, and the property is required: no output of the handler can hold it, so every output fails the schema", m.Key)
			default:
				b.ns.rep.warnf(b.at(p), "rename the property", "property name %q cannot be written in a Go struct tag; the property is not represented", m.Key)
			}
			continue
		}
		if methodNames[fname] {
			if p.Get(xGoFieldName) != nil {
				b.ns.rep.errorf(b.at(p.Get(xGoFieldName)), "choose another name", "Go field name %q is the name of a method the type may have", fname)
				continue
			}
			fname += "Field"
		}
		if first, dup := byGo[fname]; dup {
			b.ns.rep.errorf(b.at(p), `set "x-go-field-name" on one of the properties`,
				"Go field name %q collides with the one made for %s", fname, b.at(first))
			continue
		}
		byGo[fname] = p
		t, nullable := b.typeOf(p, name+fname)
		f := &field{goName: fname, jsonName: m.Key, typ: t, doc: docLines(p)}
		if b.fieldAt == nil {
			b.fieldAt, b.declRoot = map[*field]*jsontree.Node{}, map[*structDecl]*jsontree.Node{}
		}
		b.fieldAt[f], b.declRoot[d] = p, b.root
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

// breakCycles finds the structs of decls that hold each other by value,
// which Go refuses ("invalid recursive type"), and makes those fields
// pointers. An optional property (one with a default, or a nullable one)
// on such a cycle becomes a pointer and loses its default; a cycle of
// required, non-nullable properties only has no finite JSON value, so no
// call could satisfy the schema: an error in an input schema (warnInputs
// false), a warning in an output schema, where the fields become pointers
// so that the package still builds.
func (b *typeBuilder) breakCycles(decls []decl, inputRoot *jsontree.Node) {
	edges := func(requiredOnly bool) map[*structDecl][]*field {
		g := map[*structDecl][]*field{}
		for _, dc := range decls {
			d, ok := dc.(*structDecl)
			if !ok {
				continue
			}
			for _, f := range d.fields {
				if target := byValueStruct(f); target != nil && (!requiredOnly || f.required()) {
					g[d] = append(g[d], f)
				}
			}
		}
		return g
	}
	for _, requiredOnly := range []bool{false, true} {
		g := edges(requiredOnly)
		for _, comp := range structCycles(g) {
			in := map[*structDecl]bool{}
			for _, d := range comp {
				in[d] = true
			}
			for _, d := range comp {
				for _, f := range g[d] {
					if !in[byValueStruct(f)] || requiredOnly != f.required() {
						continue
					}
					if requiredOnly {
						at := b.at(b.fieldAt[f])
						const msg = "property %q is required and refers back to its own type (%s) through required properties only, so no finite JSON value satisfies the schema"
						if b.declRoot[d] == inputRoot {
							b.ns.rep.errorf(at, "make one of the properties on the cycle optional or nullable", msg, f.jsonName, d.name)
						} else {
							b.ns.rep.warnf(at, "make one of the properties on the cycle optional or nullable; the field is a pointer", msg, f.jsonName, d.name)
						}
					} else if f.def != nil {
						b.ns.rep.warnf(b.at(b.fieldAt[f]), "the field is a pointer, nil when the property is absent",
							"the default of property %q is not applied: the property refers back to its own type %s", f.jsonName, d.name)
					}
					pointerTo(f)
				}
			}
		}
	}
}

// byValueStruct is the struct a field holds by value (directly or in a
// runtime.Optional), or nil.
func byValueStruct(f *field) *structDecl {
	t := f.typ
	if t.kind == refOptional {
		t = t.elem
	} else if f.ptr {
		return nil
	}
	if t.kind != refNamed {
		return nil
	}
	d, _ := t.decl.(*structDecl)
	return d
}

// pointerTo makes a field hold its struct through a pointer.
func pointerTo(f *field) {
	if f.typ.kind == refOptional {
		f.typ = &typeRef{kind: refOptional, elem: &typeRef{kind: refPtr, elem: f.typ.elem}}
		return
	}
	required := f.required()
	f.ptr, f.def = true, nil
	f.omitempty = !required
}

// structCycles are the strongly connected components of g that hold a
// cycle (more than one struct, or one holding itself), in declaration
// order (Tarjan's algorithm).
func structCycles(g map[*structDecl][]*field) [][]*structDecl {
	index, low := map[*structDecl]int{}, map[*structDecl]int{}
	onStack := map[*structDecl]bool{}
	var stack []*structDecl
	var out [][]*structDecl
	var visit func(d *structDecl)
	visit = func(d *structDecl) {
		index[d], low[d] = len(index), len(index)
		stack = append(stack, d)
		onStack[d] = true
		self := false
		for _, f := range g[d] {
			w := byValueStruct(f)
			self = self || w == d
			if _, seen := index[w]; !seen {
				visit(w)
				low[d] = min(low[d], low[w])
			} else if onStack[w] {
				low[d] = min(low[d], index[w])
			}
		}
		if low[d] != index[d] {
			return
		}
		var comp []*structDecl
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			comp = append(comp, w)
			if w == d {
				break
			}
		}
		if len(comp) > 1 || self {
			out = append(out, comp)
		}
	}
	var order []*structDecl
	for d := range g {
		order = append(order, d)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].name < order[j].name })
	for _, d := range order {
		if _, seen := index[d]; !seen {
			visit(d)
		}
	}
	return out
}

// methodNames are the methods generated types may have (defaults,
// nil collections, unions): a field may not have one's name.
var methodNames = keySet("MarshalJSON", "UnmarshalJSON", "Valid")

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
