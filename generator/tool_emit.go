package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

func (p *toolPart) emit(pc *packageCode) {
	apps := false
	for _, t := range p.tools {
		pc.files = append(pc.files, genFile{t.file, func() *jen.File { return emitTool(pc, t) }})
		zero := jen.Nil()
		if t.output != nil {
			zero = outputZero(t)
		}
		what := fmt.Sprintf("tool %s", t.name)
		first := fmt.Sprintf("%s handles tool %s.", t.goName, t.name)
		if t.output != nil {
			first += " Its output goes out as structuredContent, and as a JSON text block unless the handler " +
				"adds blocks of its own with call.AddContent (call.AddOutputJSON keeps the JSON block among them)."
		}
		doc := []string{first}
		if lines := t.docLines(); len(lines) > 0 {
			doc = append(append(doc, ""), lines...)
		}
		pc.methods = append(pc.methods, handlerMethod{name: t.goName, doc: doc,
			params: []jen.Code{ctx(), jen.Id("call").Id(t.callName()), jen.Id("in").Add(typeExpr(t.input))},
			anon:   []jen.Code{jen.Qual("context", "Context"), jen.Id(t.callName()), typeExpr(t.input)},
			result: t.results(), what: what, zero: zero,
			notImplemented: jen.Qual("fmt", "Errorf").Call(jen.Lit("tool %q is not implemented"), jen.Id(t.constName()))})
		pc.adds = append(pc.adds, registration{add: "AddTool", typ: "Tool", what: "tools", value: jen.Id(t.funcName()).Call(jen.Id("h")), order: t.order})
		pc.calls = append(pc.calls, func(f *jen.File) { emitTestTool(f, pc.importPath, t) })
		apps = apps || t.apps
	}
	if len(p.tools) > 0 {
		pc.handlerDoc = append(pc.handlerDoc, "each tool")
	}
	if apps {
		enableApps(pc)
	}
}

// results are the results of a tool's Handler method: its output type, or
// content blocks when it has no outputSchema, and an error.
func (t *toolIR) results() []jen.Code {
	if t.output != nil {
		return []jen.Code{typeExpr(t.output), jen.Error()}
	}
	return []jen.Code{jen.Index().Qual(runtimePkg, "Content"), jen.Error()}
}

// outputZero is the zero value of a tool's output type, for
// UnimplementedHandler: T{} for the struct of an object root, else *new(T).
func outputZero(t *toolIR) *jen.Statement {
	if t.objectOutput {
		return typeExpr(t.output).Values()
	}
	return jen.Op("*").New(typeExpr(t.output))
}

// docLines are the doc lines of a tool's Handler method after the first:
// its description, then a paragraph on its MCP Apps page and visibility.
func (t *toolIR) docLines() []string {
	lines := t.description
	if t.page == "" && !t.appOnly {
		return lines
	}
	if len(lines) > 0 {
		lines = append(append([]string(nil), lines...), "")
	}
	if t.page != "" {
		lines = append(lines, fmt.Sprintf("Hosts with MCP Apps show its result in page %s; others show the "+
			"result's text, so keep that text meaningful.", t.page))
	}
	if t.appOnly {
		lines = append(lines, "It is app-only (visibility [\"app\"]): hosts keep it from the model and let "+
			"only the page call it. That is no access control, since any client may call it: require scopes "+
			"for what must be protected.")
	}
	return lines
}

func emitTool(pc *packageCode, t *toolIR) *jen.File {
	f := pc.newFile()
	name, def, call := t.name, t.definitionName(), t.callName()
	f.Add(comment(fmt.Sprintf("%s is the name of tool %s: what tools/call names, and what an interceptor sees as "+
		"runtime.IncomingRequest.Name.", t.constName(), name)))
	f.Const().Id(t.constName()).Op("=").Lit(name)
	f.Add(comment(fmt.Sprintf("%s is tool %s as tools/list advertises it: as written in %s, without mcpgen's own keys.",
		def, name, t.source)))
	f.Const().Id(def).Op("=").Add(jsonText(string(t.definition)))
	for _, d := range t.decls {
		emitDecl(f, d)
	}

	f.Add(comment(
		fmt.Sprintf("%s is the handle of one %s call: progress, logging, sampling, roots, extra "+
			"content, state, and the elicitations the tool declares. Asking for an elicitation "+
			"the tool does not declare is a compile error.", call, name),
	))
	f.Type().Id(call).Struct(handleFields("ToolCall", t.needsCall())...)
	emitElicitMethods(f, call, t.elicits)
	emitPageMethod(f, call, t)

	adapter := "NewContentTool"
	if t.output != nil {
		adapter = "NewStructuredTool"
	}
	f.Commentf("// %s wires tool %s to h.", t.funcName(), name)
	f.Func().Id(t.funcName()).Params(jen.Id("h").Id("Handler")).Qual(runtimePkg, "Tool").Block(
		jen.Return(jen.Qual(runtimePkg, adapter).Call(
			jen.Qual(runtimePkg, "Tool").ValuesFunc(func(g *jen.Group) {
				g.Line().Id("Name").Op(":").Id(t.constName())
				g.Line().Id("Definition").Op(":").Qual(jsonPkg, "RawMessage").Call(jen.Id(def))
				if len(t.elicits) > 0 {
					g.Line().Id("Elicitations").Op(":").Index().Op("*").Qual(runtimePkg, "Elicitation").ValuesFunc(func(g *jen.Group) {
						for _, e := range t.elicits {
							g.Id(e.varName())
						}
					})
				}
				if len(t.scopes) > 0 {
					g.Line().Id("Scopes").Op(":").Index().String().ValuesFunc(func(g *jen.Group) {
						for _, sc := range t.scopes {
							g.Lit(sc)
						}
					})
				}
				if t.singleUse {
					g.Line().Id("SingleUseState").Op(":").True()
				}
				g.Line()
			}),
			jen.Func().Params(jen.Id("call").Op("*").Qual(runtimePkg, "Call")).Id(call).Block(
				jen.Return(handleValue(call, "ToolCall", t.needsCall())),
			),
			jen.Id("h").Dot(t.goName),
		)),
	)
	return f
}

