package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
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
var reserved = keySet("Handler", "UnimplementedHandler", "Register")

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
	// rootHint replaces the collision hint for the root schema's type.
	rootHint string
	busy     map[*jsontree.Node]bool // schemas being mapped, to stop reference cycles
	// extra are the additionalProperties and patternProperties beside named
	// properties met in the current root schema; warnExtra reports them once.
	extra []*jsontree.Node
	// whyNot says why the last choice was not possible, for the warning.
	whyNot string
}

// warnExtra reports, once per root schema, the objects whose keys beyond the
// named properties have no field, and forgets them.
func (b *typeBuilder) warnExtra() {
	if len(b.extra) == 0 {
		return
	}
	more := ""
	if n := len(b.extra) - 1; n == 1 {
		more = " (and 1 more place in this schema)"
	} else if n > 1 {
		more = fmt.Sprintf(" (and %d more places in this schema)", n)
	}
	b.ns.rep.warnf(b.at(b.extra[0]), "the runtime still validates them; decode the arguments yourself to read them",
		"keys beyond the named properties are allowed here but have no struct field, so decoding drops them%s", more)
	b.extra = nil
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
	if b.busy[n] {
		return b.fallback(n, "a schema that refers to itself without an object in between has no Go type")
	}
	if b.busy == nil {
		b.busy = map[*jsontree.Node]bool{}
	}
	b.busy[n] = true
	defer delete(b.busy, n)
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
			why := b.whyNot
			if why == "" {
				why = "its branches cannot be told apart"
			}
			b.whyNot = ""
			return b.fallback(n, key+" without a discriminator: "+why)
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
			if t, ok := b.choiceOfTypes(n, others, name); ok {
				return t, nullable
			}
			return b.fallback(n, fmt.Sprintf("a value of types %s cannot be represented as one Go type", strings.Join(others, ", ")))
		}
		typ = others[0]
	}
	return b.ofType(n, typ, name, nullable)
}

// ofType is the Go type of schema n read as a value of JSON type typ.
func (b *typeBuilder) ofType(n *jsontree.Node, typ, name string, nullable bool) (*typeRef, bool) {
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
		if pre := n.Get("prefixItems"); pre != nil && pre.Kind == jsontree.Array {
			return b.tuple(n, pre.Elems, items, name, nullable)
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
			if pp := n.Get("patternProperties"); pp != nil && pp.Kind == jsontree.Object && len(pp.Members) > 0 {
				if len(pp.Members) == 1 && (ap == nil || ap.Kind == jsontree.Bool && !ap.Bool) {
					v, vNull := b.typeOf(pp.Members[0].Value, name+"Value")
					if vNull && v.pointerable() {
						v = &typeRef{kind: refPtr, elem: v}
					}
					return &typeRef{kind: refMap, elem: v}, nullable
				}
				b.ns.rep.warnf(b.at(pp), "the runtime still validates every key against its pattern",
					"patternProperties with several patterns, or beside additionalProperties, become map[string]any")
				return &typeRef{kind: refMap, elem: anyType}, nullable
			}
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

// tuple maps prefixItems to a slice when every position (and items, for
// the positions after them) has the same Go type: a [latitude, longitude]
// pair is a []float64.
func (b *typeBuilder) tuple(n *jsontree.Node, prefix []*jsontree.Node, items *jsontree.Node, name string, nullable bool) (*typeRef, bool) {
	var elem *typeRef
	same := func(t *typeRef) bool { return elem == nil || t.String() == elem.String() }
	for _, p := range prefix {
		kind, integer := branchKind(p)
		var t *typeRef
		switch {
		case kind == "number" && integer:
			t = builtin("int64")
		case kind == "number":
			t = builtin("float64")
		case kind == "string" && !p.Has("enum") && !p.Has("const") && !p.Has("format"):
			t = builtin("string")
		case kind == "boolean":
			t = builtin("bool")
		default:
			return b.fallback(n, "a tuple (prefixItems) of other than plain numbers, strings or booleans cannot be represented as a Go slice")
		}
		if !same(t) {
			return b.fallback(n, "a tuple (prefixItems) whose positions have different types cannot be represented as a Go slice")
		}
		elem = t
	}
	if items != nil && !(items.Kind == jsontree.Bool && !items.Bool) {
		t, _ := b.typeOf(items, name+"Item")
		if !same(t) {
			return b.fallback(n, "a tuple (prefixItems) whose positions have different types cannot be represented as a Go slice")
		}
	}
	if elem == nil {
		elem = rawType
	}
	return &typeRef{kind: refSlice, elem: elem}, nullable
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

// outputType is the Go type of an outputSchema: a struct (or the type of a
// composed root) for an object root, else the type the schema maps to
// ([]T, a scalar, a nullable or a union).
func (b *typeBuilder) outputType(n *jsontree.Node, name string) *typeRef {
	if objectRoot(n) {
		return b.rootType(n, name)
	}
	t, nullable := b.typeOf(n, name)
	if nullable && t.pointerable() {
		return &typeRef{kind: refPtr, elem: t} // nil is null
	}
	return t
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
