package generator

import (
	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// Structured output of any JSON type (SEP-2106, protocol 2026-07-28): an
// outputSchema's root may be an array, a scalar, null or a union, not only an
// object, and structuredContent is then that value. The runtime serves
// sessions of 2025-11-25 and earlier, whose wire requires an object, the
// value wrapped as {"result": value} under a rewritten schema (see
// runtime/output_root.go); generated code only returns the typed value
// (typeBuilder.outputType maps it).

// checkOutputSchema checks an outputSchema: a JSON Schema object that
// compiles, with any root type. An object root (or none declared) is
// checked as inputSchema is.
func checkOutputSchema(at place, rep *reporter) bool {
	if at.node.Kind == jsontree.Object && !objectRoot(at.node) {
		return compileSchema(at, rep)
	}
	return checkToolSchema(at, "outputSchema", rep)
}

// objectRoot reports whether a schema's root is an object as far as its Go
// type goes: "type": "object", or no "type" at all (a composition, a $ref,
// or the warned-about typeless object). A root "type" naming anything else
// (a string such as "array", or a list of types) is not.
func objectRoot(n *jsontree.Node) bool {
	typ := n.Get("type")
	return typ == nil || (typ.Kind == jsontree.String && typ.Str == "object")
}

// wireObjectRoot reports whether an outputSchema's root says "type":
// "object", the runtime's test for output it sends unwrapped in every era.
func wireObjectRoot(n *jsontree.Node) bool {
	typ := n.Get("type")
	return n.Kind == jsontree.Object && typ != nil && typ.Kind == jsontree.String && typ.Str == "object"
}
