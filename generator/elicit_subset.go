package generator

import (
	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// The restricted subset of JSON Schema that form elicitation allows: a flat
// object of primitive properties (MCP 2025-11-25, "requestedSchema").
var (
	formRootKeys = keySet("$schema", "type", "properties", "required")
	formKeys     = map[string]map[string]bool{
		"string":  keySet("type", "title", "description", "minLength", "maxLength", "format", "default", "enum", "enumNames", "oneOf"),
		"number":  keySet("type", "title", "description", "minimum", "maximum", "default"),
		"integer": keySet("type", "title", "description", "minimum", "maximum", "default"),
		"boolean": keySet("type", "title", "description", "default"),
		"array":   keySet("type", "title", "description", "minItems", "maxItems", "items", "default"),
	}
	formFormats = keySet("email", "uri", "date", "date-time")
	// goOverrides are mcpgen's naming keywords; JSON Schema treats unknown
	// keywords as annotations, so clients ignore them.
	goOverrides = keySet(xGoName, xGoFieldName, xGoEnumNames)
)

const nestedHint = "nested objects are not allowed in elicitation schemas; flatten the fields or use URL mode"

// checkFormSchema checks a requestedSchema: valid JSON Schema and inside the
// specification's restricted subset. Every problem is reported.
func checkFormSchema(at place, rep *reporter) bool {
	root := at.node
	if root.Kind != jsontree.Object {
		rep.errorf(at, `write {"type": "object", "properties": {...}}`, "requestedSchema must be an object, not a %s", root.Kind)
		return false
	}
	ok := compileSchema(at, rep)
	bad := func(n *jsontree.Node, hint, format string, args ...any) {
		rep.errorf(place{at.src, n}, hint, format, args...)
		ok = false
	}
	for _, m := range root.Members {
		if !formRootKeys[m.Key] {
			hint := "a requestedSchema holds only " + listKeys(formRootKeys)
			if m.Key == "$defs" || m.Key == "definitions" {
				hint = "references are not allowed in elicitation schemas; inline each property"
			}
			bad(m.Value, hint, "keyword %q is not allowed at the root of an elicitation schema", m.Key)
		}
	}
	if t := root.Get("type"); t == nil || t.Kind != jsontree.String || t.Str != "object" {
		bad(root, `add "type": "object"`, "an elicitation schema is an object")
	}
	props := root.Get("properties")
	if props == nil || props.Kind != jsontree.Object {
		bad(root, `add "properties": {...} with one entry per field`, "an elicitation schema needs properties")
		return false
	}
	if req := root.Get("required"); req != nil && req.Kind == jsontree.Array {
		for _, r := range req.Elems {
			if r.Kind == jsontree.String && !props.Has(r.Str) {
				bad(r, "list only names under properties", "required property %q is not defined", r.Str)
			}
		}
	}
	for _, m := range props.Members {
		if !checkFormProperty(place{at.src, m.Value}, rep) {
			ok = false
		}
	}
	return ok
}

func checkFormProperty(at place, rep *reporter) bool {
	p := at.node
	ok := true
	bad := func(n *jsontree.Node, hint, format string, args ...any) {
		rep.errorf(place{at.src, n}, hint, format, args...)
		ok = false
	}
	if p.Kind != jsontree.Object {
		bad(p, "describe the field with an object such as {\"type\": \"string\"}", "a property schema must be an object")
		return false
	}
	typ := p.Get("type")
	switch {
	case typ == nil && p.Has("$ref"):
		bad(p, "references are not allowed in elicitation schemas; inline the property", "property uses $ref")
		return false
	case typ == nil && p.Has("properties"):
		bad(p, nestedHint, "nested object")
		return false
	case typ == nil && p.Has("enum"):
		bad(p, `add "type": "string"`, "an enum property needs \"type\": \"string\"")
		return false
	case typ == nil:
		bad(p, `add "type": one of string, number, integer, boolean, array`, "property has no type")
		return false
	case typ.Kind != jsontree.String:
		bad(typ, "elicitation fields have exactly one type; nullable fields are not in the subset (leave the field out of required instead)", "type must be a single string")
		return false
	}
	allowed, known := formKeys[typ.Str]
	switch {
	case typ.Str == "object":
		bad(typ, nestedHint, "nested object")
		return false
	case !known:
		bad(typ, "use string, number, integer, boolean, or array (multi-select)", "type %q is not allowed in elicitation schemas", typ.Str)
		return false
	}
	for _, m := range p.Members {
		if !allowed[m.Key] && !goOverrides[m.Key] {
			bad(m.Value, "a "+typ.Str+" field may use "+listKeys(allowed), "keyword %q is not part of the elicitation subset", m.Key)
		}
	}
	def := p.Get("default")
	switch typ.Str {
	case "string":
		values := map[string]bool{}
		enum, oneOf := p.Get("enum"), p.Get("oneOf")
		if enum != nil && oneOf != nil {
			bad(oneOf, "use either enum (optionally with enumNames) or oneOf of {const, title}", "enum and oneOf together")
		}
		if enum != nil {
			for _, v := range enum.Elems {
				if v.Kind != jsontree.String {
					bad(v, "elicitation enums are strings", "enum value is a %s", v.Kind)
				}
				values[v.Str] = true
			}
		}
		if names := p.Get("enumNames"); names != nil {
			switch {
			case enum == nil:
				bad(names, `add the values as "enum"`, "enumNames without enum")
			case names.Kind != jsontree.Array || len(names.Elems) != len(enum.Elems):
				bad(names, "give one display name per enum value", "enumNames must be an array as long as enum")
			default:
				for _, n := range names.Elems {
					if n.Kind != jsontree.String {
						bad(n, "", "enumNames holds strings, not a %s", n.Kind)
					}
				}
			}
		}
		if oneOf != nil {
			checkTitledOptions(oneOf, values, bad)
		}
		if f := p.Get("format"); f != nil && f.Kind == jsontree.String && !formFormats[f.Str] {
			bad(f, "use one of: date, date-time, email, uri", "format %q is not allowed in elicitation schemas", f.Str)
		}
		if def != nil {
			if def.Kind != jsontree.String {
				bad(def, "", "the default of a string field must be a string")
			} else if len(values) > 0 && !values[def.Str] {
				bad(def, "pick one of the listed values", "default %q is not one of the options", def.Str)
			}
		}
	case "number", "integer", "boolean":
		want := jsontree.Number
		if typ.Str == "boolean" {
			want = jsontree.Bool
		}
		if def != nil && def.Kind != want {
			bad(def, "", "the default of a %s field must be a %s", typ.Str, want)
		} else if def != nil && typ.Str == "integer" && !isInteger(def.Num) {
			bad(def, "", "the default of an integer field must be an integer")
		}
	case "array":
		items := p.Get("items")
		values := map[string]bool{}
		switch {
		case items == nil || items.Kind != jsontree.Object:
			bad(p, `add "items": {"type": "string", "enum": [...]}`, "arrays are only allowed as multi-select enums")
		case items.Get("type") != nil && (items.Get("type").Kind != jsontree.String || items.Get("type").Str != "string"):
			hint := "arrays are only allowed as multi-select enums of strings"
			if t := items.Get("type"); t.Kind == jsontree.String && t.Str == "object" {
				hint = nestedHint
			}
			bad(items.Get("type"), hint, "multi-select items must be strings")
		case items.Has("enum"):
			for _, m := range items.Members {
				if m.Key != "type" && m.Key != "enum" && m.Key != xGoEnumNames {
					bad(m.Value, "multi-select items hold type and enum, or anyOf", "keyword %q is not allowed in multi-select items", m.Key)
				}
			}
			for _, v := range items.Get("enum").Elems {
				if v.Kind != jsontree.String {
					bad(v, "elicitation enums are strings", "enum value is a %s", v.Kind)
				}
				values[v.Str] = true
			}
		case items.Has("anyOf"):
			for _, m := range items.Members {
				if m.Key != "type" && m.Key != "anyOf" && m.Key != xGoEnumNames {
					bad(m.Value, "multi-select items hold type and enum, or anyOf", "keyword %q is not allowed in multi-select items", m.Key)
				}
			}
			checkTitledOptions(items.Get("anyOf"), values, bad)
		default:
			bad(items, "arrays are only allowed as multi-select enums: items need enum or anyOf of {const, title}", "multi-select items list no options")
		}
		if def != nil {
			if def.Kind != jsontree.Array {
				bad(def, "", "the default of a multi-select field is an array of strings")
			} else {
				for _, v := range def.Elems {
					if v.Kind != jsontree.String || (len(values) > 0 && !values[v.Str]) {
						bad(v, "pick values from the options", "default value is not one of the options")
					}
				}
			}
		}
	}
	return ok
}

// checkTitledOptions checks a oneOf/anyOf list of {const, title} options and
// collects the values.
func checkTitledOptions(list *jsontree.Node, values map[string]bool, bad func(*jsontree.Node, string, string, ...any)) {
	if list.Kind != jsontree.Array || len(list.Elems) == 0 {
		bad(list, "list options as [{\"const\": \"v\", \"title\": \"Shown\"}, ...]", "options must be a non-empty array")
		return
	}
	for _, o := range list.Elems {
		c := o.Get("const")
		if o.Kind != jsontree.Object || c == nil || c.Kind != jsontree.String {
			bad(o, "each option is {\"const\": \"value\", \"title\": \"Shown name\"}", "option needs a string const")
			continue
		}
		for _, m := range o.Members {
			if m.Key != "const" && m.Key != "title" {
				bad(m.Value, "each option is {\"const\": \"value\", \"title\": \"Shown name\"}", "keyword %q is not allowed in an option", m.Key)
			}
		}
		values[c.Str] = true
	}
}
