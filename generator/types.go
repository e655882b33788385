package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// Overrides a schema may carry to settle a name collision.
const (
	xGoName      = "x-go-name"       // the Go type made from this schema
	xGoFieldName = "x-go-field-name" // the struct field made from this property
	xGoEnumNames = "x-go-enum-names" // constant name suffixes, one per enum value
)

// names is the package-level identifier table shared by every file of one
// generation: a second claim of a name is a collision.
type names struct {
	rep    *reporter
	owners map[string]place
	shared map[string]sharedDef // $defs a tool's input and output schemas both define
}

type sharedDef struct {
	canon []byte
	typ   *typeRef
}

// reserved are the identifiers mcpgen_handler.go declares.
var reserved = keySet("Handler", "UnimplementedHandler", "Register", "toolCall", "decodeArguments")

// claim takes name for at; a collision is reported with hint.
func (ns *names) claim(name string, at place, hint string) bool {
	if reserved[name] {
		ns.rep.errorf(at, hint, "Go name %q is reserved by mcpgen", name)
		return false
	}
	if first, ok := ns.owners[name]; ok {
		ns.rep.errorf(at, hint, "Go name %q collides with the one made for %s", name, first)
		return false
	}
	ns.owners[name] = at
	return true
}

// typeBuilder maps one schema document (an inputSchema, outputSchema or
// requestedSchema) to Go types.
type typeBuilder struct {
	ns     *names
	src    *source
	root   *jsontree.Node
	prefix string // Go name prefix of $defs types: the tool's Go name
	decls  *[]decl
	memo   map[*jsontree.Node]*typeRef
	owner  string                    // `tool "x"` or `elicitation "y"`, for doc comments
	base   string                    // JSON pointer of the tool or elicitation object
	roots  map[*jsontree.Node]string // doc phrases of the root schemas
}

// origin says where a declared type comes from, for its doc comment.
func (b *typeBuilder) origin(n *jsontree.Node) string {
	if s, ok := b.roots[n]; ok {
		return s
	}
	return "the schema at " + strings.TrimPrefix(n.Ptr, b.base) + " of " + b.owner
}

var (
	rawType = &typeRef{kind: refRaw}
	anyType = &typeRef{kind: refBuiltin, name: "any"}
)

func builtin(name string) *typeRef { return &typeRef{kind: refBuiltin, name: name} }

func (b *typeBuilder) at(n *jsontree.Node) place { return place{b.src, n} }

// fallback is the json.RawMessage escape hatch, always with a warning.
func (b *typeBuilder) fallback(n *jsontree.Node, why string) (*typeRef, bool) {
	b.ns.rep.warnf(b.at(n), "the field is json.RawMessage; decode it yourself", "%s", why)
	return rawType, false
}

// typeName applies an x-go-name override.
func (b *typeBuilder) typeName(n *jsontree.Node, name string) string {
	if o := n.Get(xGoName); o != nil {
		if o.Kind == jsontree.String && isExportedIdent(o.Str) {
			return o.Str
		}
		b.ns.rep.errorf(b.at(o), "use an exported Go identifier", "%q must be an exported Go identifier", xGoName)
	}
	return name
}

