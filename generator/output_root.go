package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// Structured output of any JSON type (SEP-2106, protocol 2026-07-28): an
// outputSchema's root may be an array, a scalar, null or a union, not only an
// object, and structuredContent is then that value. The runtime serves
// sessions of 2025-11-25 and earlier, whose wire requires an object, the
// value wrapped as {"result": value} under a rewritten schema (see
// runtime/output_root.go); generated code only returns the typed value.

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

// outputZero is the zero value of a tool's output type, for
// UnimplementedHandler: T{} for the struct of an object root, else *new(T).
func outputZero(t *toolIR) *jen.Statement {
	if objectRoot(t.def.output) {
		return typeExpr(t.output).Values()
	}
	return jen.Op("*").New(typeExpr(t.output))
}
