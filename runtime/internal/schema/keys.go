package schema

import (
	"encoding/json"
	"strings"
)

// KeyShape is where a schema declares property names: the properties of
// each object level, and the shapes below them. It exists because
// encoding/json, which generated code decodes with, takes a key that
// differs from a field's name only in case ("Title" for "title") when the
// exact one is absent, and lets the last of two such keys win: a key that
// JSON Schema validation saw as an undeclared extra would land in a declared
// field that validation checked under its exact name. Before a handler sees
// arguments (or Elicit returns an answer), every key that is not a declared
// name but matches one in another case is removed, so what the handler
// receives is exactly what was validated.
type KeyShape struct {
	props map[string]*KeyShape // declared names and the shapes of their values (nil: none below)
	items *KeyShape            // the shape of array items
}

// maxKeyShapeDepth bounds how deep a schema is walked (a recursive $ref
// stops there; anything deeper is decoded as it comes).
const maxKeyShapeDepth = 32

// CompileKeyShape reads the declared names of a JSON Schema: properties,
// items and prefixItems, the branches of allOf, anyOf and oneOf (a name any
// branch declares is declared), and local $refs into $defs or definitions.
// nil means the schema declares no names anywhere.
func CompileKeyShape(schema json.RawMessage) *KeyShape {
	var root any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	return shapeOf(root, root, 0)
}

func shapeOf(root, node any, depth int) *KeyShape {
	m, ok := node.(map[string]any)
	if !ok || depth > maxKeyShapeDepth {
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		if target := localRef(root, ref); target != nil {
			return shapeOf(root, target, depth+1)
		}
	}
	sh := &KeyShape{}
	if props, ok := m["properties"].(map[string]any); ok {
		sh.props = make(map[string]*KeyShape, len(props))
		for name, p := range props {
			sh.props[name] = shapeOf(root, p, depth+1)
		}
	}
	if items, ok := m["items"].(map[string]any); ok {
		sh.items = shapeOf(root, items, depth+1)
	}
	if prefix, ok := m["prefixItems"].([]any); ok {
		for _, p := range prefix {
			sh.items = mergeShapes(sh.items, shapeOf(root, p, depth+1))
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		branches, _ := m[k].([]any)
		for _, b := range branches {
			sh = mergeShapes(sh, shapeOf(root, b, depth+1))
		}
	}
	if sh.props == nil && sh.items == nil {
		return nil
	}
	return sh
}

// mergeShapes declares what either shape declares.
func mergeShapes(a, b *KeyShape) *KeyShape {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := &KeyShape{items: mergeShapes(a.items, b.items)}
	if a.props != nil || b.props != nil {
		out.props = map[string]*KeyShape{}
		for k, v := range a.props {
			out.props[k] = v
		}
		for k, v := range b.props {
			out.props[k] = mergeShapes(out.props[k], v)
		}
	}
	return out
}

// localRef resolves "#/$defs/X" and "#/definitions/X"; anything else is nil.
func localRef(root any, ref string) any {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			m, _ := root.(map[string]any)
			defs, _ := m[strings.Trim(prefix[1:], "/")].(map[string]any)
			return defs[name]
		}
	}
	return nil
}

// variant reports whether key is not a declared name of sh but one in
// another case.
func (sh *KeyShape) Variant(key string) bool {
	if sh == nil || sh.props == nil {
		return false
	}
	if _, ok := sh.props[key]; ok {
		return false
	}
	for name := range sh.props {
		if strings.EqualFold(name, key) {
			return true
		}
	}
	return false
}

// strip removes the case variants of declared names from v (decoded JSON),
// at every level the shape declares, and reports whether it removed any.
func (sh *KeyShape) Strip(v any) bool {
	if sh == nil {
		return false
	}
	changed := false
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if sh.Variant(k) {
				delete(x, k)
				changed = true
			} else if sub := sh.props[k]; sub != nil && sub.Strip(val) {
				changed = true
			}
		}
	case []any:
		for _, val := range x {
			if sh.items.Strip(val) {
				changed = true
			}
		}
	}
	return changed
}