// typeOf returns the Go type of schema n; nullable is true when the schema
// also allows null.
func (b *typeBuilder) typeOf(n *jsontree.Node, name string) (*typeRef, bool) {
	if n.Kind == jsontree.Bool {
		if !n.Bool {
			return b.fallback(n, "the schema false allows no value")
		}
		return rawType, false
	}
	if n.Kind != jsontree.Object {
		return rawType, false
	}
	if t, ok := b.memo[n]; ok {
		return t, false
	}
	name = b.typeName(n, name)
	if ref := n.Get("$ref"); ref != nil && ref.Kind == jsontree.String {
		return b.ref(n, ref)
	}
	if c := n.Get("const"); c != nil {
		switch c.Kind {
		case jsontree.String:
			return builtin("string"), false
		case jsontree.Bool:
			return builtin("bool"), false
		case jsontree.Number:
			if isInteger(c.Num) {
				return builtin("int64"), false
			}
			return builtin("float64"), false
		}
		return rawType, false
	}
	if e := n.Get("enum"); e != nil && e.Kind == jsontree.Array {
		var titles []string
		if names := n.Get("enumNames"); names != nil && len(names.Elems) == len(e.Elems) {
			for _, t := range names.Elems {
				titles = append(titles, t.Str)
			}
		}
		return b.enum(n, e.Elems, titles, name)
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		alts := n.Get(key)
		if alts == nil || alts.Kind != jsontree.Array || len(alts.Elems) == 0 {
			continue
		}
		if t, nullable, ok := b.alternatives(n, key, alts, name); ok {
			return t, nullable
		}
		if !constraintsOnly(alts.Elems) {
			return b.fallback(n, key+" without a discriminator cannot be represented as a Go type")
		}
	}
	if all := n.Get("allOf"); all != nil && all.Kind == jsontree.Array && !constraintsOnly(all.Elems) {
		if len(all.Elems) == 1 && !n.Has("type") && !n.Has("properties") {
			return b.typeOf(all.Elems[0], name)
		}
		if parts := b.mergeAllOf(n, all.Elems); parts != nil {
			return b.structFrom(n, parts, name), false
		}
		return b.fallback(n, "allOf combining schemas other than plain objects cannot be represented as a Go type")
	}

	typ, nullable := "", false
	switch t := n.Get("type"); {
	case t == nil:
		switch {
		case n.Has("properties") || n.Has("additionalProperties"):
			typ = "object"
		case n.Has("items"):
			typ = "array"
		default:
			return rawType, false // any JSON value
		}
	case t.Kind == jsontree.String:
		typ = t.Str
	case t.Kind == jsontree.Array:
		var others []string
		for _, el := range t.Elems {
			if el.Str == "null" {
				nullable = true
			} else {
				others = append(others, el.Str)
			}
		}
		if len(others) != 1 {
			return b.fallback(n, fmt.Sprintf("a value of types %s cannot be represented as one Go type", strings.Join(others, ", ")))
		}
		typ = others[0]
	}
	switch typ {
	case "string":
		if f := n.Get("format"); f != nil && f.Str == "date-time" {
			return &typeRef{kind: refTime}, nullable
		}
		return builtin("string"), nullable
	case "integer":
		if f := n.Get("format"); f != nil && f.Str == "int32" {
			return builtin("int32"), nullable
		}
		return builtin("int64"), nullable
	case "number":
		return builtin("float64"), nullable
	case "boolean":
		return builtin("bool"), nullable
	case "null":
		return b.fallback(n, "a value that is always null has no Go type")
	case "array":
		items := n.Get("items")
		if n.Has("prefixItems") {
			return b.fallback(n, "tuples (prefixItems) cannot be represented as a Go slice")
		}
		if items == nil {
			return &typeRef{kind: refSlice, elem: rawType}, nullable
		}
		elem, elemNull := b.typeOf(items, name+"Item")
		if elemNull && elem.pointerable() {
			elem = &typeRef{kind: refPtr, elem: elem}
		}
		return &typeRef{kind: refSlice, elem: elem}, nullable
	case "object":
		props := n.Get("properties")
		if props == nil || len(props.Members) == 0 {
			ap := n.Get("additionalProperties")
			switch {
			case ap != nil && ap.Kind == jsontree.Object:
				v, vNull := b.typeOf(ap, name+"Value")
				if vNull && v.pointerable() {
					v = &typeRef{kind: refPtr, elem: v}
				}
				return &typeRef{kind: refMap, elem: v}, nullable
			case ap != nil && ap.Kind == jsontree.Bool && !ap.Bool:
				return b.structOf(n, name), nullable
			}
			return &typeRef{kind: refMap, elem: anyType}, nullable
		}
		return b.structOf(n, name), nullable
	}
	return b.fallback(n, fmt.Sprintf("type %q has no Go type", typ))
}

// constraintsOnly reports whether schemas only constrain (required, minimum,
// ...) rather than describe other shapes, so that ignoring them in the Go type
// is safe: the runtime validates input against the full schema. Nested
// compositions of constraints ({"anyOf": [{"required": ["a"]}, ...]}) count.
func constraintsOnly(alts []*jsontree.Node) bool {
	for _, a := range alts {
		if a.Kind == jsontree.Bool {
			continue
		}
		if a.Kind != jsontree.Object {
			return false
		}
		for _, k := range []string{"type", "properties", "$ref", "items", "const", "enum", "additionalProperties"} {
			if a.Has(k) {
				return false
			}
		}
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			if n := a.Get(k); n != nil && (n.Kind != jsontree.Array || !constraintsOnly(n.Elems)) {
				return false
			}
		}
	}
	return true
}

