package generator

import (
	"fmt"
	"path"

	"github.com/dave/jennifer/jen"
)

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

// emitElicitMethods writes a call handle's methods for the elicitations
// it declares (a tool's, a prompt's or a resource's): ElicitX for a form,
// and ElicitX, NewX and RequireX for a URL (emitURLElicitation).
func emitElicitMethods(f *jen.File, call string, elicits []*elicitIR) {
	for _, e := range elicits {
		if e.def.mode == "url" {
			emitURLElicitation(f, call, e)
			continue
		}
		method := "Elicit" + e.goName
		f.Add(comment(append([]string{
			fmt.Sprintf("%s asks the user to fill in the %s form; an empty message uses "+
				"the declared one. A declined form returns runtime.ErrDeclined, a dismissed one "+
				"runtime.ErrCancelled (test with errors.Is).", method, e.def.name), ""},
			docLinesOf(e.def.description)...)...))
		f.Func().Params(jen.Id("c").Id(call)).Id(method).Params(ctx(), jen.Id("message").String()).Params(typeExpr(e.answer), jen.Error()).Block(
			jen.Var().Id("answer").Add(typeExpr(e.answer)),
			jen.Err().Op(":=").Id("c").Dot("call").Dot("Elicit").Call(jen.Id("ctx"), jen.Id(e.varName()), jen.Id("message"), jen.Op("&").Id("answer")),
			jen.Return(jen.Id("answer"), jen.Err()),
		)
	}
}

// emitElicitation writes an elicitation's file: its answer types and the
// runtime.Elicitation value its handles ask with.
func (g *gen) emitElicitation(e *elicitIR) *jen.File {
	f := g.newFile()
	for _, d := range e.decls {
		emitDecl(f, d)
	}
	v := e.varName()
	mode := e.def.mode
	f.Add(docWith(fmt.Sprintf("%s declares the %s elicitation (%s mode).", v, e.def.name, mode), docLinesOf(e.def.description)))
	message := e.def.message
	if message == "" {
		message = e.def.description
	}
	f.Var().Id(v).Op("=").Op("&").Qual(runtimePkg, "Elicitation").ValuesFunc(func(g *jen.Group) {
		g.Line().Id("Name").Op(":").Lit(e.def.name)
		g.Line().Id("Mode").Op(":").Lit(mode)
		g.Line().Id("Message").Op(":").Lit(message)
		if e.def.schema != nil {
			g.Line().Id("RequestedSchema").Op(":").Qual(jsonPkg, "RawMessage").Call(jen.Lit(string(stripOverrides(e.def.at.src.doc, e.def.schema))))
		}
		g.Line()
	})
	return f
}

// results are the results of a tool's Handler method: its output type, or
// content blocks when it has no outputSchema, and an error.
func (t *toolIR) results() []jen.Code {
	if t.output != nil {
		return []jen.Code{typeExpr(t.output), jen.Error()}
	}
	return []jen.Code{jen.Index().Qual(runtimePkg, "Content"), jen.Error()}
}