// emitPageMethod writes HostRendersPage on the call handle of a tool that
// names a page.
func emitPageMethod(f *jen.File, call string, t *toolIR) {
	if t.page == "" {
		return
	}
	f.Add(comment(fmt.Sprintf("HostRendersPage reports whether the client renders %s: it declared MCP Apps "+
		"(io.modelcontextprotocol/ui) for %s. Other hosts show only the result's text, so write it for a "+
		"reader when this is false.", t.page, appMIMEType)))
	f.Func().Params(jen.Id("c").Id(call)).Id("HostRendersPage").Params().Bool().Block(
		jen.Return(jen.Qual(appsPkg, "HostRendersPages").Call(jen.Id("c").Dot("call"))),
	)
}

// emitTestTool writes the test client's method calling a tool.
func emitTestTool(f *jen.File, importPath string, t *toolIR) {
	id := jen.Id
	call := id("res").Op(",").Err().Op(":=").Id("c").Dot("Client").Dot("CallTool").Call(id("ctx"), jen.Qual(importPath, t.constName()), id("in"))
	if t.output == nil {
		f.Add(comment(fmt.Sprintf("%s calls tool %s and returns its content; an isError result is also a "+
			"*mcptest.ToolError.%s", t.goName, t.name, asks(t.elicits))))
		f.Func().Params(id("c").Op("*").Id("Client")).Id(t.goName).Params(ctx(), id("in").Add(qualifiedType(t.input, importPath))).
			Params(jen.Qual(mcptestPkg, "Content"), jen.Error()).Block(
			call,
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(id("res").Dot("Content"), id("res").Dot("Err").Call()),
		)
		return
	}
	decode := "DecodeOutput"
	if !t.wireObject {
		decode = "DecodeValueOutput" // sessions of 2025-11-25 and earlier get it as {"result": value}
	}
	with := t.goName + "WithContent"
	out := qualifiedType(t.output, importPath)
	f.Add(comment(fmt.Sprintf("%s calls tool %s and returns its structured output; an isError result is a "+
		"*mcptest.ToolError.%s", t.goName, t.name, asks(t.elicits))))
	f.Func().Params(id("c").Op("*").Id("Client")).Id(t.goName).Params(ctx(), id("in").Add(qualifiedType(t.input, importPath))).
		Params(out.Clone(), jen.Error()).Block(
		jen.List(id("out"), id("_"), jen.Err()).Op(":=").Id("c").Dot(with).Call(id("ctx"), id("in")),
		jen.Return(id("out"), jen.Err()),
	)
	f.Add(comment(fmt.Sprintf("%s calls tool %s and returns its structured output and the content blocks beside it: "+
		"the output's JSON as text, or the blocks its handler chose. An isError result is a *mcptest.ToolError, "+
		"its content the error's text and the blocks the handler added before it failed.", with, t.name)))
	f.Func().Params(id("c").Op("*").Id("Client")).Id(with).Params(ctx(), id("in").Add(qualifiedType(t.input, importPath))).
		Params(id("out").Add(out), id("content").Qual(mcptestPkg, "Content"), jen.Err().Error()).Block(
		call,
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(id("out"), jen.Nil(), jen.Err())),
		jen.Err().Op("=").Id("res").Dot(decode).Call(jen.Op("&").Id("out")),
		jen.Return(id("out"), id("res").Dot("Content"), jen.Err()),
	)
}
