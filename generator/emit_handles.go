package generator

import "github.com/dave/jennifer/jen"

// Call handles: every tool, prompt and resource has a handle type of its
// own, the runtime's common part (ToolCall or FeatureCall) embedded and
// exactly the elicitations it declares as methods.

// ctx is the context.Context parameter of generated functions.
func ctx() *jen.Statement { return jen.Id("ctx").Qual("context", "Context") }

// handleFields are the fields of a call handle: the runtime's common part
// (ToolCall or FeatureCall) embedded, and the *runtime.Call its elicitations
// and page method ask through when it has any. The runtime's part does not
// give the Call away, so a handler can ask only what its handle declares.
func handleFields(common string, needsCall bool) []jen.Code {
	fields := []jen.Code{jen.Qual(runtimePkg, common)}
	if needsCall {
		fields = append(fields, jen.Id("call").Op("*").Qual(runtimePkg, "Call"))
	}
	return fields
}

// handleValue is the call handle of type typ around the adapter's call.
func handleValue(typ, common string, needsCall bool) *jen.Statement {
	return jen.Id(typ).ValuesFunc(func(g *jen.Group) {
		g.Qual(runtimePkg, "New"+common).Call(jen.Id("call"))
		if needsCall {
			g.Id("call")
		}
	})
}