func isInteger(num string) bool { return !strings.ContainsAny(num, ".eE") }

func fitsInt64(num string) bool {
	_, err := strconv.ParseInt(num, 10, 64)
	return err == nil
}

// rootType is the type of a tool's inputSchema or outputSchema: a struct
// named name, unless the root is itself a reference, a composition or a map.
func (b *typeBuilder) rootType(n *jsontree.Node, name string) *typeRef {
	composed := n.Has("$ref")
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		if alts := n.Get(k); alts != nil && alts.Kind == jsontree.Array && !constraintsOnly(alts.Elems) {
			composed = true
		}
	}
	ap := n.Get("additionalProperties")
	if composed || (!n.Has("properties") && ap != nil && ap.Kind == jsontree.Object) {
		t, _ := b.typeOf(n, name)
		return t
	}
	return b.structOf(n, name)
}

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
	b.ns.claim(name, b.at(n), `set "x-go-name" on one of the schemas`)
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
	if ap := n.Get("additionalProperties"); len(members) > 0 && ap != nil && ap.Kind == jsontree.Object {
		b.ns.rep.warnf(b.at(ap), "only the named properties become fields", "additionalProperties beside properties is not represented; extra keys are dropped when decoding")
	}
	byGo := map[string]*jsontree.Node{}
	for _, m := range members {
		p := m.Value
		fname := joinWords(m.Key)
		if fname == "" {
			fname = enumValueName(m.Key)
		}
		if r := []rune(fname)[0]; !isExportedIdent(string(r)) {
			fname = "X" + fname
		}
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
		if !req && !nullable {
			f.def = defaultFor(p, t)
		}
		f.ptr = t.pointerable() && (nullable || (!req && f.def == nil))
		f.omitempty = !req && f.def == nil
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

// defaultFor returns a property's default as a Go literal when its type can
// hold one (scalars and enums).
func defaultFor(p *jsontree.Node, t *typeRef) *defaultLit {
	d := p.Get("default")
	if d == nil {
		return nil
	}
	switch t.kind {
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
		e, ok := t.decl.(*enumDecl)
		if !ok {
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

// scalar converts a JSON scalar to string, int64 (integers) or float64.
func scalar(n *jsontree.Node) any {
	switch n.Kind {
	case jsontree.String:
		return n.Str
	case jsontree.Number:
		if isInteger(n.Num) {
			if v, err := strconv.ParseInt(n.Num, 10, 64); err == nil {
				return v
			}
		}
		v, _ := strconv.ParseFloat(n.Num, 64)
		return v
	case jsontree.Bool:
		return n.Bool
	}
	return nil
}

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
	for i, v := range kept {
		val := scalar(v)
		suffix := ""
		switch x := val.(type) {
		case string:
			suffix = enumValueName(x)
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

// alternatives handles oneOf/anyOf: titled enums (every branch a const),
// nullable (T or null), and discriminated unions. ok is false when none fits.
func (b *typeBuilder) alternatives(n *jsontree.Node, key string, alts *jsontree.Node, name string) (*typeRef, bool, bool) {
	allConst := true
	var nonNull []*jsontree.Node
	for _, a := range alts.Elems {
		if a.Get("const") == nil {
			allConst = false
		}
		if t := a.Get("type"); t != nil && t.Kind == jsontree.String && t.Str == "null" && len(a.Members) == 1 {
			continue
		}
		nonNull = append(nonNull, a)
	}
	if allConst {
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
	t, ok := b.union(n, alts.Elems, name)
	return t, false, ok
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
	discValue := func(t *jsontree.Node, prop string) (string, bool) {
		p := t.Get("properties").Get(prop)
		if p == nil {
			return "", false
		}
		c := p.Get("const")
		if c == nil {
			if e := p.Get("enum"); e != nil && len(e.Elems) == 1 {
				c = e.Elems[0]
			}
		}
		if c == nil || c.Kind != jsontree.String {
			return "", false
		}
		req := t.Get("required")
		if req == nil {
			return "", false
		}
		for _, r := range req.Elems {
			if r.Str == prop {
				return c.Str, true
			}
		}
		return "", false
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
	var values []string
candidate:
	for _, c := range candidates {
		seen := map[string]bool{}
		values = values[:0]
		for _, t := range targets {
			v, ok := discValue(t, c)
			if !ok || seen[v] {
				continue candidate
			}
			seen[v] = true
			values = append(values, v)
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
		fname := enumValueName(values[i])
		if r := []rune(fname)[0]; !isExportedIdent(string(r)) {
			fname = "X" + fname
		}
		if byField[fname] {
			b.ns.rep.errorf(b.at(a), `set "x-go-name" on the variant schemas`, "variant %q makes a Go field name %q used by another variant", values[i], fname)
			continue
		}
		byField[fname] = true
		t, _ := b.typeOf(a, name+fname)
		sd, ok := t.decl.(*structDecl)
		if !ok {
			continue
		}
		v := variant{field: fname, value: values[i], typ: t}
		for _, f := range sd.fields {
			if f.jsonName == prop {
				v.discField = f.goName
			}
		}
		d.variants = append(d.variants, v)
	}
	return ref, true
}

// resolve finds the target of a local $ref: "#", "#/json/pointer" or "#anchor".
func (b *typeBuilder) resolve(ref string) *jsontree.Node {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		return b.src.doc.At(b.root.Ptr + frag)
	}
	var found *jsontree.Node
	var walk func(n *jsontree.Node)
	walk = func(n *jsontree.Node) {
		if found != nil || n == nil {
			return
		}
		if a := n.Get("$anchor"); a != nil && a.Str == frag {
			found = n
			return
		}
		for _, m := range n.Members {
			walk(m.Value)
		}
		for _, e := range n.Elems {
			walk(e)
		}
	}
	walk(b.root)
	return found
}

// ref returns the named type for a $ref target, declaring it once.
func (b *typeBuilder) ref(n, ref *jsontree.Node) (*typeRef, bool) {
	target := b.resolve(ref.Str)
	if target == nil {
		return b.fallback(n, fmt.Sprintf("reference %q is not resolved (only #, #/pointer and #anchor in the same schema)", ref.Str))
	}
	if t, ok := b.memo[target]; ok {
		return t, false
	}
	rel := strings.TrimPrefix(target.Ptr, b.root.Ptr)
	toks := strings.Split(rel, "/")
	base := b.prefix + joinWords(jsontree.Unescape(toks[len(toks)-1]))
	if rel == "" {
		base = b.prefix
	}
	name := b.typeName(target, base)
	var canon bytes.Buffer
	_ = json.Compact(&canon, b.src.doc.Raw(target))
	if s, ok := b.ns.shared[name]; ok && bytes.Equal(s.canon, canon.Bytes()) {
		b.memo[target] = s.typ
		return s.typ, false
	}
	t, nullable := b.typeOf(target, name)
	b.memo[target] = t
	if t.kind == refNamed {
		b.ns.shared[name] = sharedDef{canon: canon.Bytes(), typ: t}
	}
	return t, nullable
}

// docLines are the doc comment lines of a schema: its title and description.
func docLines(n *jsontree.Node) []string {
	if n == nil || n.Kind != jsontree.Object {
		return nil
	}
	var out []string
	if t := n.Get("title"); t != nil && t.Kind == jsontree.String && strings.TrimSpace(t.Str) != "" {
		out = append(out, splitLines(t.Str)...)
	}
	if d := n.Get("description"); d != nil && d.Kind == jsontree.String && strings.TrimSpace(d.Str) != "" {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, splitLines(d.Str)...)
	}
	return out
}

// splitLines splits text into comment lines without control characters.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		line = strings.Map(func(r rune) rune {
			if r == '\t' || !strconv.IsPrint(r) && r < 0x20 || r == 0x7f || r == '\r' || r == 0xfeff {
				return ' '
			}
			return r
		}, line)
		out = append(out, strings.TrimRight(line, " "))
	}
	return out
}
