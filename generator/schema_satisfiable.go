package generator

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// checkSatisfiable reports the subschemas of the schema at at that no value
// satisfies, which a compiler accepts without a word: bounds the wrong way
// round (minimum above maximum, and the same for exclusive bounds, lengths,
// item, property and contains counts), an empty enum, an enum none of
// whose values has the schema's own type, a const outside its own type or
// enum, and a required property that names no property where
// additionalProperties is false (and no patternProperties matches it). With
// additional properties allowed, such a required name is satisfiable (the
// value just has that key), so it is left alone, as JSON Schema reads it.
//
// In an input schema (output false) each is an error: nobody could call
// the tool, or give that argument. In an output schema each is a warning:
// the handler could return no value that passes. Branches of anyOf, oneOf,
// not and if/then/else are left alone: one branch no value satisfies may be
// meant there. It returns false when it reported an error.
func checkSatisfiable(at place, output bool, rep *reporter) bool {
	ok := true
	report := func(n *jsontree.Node, hint, format string, args ...any) {
		p := place{at.src, n}
		if output {
			rep.warnf(p, hint, "no output can satisfy the schema here: "+format, args...)
			return
		}
		rep.errorf(p, hint, "no value can satisfy the schema here: "+format, args...)
		ok = false
	}
	var walk func(n *jsontree.Node)
	walk = func(n *jsontree.Node) {
		if n.Kind != jsontree.Object {
			return
		}
		checkBounds(n, report)
		checkValues(n, report)
		checkRequired(n, report)
		for _, m := range n.Members {
			switch m.Key {
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
				for _, sub := range m.Value.Members {
					walk(sub.Value)
				}
			case "items", "additionalProperties", "contains", "propertyNames", "additionalItems", "unevaluatedItems", "unevaluatedProperties":
				walk(m.Value)
				for _, el := range m.Value.Elems { // draft-07 items as an array
					walk(el)
				}
			case "prefixItems", "allOf":
				for _, el := range m.Value.Elems {
					walk(el)
				}
			}
		}
	}
	walk(at.node)
	return ok
}

// The pairs of keywords a value must fall between: lower, upper, and
// whether the bound may be met (minimum <= maximum, but exclusiveMinimum <
// exclusiveMaximum).
var boundPairs = []struct {
	lower, upper string
	strict       bool
	what         string
}{
	{"minimum", "maximum", false, "number"},
	{"exclusiveMinimum", "exclusiveMaximum", true, "number"},
	{"minimum", "exclusiveMaximum", true, "number"},
	{"exclusiveMinimum", "maximum", true, "number"},
	{"minLength", "maxLength", false, "string's length"},
	{"minItems", "maxItems", false, "array's length"},
	{"minProperties", "maxProperties", false, "object's number of properties"},
	{"minContains", "maxContains", false, "number of matching items"},
}

func checkBounds(n *jsontree.Node, report func(*jsontree.Node, string, string, ...any)) {
	for _, b := range boundPairs {
		lo, hi := n.Get(b.lower), n.Get(b.upper)
		if lo == nil || hi == nil || lo.Kind != jsontree.Number || hi.Kind != jsontree.Number {
			continue
		}
		l, ok1 := new(big.Rat).SetString(lo.Num)
		h, ok2 := new(big.Rat).SetString(hi.Num)
		if !ok1 || !ok2 {
			continue
		}
		if c := l.Cmp(h); c > 0 || c == 0 && b.strict {
			report(lo, fmt.Sprintf("fix or remove one of %s and %s", b.lower, b.upper),
				"%s is %s and %s is %s, so no %s fits", b.lower, lo.Num, b.upper, hi.Num, b.what)
		}
	}
}

// types are the JSON types a schema's "type" allows, or nil when it
// names none.
func schemaTypes(n *jsontree.Node) []string {
	t := n.Get("type")
	switch {
	case t == nil:
		return nil
	case t.Kind == jsontree.String:
		return []string{t.Str}
	}
	var out []string
	for _, el := range t.Elems {
		out = append(out, el.Str)
	}
	return out
}

