package generator

import (
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// enum declares typed constants for the non-null values.
func (b *typeBuilder) enum(n *jsontree.Node, vals []*jsontree.Node, titles []string, name string) (*typeRef, bool) {
	nullable := false
	var kept []*jsontree.Node
	var keptTitles []string
	kinds := map[string]bool{}
	for i, v := range vals {
		if v.Kind == jsontree.Null {
			nullable = true
			continue
		}
		kept = append(kept, v)
		if titles != nil {
			keptTitles = append(keptTitles, titles[i])
		}
		switch {
		case v.Kind == jsontree.String:
			kinds["string"] = true
		case v.Kind == jsontree.Number && isInteger(v.Num) && fitsInt64(v.Num):
			kinds["int64"] = true
		case v.Kind == jsontree.Number:
			kinds["float64"] = true
		default:
			kinds[v.Kind.String()] = true
		}
	}
	if kinds["int64"] && kinds["float64"] {
		delete(kinds, "int64")
	}
	if len(kinds) != 1 || kinds["boolean"] || kinds["object"] || kinds["array"] {
		return b.fallback(n, "an enum mixing value types (or of objects, arrays, booleans) has no Go type")
	}
	d := &enumDecl{name: name, origin: b.origin(n), doc: docLines(n)}
	for k := range kinds {
		d.base = k
	}
	hint := `set "x-go-enum-names" to one name per value`
	var override []*jsontree.Node
	if o := n.Get(xGoEnumNames); o != nil {
		if o.Kind != jsontree.Array || len(o.Elems) != len(kept) {
			b.ns.rep.errorf(b.at(o), "give one name per non-null value, in order", "%q must be an array as long as the enum", xGoEnumNames)
		} else {
			override = o.Elems
		}
	}
	if !b.ns.claim(name, b.at(n), `set "x-go-name" on one of the schemas`) {
		return rawType, nullable
	}
	var strs []string
	for _, v := range kept {
		strs = append(strs, v.Str)
	}
	strSuffixes := enumSuffixes(strs)
	for i, v := range kept {
		val := scalar(v)
		suffix := ""
		switch val.(type) {
		case string:
			suffix = strSuffixes[i]
		default:
			suffix = strings.NewReplacer("-", "Minus", ".", "Dot", "+", "").Replace(v.Num)
		}
		if override != nil {
			suffix = override[i].Str
		}
		cname := name + suffix
		if !isExportedIdent(cname) {
			b.ns.rep.errorf(b.at(v), hint, "enum value makes the invalid Go name %q", cname)
			continue
		}
		if b.ns.claim(cname, b.at(v), hint) {
			ev := enumValue{constName: cname, value: val}
			if keptTitles != nil {
				ev.title = keptTitles[i]
			}
			d.values = append(d.values, ev)
		}
	}
	*b.decls = append(*b.decls, d)
	return &typeRef{kind: refNamed, name: name, decl: d}, nullable
}