func (g *gen) emitTool(t *toolIR) *jen.File {
	f := g.newFile()
	name := t.def.name
	def := t.definitionName()
	f.Add(comment(fmt.Sprintf("%s is tool %s as tools/list advertises it: as written in %s, without mcpgen's own keys.",
		def, name, path.Base(t.def.at.src.path))))
	f.Const().Id(def).Op("=").Lit(string(t.def.definition))
	for _, d := range t.decls {
		emitDecl(f, d)
	}

	call := t.goName + "Call"
	f.Add(comment(
		fmt.Sprintf("%s is the handle of one %s call: progress, logging, sampling, roots, extra "+
			"content, state, and the elicitations the tool declares. Asking for an elicitation "+
			"the tool does not declare is a compile error.", call, name),
	))
	needsCall := len(t.elicits) > 0 || t.def.ui != nil && t.def.ui.resourceURI != ""
	f.Type().Id(call).Struct(handleFields("ToolCall", needsCall)...)
	emitElicitMethods(f, call, t.elicits)
	emitPageMethod(f, call, t)

	fn := t.funcName()
	f.Commentf("// %s wires tool %s to h.", fn, name)
	var handlerBody []jen.Code
	handlerBody = append(handlerBody,
		jen.Var().Id("in").Add(typeExpr(t.input)),
		jen.If(jen.Err().Op(":=").Qual(runtimePkg, "DecodeArguments").Call(jen.Lit(name), jen.Id("args"), jen.Op("&").Id("in")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		),
	)
	handle := handleValue(call, "ToolCall", needsCall)
	if t.output != nil {
		handlerBody = append(handlerBody,
			jen.List(jen.Id("out"), jen.Err()).Op(":=").Id("h").Dot(t.goName).Call(jen.Id("ctx"), handle, jen.Id("in")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Qual(runtimePkg, "StructuredResult").Call(jen.Id("call"), jen.Id("out"))),
		)
	} else {
		handlerBody = append(handlerBody,
			jen.List(jen.Id("blocks"), jen.Err()).Op(":=").Id("h").Dot(t.goName).Call(jen.Id("ctx"), handle, jen.Id("in")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Qual(runtimePkg, "ContentResult").Call(jen.Id("call"), jen.Id("blocks")), jen.Nil()),
		)
	}
	f.Func().Id(fn).Params(jen.Id("h").Id("Handler")).Qual(runtimePkg, "Tool").Block(
		jen.Return(jen.Qual(runtimePkg, "Tool").ValuesFunc(func(g *jen.Group) {
			g.Line().Id("Name").Op(":").Lit(name)
			g.Line().Id("Definition").Op(":").Qual(jsonPkg, "RawMessage").Call(jen.Id(def))
			if len(t.elicits) > 0 {
				g.Line().Id("Elicitations").Op(":").Index().Op("*").Qual(runtimePkg, "Elicitation").ValuesFunc(func(g *jen.Group) {
					for _, e := range t.elicits {
						g.Id(e.varName())
					}
				})
			}
			if len(t.def.scopes) > 0 {
				g.Line().Id("Scopes").Op(":").Index().String().ValuesFunc(func(g *jen.Group) {
					for _, sc := range t.def.scopes {
						g.Lit(sc)
					}
				})
			}
			if t.def.singleUse {
				g.Line().Id("SingleUseState").Op(":").True()
			}
			g.Line().Id("Handler").Op(":").Func().Params(ctx(), jen.Id("call").Op("*").Qual(runtimePkg, "Call"), jen.Id("args").Qual(jsonPkg, "RawMessage")).
				Params(jen.Op("*").Qual(runtimePkg, "ToolResult"), jen.Error()).Block(handlerBody...)
			g.Line()
		})),
	)
	return f
}

func (g *gen) emitHandler() *jen.File {
	f := g.newFile()
	f.Add(comment(
		"This line fails to compile when the runtime is older than this generated code:",
		"upgrade github.com/mcpgen/mcpgen, or regenerate with the mcpgen version that matches it.",
	))
	f.Const().Id("_").Op("=").Qual(runtimePkg, "IsAtLeastVersion0_4_0")

	f.Add(comment(g.featureHandlerDoc(
		"Handler implements the tools of this package, one method per tool. Embed",
		"UnimplementedHandler in your implementation so that tools added later do not",
		"break the build.",
	)...))
	f.Type().Id("Handler").InterfaceFunc(func(ig *jen.Group) {
		for _, t := range g.tools {
			ig.Add(docWith(fmt.Sprintf("%s handles tool %s.", t.goName, t.def.name), t.docLines()))
			ig.Id(t.goName).Params(ctx(), jen.Id("call").Id(t.goName+"Call"), jen.Id("in").Add(typeExpr(t.input))).Params(t.results()...)
		}
		g.featureHandlerMethods(ig)
		g.skillHandlerMethods(ig)
	})
	f.Add(comment(g.featureHandlerDoc("UnimplementedHandler answers every tool with an error saying it is not implemented.")...))
	f.Type().Id("UnimplementedHandler").Struct()
	for _, t := range g.tools {
		zero := jen.Nil()
		if t.output != nil {
			zero = outputZero(t)
		}
		f.Commentf("// %s reports that tool %s is not implemented.", t.goName, t.def.name)
		f.Func().Params(jen.Id("UnimplementedHandler")).Id(t.goName).
			Params(jen.Qual("context", "Context"), jen.Id(t.goName+"Call"), typeExpr(t.input)).Params(t.results()...).Block(
			jen.Return(zero, jen.Qual("errors", "New").Call(jen.Lit(fmt.Sprintf("tool %q is not implemented", t.def.name)))),
		)
	}
	g.emitFeatureHandler(f)
	g.emitSkillHandler(f)

	f.Comment("// Register adds every tool of this package to s, answered by h, in the order of the")
	f.Comment("// input files, which is the order tools/list shows them in.")
	f.Func().Id("Register").Params(jen.Id("s").Op("*").Qual(runtimePkg, "Server"), jen.Id("h").Id("Handler")).Error().Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("t")).Op(":=").Range().Index().Qual(runtimePkg, "Tool").ValuesFunc(func(vg *jen.Group) {
			for _, t := range g.tools {
				vg.Line().Id(t.funcName()).Call(jen.Id("h"))
			}
			if len(g.tools) > 0 {
				vg.Line()
			}
		})).Block(
			jen.If(jen.Err().Op(":=").Id("s").Dot("AddTool").Call(jen.Id("t")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Err()),
			),
		),
		g.registerFeatures(),
		g.registerSkills(),
		g.registerApps(),
		g.registerTasks(),
		jen.Return(jen.Nil()),
	)

	return f
}