// ofTypes reports whether the JSON value v has one of types.
func ofTypes(v *jsontree.Node, types []string) bool {
	for _, t := range types {
		switch {
		case t == v.Kind.String(),
			t == "integer" && v.Kind == jsontree.Number && integral(v.Num),
			t == "boolean" && v.Kind == jsontree.Bool:
			return true
		}
	}
	return false
}

func checkValues(n *jsontree.Node, report func(*jsontree.Node, string, string, ...any)) {
	types := schemaTypes(n)
	e := n.Get("enum")
	if e != nil && e.Kind == jsontree.Array {
		fits := 0
		for _, v := range e.Elems {
			if types == nil || ofTypes(v, types) {
				fits++
			}
		}
		switch {
		case len(e.Elems) == 0:
			report(e, "list the values the schema allows, or remove enum", "the enum is empty")
		case fits == 0:
			report(e, "fix the values or the type", "none of the enum's values is of type %s", strings.Join(types, " or "))
		}
	}
	c := n.Get("const")
	if c == nil {
		return
	}
	if types != nil && !ofTypes(c, types) {
		report(c, "fix the const or the type", "the const %s is not of type %s", compactValue(c), strings.Join(types, " or "))
	}
	if e != nil && e.Kind == jsontree.Array && len(e.Elems) > 0 {
		for _, v := range e.Elems {
			if sameJSON(v, c) {
				return
			}
		}
		report(c, "fix the const or the enum", "the const %s is not one of the enum's values", compactValue(c))
	}
}

func checkRequired(n *jsontree.Node, report func(*jsontree.Node, string, string, ...any)) {
	req, ap := n.Get("required"), n.Get("additionalProperties")
	if req == nil || req.Kind != jsontree.Array || ap == nil || ap.Kind != jsontree.Bool || ap.Bool {
		return
	}
	props, pp := n.Get("properties"), n.Get("patternProperties")
	for _, r := range req.Elems {
		if r.Kind != jsontree.String || props.Has(r.Str) {
			continue
		}
		matched := false
		if pp != nil {
			for _, m := range pp.Members {
				if re, err := regexp.Compile(m.Key); err == nil && re.MatchString(r.Str) {
					matched = true
				}
			}
		}
		if !matched {
			report(r, "declare the property, or drop it from required, or allow additional properties",
				"%q is required, but it is not a property and additionalProperties is false", r.Str)
		}
	}
}

// integral reports whether a JSON number is an integer by value (1.0 is).
func integral(num string) bool {
	r, ok := new(big.Rat).SetString(num)
	return ok && r.IsInt()
}

// sameJSON reports whether two JSON values are equal as JSON (numbers by
// value, objects whatever their key order).
func sameJSON(a, b *jsontree.Node) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case jsontree.Null:
		return true
	case jsontree.Bool:
		return a.Bool == b.Bool
	case jsontree.String:
		return a.Str == b.Str
	case jsontree.Number:
		x, ok1 := new(big.Rat).SetString(a.Num)
		y, ok2 := new(big.Rat).SetString(b.Num)
		return ok1 && ok2 && x.Cmp(y) == 0 || a.Num == b.Num
	case jsontree.Array:
		if len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !sameJSON(a.Elems[i], b.Elems[i]) {
				return false
			}
		}
		return true
	}
	if len(a.Members) != len(b.Members) {
		return false
	}
	for _, m := range a.Members {
		if v := b.Get(m.Key); v == nil || !sameJSON(m.Value, v) {
			return false
		}
	}
	return true
}

// compactValue writes a short JSON value for a message.
func compactValue(n *jsontree.Node) string {
	switch n.Kind {
	case jsontree.String:
		return jsonString(n.Str)
	case jsontree.Number:
		return n.Num
	case jsontree.Bool:
		return fmt.Sprint(n.Bool)
	case jsontree.Null:
		return "null"
	}
	return "a " + n.Kind.String()
}
