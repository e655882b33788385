package generator

import (
	"fmt"
	"strings"
)

// The intermediate representation: Go types and declarations, built from
// the schemas by typeBuilder and written by the emitter.

// refKind says what a typeRef is.
type refKind int

const (
	refNamed    refKind = iota // a declared type of the package
	refBuiltin                 // string, int64, float64, bool, any, int32
	refTime                    // time.Time
	refRaw                     // json.RawMessage
	refSlice                   // []elem
	refMap                     // map[string]elem
	refPtr                     // *elem
	refOptional                // runtime.Optional[elem]: absent, null or a value
)

// typeRef is a Go type expression.
type typeRef struct {
	kind refKind
	name string // refNamed, refBuiltin
	elem *typeRef
	decl decl // refNamed: the declaration
}

// pointerable reports whether an optional value of this type needs a pointer
// to tell absence apart (slices, maps and raw JSON have nil already).
func (t *typeRef) pointerable() bool {
	switch t.kind {
	case refSlice, refMap, refRaw, refOptional:
		return false
	case refBuiltin:
		return t.name != "any"
	}
	return true
}

// String writes the type as Go source, for messages.
func (t *typeRef) String() string {
	switch t.kind {
	case refNamed, refBuiltin:
		return t.name
	case refTime:
		return "time.Time"
	case refRaw:
		return "json.RawMessage"
	case refSlice:
		return "[]" + t.elem.String()
	case refMap:
		return "map[string]" + t.elem.String()
	case refPtr:
		return "*" + t.elem.String()
	case refOptional:
		return "runtime.Optional[" + t.elem.String() + "]"
	}
	return "?"
}

// decl is a named type declaration: *structDecl, *enumDecl, *unionDecl or *choiceDecl.
type decl interface{ declName() string }

// structDecl is a struct for an object schema.
type structDecl struct {
	name   string
	origin string // what the type is, for its doc comment
	doc    []string
	fields []*field
}

// field is one property of a struct.
type field struct {
	goName, jsonName string
	typ              *typeRef
	ptr              bool // *typ
	omitempty        bool
	omitzero         bool // runtime.Optional: left out when absent
	// nonNil marks a required slice or map the schema does not let be null:
	// nil goes out as [] or {} (the struct's MarshalJSON).
	nonNil bool
	doc    []string
	def    *defaultLit // applied when the property is absent
}

// defaultLit is a default value as a Go literal of the field's type.
type defaultLit struct {
	raw   string // compact JSON decoded into the field (arrays, objects, times)
	value any    // string, int64, float64 or bool
	konst string // enum constant name, when the field is an enum
}

// enumDecl is a typed constant set for an enum.
type enumDecl struct {
	name   string
	origin string
	doc    []string
	base   string // string, int64 or float64
	values []enumValue
}

// valueList is the enum's values as JSON, for messages: "read, edit".
func (d *enumDecl) valueList() string {
	vals := make([]string, len(d.values))
	for i, v := range d.values {
		vals[i] = fmt.Sprint(v.value)
	}
	return strings.Join(vals, ", ")
}

// enumValue is one constant of an enum.
type enumValue struct {
	constName string
	value     any // string, int64 or float64
	title     string
}

// unionDecl is a oneOf/anyOf with a discriminator property: exactly one of its
// variant pointers is set.
type unionDecl struct {
	name     string
	origin   string
	doc      []string
	prop     string // discriminator property (JSON)
	variants []variant
}

// variant is one branch of a union.
type variant struct {
	field     string   // field of the union struct
	values    []string // the discriminator values that select it
	typ       *typeRef
	discField string // Go field of a single-valued discriminator, set when encoding
}

// choiceDecl is a oneOf/anyOf (or a "type" array) without a discriminator:
// exactly one of its fields is set, chosen by the kind of the JSON value and,
// among objects, by which key is present.
type choiceDecl struct {
	name   string
	origin string
	doc    []string
	fields []choiceField
}

// choiceField is one branch of a choice.
type choiceField struct {
	field string
	kind  string // string, number, boolean, array or object
	key   string // objects: the key that selects this branch ("" for the one taking the rest)
	typ   *typeRef
	doc   []string
}

func (d *choiceDecl) declName() string { return d.name }
func (d *structDecl) declName() string { return d.name }
func (d *enumDecl) declName() string   { return d.name }
func (d *unionDecl) declName() string  { return d.name }

// nonNilFields are the fields whose nil goes out as [] or {}.
func (d *structDecl) nonNilFields() []*field {
	var out []*field
	for _, f := range d.fields {
		if f.nonNil {
			out = append(out, f)
		}
	}
	return out
}

// hasDefaults reports whether decoding must start from default values.
func (d *structDecl) hasDefaults() bool {
	for _, f := range d.fields {
		if f.def != nil {
			return true
		}
	}
	return false
}

// inputOrder is where an input was declared: its file, then its place in
// the file.
type inputOrder struct {
	path   string
	offset int
}

func (o inputOrder) before(p inputOrder) bool {
	if o.path != p.path {
		return o.path < p.path
	}
	return o.offset < p.offset
}
