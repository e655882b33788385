package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// The typed test client. For a package with a known import path, the
// generator also writes the sibling package <pkg>test (notes ->
// notes/notestest), importable from any test and from no production code:
// a Client wrapping mcptest.Client with one typed method per tool, prompt,
// resource, template read and completion, typed answers per form (the
// generated answer structs, or decline and cancel), and Run, which runs a
// test in every protocol era.

const mcptestPkg = "github.com/mcpgen/mcpgen/mcptest"

// TestClientFile is the file of the typed test client, relative to the
// generated package's folder.
func TestClientFile(pkg string) string { return pkg + "test/mcpgen_client.go" }

// answerMethods are the test client's methods that answer a form:
// Answer (or, for URL mode, Accept), Decline and Cancel.
func (e *elicitIR) answerMethods() []string {
	if e.def.mode == "url" {
		return []string{"Accept" + e.goName, "Decline" + e.goName, "Cancel" + e.goName}
	}
	return []string{"Answer" + e.goName, "Decline" + e.goName, "Cancel" + e.goName}
}

// embeddedClient is the test client's embedded *mcptest.Client, a field no
// method may be named after.
const embeddedClient = "Client"

// checkTestClient reports test client methods that would not compile: a
// form's answer method named like another method, or any method named like
// the embedded client. (The Handler's own names are checked with the
// Handler.)
func (g *gen) checkTestClient() {
	if g.importPath == "" {
		return
	}
	taken := map[string]place{}
	claim := func(m string, at place, hint, what string) {
		switch first, ok := taken[m]; {
		case m == embeddedClient:
			g.rep.errorf(at, hint, "%s gets the test client method %s, the name of the client's embedded mcptest.Client", what, m)
		case ok:
			g.rep.errorf(at, hint, "%s gets the test client method %s, like %s", what, m, first)
		default:
			taken[m] = at
		}
	}
	goNameHint := fmt.Sprintf(`set _meta[%q]`, metaGoName)
	for _, t := range g.tools {
		claim(t.goName, place{t.def.at.src, t.def.at.node.Get("name")}, goNameHint, fmt.Sprintf("tool %q", t.def.name))
	}
	for _, ft := range g.features {
		at := place{ft.def.at.src, ft.def.at.node.Get("name")}
		what := fmt.Sprintf("%s %q", ft.def.kind, ft.def.key)
		claim(ft.method(), at, goNameHint, what)
		for _, c := range ft.def.complete {
			claim(ft.completeMethod(ft.arg(c)), at, goNameHint, what)
		}
	}
	for _, e := range g.order {
		at := place{e.def.at.src, e.def.at.node.Get("name")}
		for _, m := range e.answerMethods() {
			claim(m, at, `set "x-go-name" in the elicitation file, or rename the other`, fmt.Sprintf("elicitation %q", e.def.name))
		}
	}
}

// emitTestClient renders <pkg>test/mcpgen_client.go.
func (g *gen) emitTestClient() *jen.File {
	pkg := g.pkg
	f := jen.NewFile(pkg + "test")
	f.HeaderComment(Header)
	f.ImportName(runtimePkg, "runtime")
	f.ImportName(mcptestPkg, "mcptest")
	f.ImportAlias(g.importPath, pkg)
	var doc []string
	for _, l := range wrapLine(fmt.Sprintf("Package %stest tests the server of package %s the way a client calls it, "+
		"with the types of package %[2]s: Client has a method per tool, prompt, resource, template and completion, "+
		"and typed answers to the forms; Run runs a test in every protocol era.", pkg, pkg), commentWidth) {
		doc = append(doc, "// "+l)
	}
	f.PackageComment(strings.Join(doc, "\n"))
	q := func(name string) *jen.Statement { return jen.Qual(g.importPath, name) }
	id := jen.Id

	f.Add(comment(fmt.Sprintf("Client is an mcptest.Client with the typed calls and answers of package %s.", pkg)))
	f.Type().Id("Client").Struct(jen.Op("*").Qual(mcptestPkg, "Client"))
	f.Add(comment(fmt.Sprintf("New wraps c, and tells it the forms of package %s, so that it can name the questions "+
		"a session's handlers ask (they carry no name on the wire).", pkg)))
	f.Func().Id("New").Params(id("c").Op("*").Qual(mcptestPkg, "Client")).Op("*").Id("Client").Block(
		id("c").Dot("DeclareForms").Call(id("forms").Op("...")),
		jen.Return(jen.Op("&").Id("Client").Values(jen.Dict{id("Client"): id("c")})),
	)
	f.Add(comment("Run is mcptest.Run with a typed client: body runs once per protocol era, as subtests named by "+
		"version, each with a server of its own from newServer.", "",
		"In 2026-07-28 a handler that asks a question runs again from the top with the answer; when such a "+
			"subtest fails, its log names the calls that ran again and the questions that made them."))
	body := id("body")
	f.Func().Id("Run").Params(
		id("t").Op("*").Qual("testing", "T"),
		id("newServer").Func().Params(id("t").Op("*").Qual("testing", "T")).Op("*").Qual(runtimePkg, "Server"),
		body.Clone().Func().Params(id("t").Op("*").Qual("testing", "T"), id("c").Op("*").Id("Client")),
		id("opts").Op("...").Qual(mcptestPkg, "Option"),
	).Block(
		id("t").Dot("Helper").Call(),
		jen.Qual(mcptestPkg, "Run").Call(id("t"), id("newServer"),
			jen.Func().Params(id("t").Op("*").Qual("testing", "T"), id("c").Op("*").Qual(mcptestPkg, "Client")).Block(
				id("body").Call(id("t"), id("New").Call(id("c"))),
			), id("opts").Op("...")),
	)

	f.Add(comment(fmt.Sprintf("forms are the elicitations of package %s as the server sends them.", pkg)))
	f.Var().Id("forms").Op("=").Index().Qual(mcptestPkg, "Form").ValuesFunc(func(vg *jen.Group) {
		for _, e := range g.order {
			fields := []jen.Code{id("Name").Op(":").Lit(e.def.name), id("Mode").Op(":").Lit(e.def.mode)}
			if e.def.schema != nil {
				// Compact: the client compares it with what it receives as JSON values.
				var schema bytes.Buffer
				_ = json.Compact(&schema, stripOverrides(e.def.at.src.doc, e.def.schema))
				fields = append(fields, id("RequestedSchema").Op(":").Qual(jsonPkg, "RawMessage").Call(jen.Lit(schema.String())))
			}
			vg.Line().Values(fields...)
		}
		if len(g.order) > 0 {
			vg.Line()
		}
	})

	for _, t := range g.tools {
		g.emitTestTool(f, t)
	}
	for _, ft := range g.features {
		g.emitTestFeature(f, ft, q)
	}
	for _, e := range g.order {
		g.emitTestAnswers(f, e)
	}
	return f
}

// asks is the sentence of a doc comment naming the forms a handler may ask.
func asks(elicits []*elicitIR) string {
	if len(elicits) == 0 {
		return ""
	}
	var names []string
	for _, e := range elicits {
		ms := e.answerMethods()
		names = append(names, fmt.Sprintf("%s (%s, %s or %s)", e.def.name, ms[0], ms[1], ms[2]))
	}
	return " Its handler may ask " + strings.Join(names, ", ") + "."
}

func (g *gen) emitTestTool(f *jen.File, t *toolIR) {
	id := jen.Id
	call := id("res").Op(",").Err().Op(":=").Id("c").Dot("Client").Dot("CallTool").Call(id("ctx"), jen.Lit(t.def.name), id("in"))
	if t.output == nil {
		f.Add(comment(fmt.Sprintf("%s calls tool %s and returns its content; an isError result is also a "+
			"*mcptest.ToolError.%s", t.goName, t.def.name, asks(t.elicits))))
		f.Func().Params(id("c").Op("*").Id("Client")).Id(t.goName).Params(ctx(), id("in").Add(qualifiedType(t.input, g.importPath))).
			Params(jen.Qual(mcptestPkg, "Content"), jen.Error()).Block(
			call,
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(id("res").Dot("Content"), id("res").Dot("Err").Call()),
		)
		return
	}
	decode := "DecodeOutput"
	if !wireObjectRoot(t.def.output) {
		decode = "DecodeValueOutput" // sessions of 2025-11-25 and earlier get it as {"result": value}
	}
	f.Add(comment(fmt.Sprintf("%s calls tool %s and returns its structured output; an isError result is a "+
		"*mcptest.ToolError.%s", t.goName, t.def.name, asks(t.elicits))))
	f.Func().Params(id("c").Op("*").Id("Client")).Id(t.goName).Params(ctx(), id("in").Add(qualifiedType(t.input, g.importPath))).
		Params(id("out").Add(qualifiedType(t.output, g.importPath)), jen.Err().Error()).Block(
		call,
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(id("out"), jen.Err())),
		jen.Err().Op("=").Id("res").Dot(decode).Call(jen.Op("&").Id("out")),
		jen.Return(id("out"), jen.Err()),
	)
}

// wireObjectRoot reports whether an outputSchema's root says "type":
// "object", the runtime's test for output it sends unwrapped in every era.
func wireObjectRoot(n *jsontree.Node) bool {
	typ := n.Get("type")
	return n.Kind == jsontree.Object && typ != nil && typ.Kind == jsontree.String && typ.Str == "object"
}

func (g *gen) emitTestFeature(f *jen.File, ft *featureIR, q func(string) *jen.Statement) {
	id := jen.Id
	d := ft.def
	recv := jen.Params(id("c").Op("*").Id("Client"))
	params := []jen.Code{ctx()}
	if ft.hasArgs() {
		params = append(params, id("in").Add(q(ft.argsName())))
	}
	switch d.kind {
	case kindPrompt:
		f.Add(comment(fmt.Sprintf("%s gets prompt %s with the arguments in.%s", ft.method(), d.name, asks(ft.elicits))))
		var stmts []jen.Code
		args := jen.Nil()
		if len(d.args) > 0 {
			args = id("args")
			stmts = append(stmts, id("args").Op(":=").Map(jen.String()).String().Values(jen.DictFunc(func(dict jen.Dict) {
				for _, a := range d.args {
					if a.required {
						dict[jen.Lit(a.name)] = id("in").Dot(a.goName)
					}
				}
			})))
			for _, a := range d.args {
				if !a.required {
					stmts = append(stmts, jen.If(id("in").Dot(a.goName).Op("!=").Nil()).Block(
						id("args").Index(jen.Lit(a.name)).Op("=").Op("*").Id("in").Dot(a.goName)))
				}
			}
		}
		stmts = append(stmts, jen.Return(id("c").Dot("Client").Dot("GetPrompt").Call(id("ctx"), jen.Lit(d.name), args)))
		f.Func().Add(recv).Id(ft.method()).Params(params...).Params(jen.Op("*").Qual(mcptestPkg, "PromptResult"), jen.Error()).Block(stmts...)
	case kindResource:
		f.Add(comment(fmt.Sprintf("%s reads resource %s (%s).%s", ft.method(), d.name, d.key, asks(ft.elicits))))
		f.Func().Add(recv).Id(ft.method()).Params(params...).Params(jen.Op("*").Qual(mcptestPkg, "ResourceResult"), jen.Error()).Block(
			jen.Return(id("c").Dot("Client").Dot("ReadResource").Call(id("ctx"), q(ft.uriName()))),
		)
	case kindTemplate:
		first := fmt.Sprintf("%s reads the resource of template %s whose variables are in", ft.method(), d.key)
		for _, a := range d.args {
			if !a.list && !a.required {
				first += " (a nil optional variable is left out of the URI)"
				break
			}
		}
		f.Add(comment(first + "." + asks(ft.elicits)))
		stmts := []jen.Code{id("vars").Op(":=").Map(jen.String()).Index().String().Values(jen.DictFunc(func(dict jen.Dict) {
			for _, a := range d.args {
				switch {
				case a.list:
					dict[jen.Lit(a.name)] = id("in").Dot(a.goName)
				case a.required:
					dict[jen.Lit(a.name)] = jen.Values(id("in").Dot(a.goName))
				}
			}
		}))}
		for _, a := range d.args {
			if !a.list && !a.required {
				stmts = append(stmts, jen.If(id("in").Dot(a.goName).Op("!=").Nil()).Block(
					id("vars").Index(jen.Lit(a.name)).Op("=").Index().String().Values(jen.Op("*").Id("in").Dot(a.goName))))
			}
		}
		stmts = append(stmts,
			jen.List(id("uri"), jen.Err()).Op(":=").Qual(mcptestPkg, "ExpandURITemplate").Call(jen.Lit(d.key), id("vars")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(id("c").Dot("Client").Dot("ReadResource").Call(id("ctx"), id("uri"))),
		)
		f.Func().Add(recv).Id(ft.method()).Params(params...).Params(jen.Op("*").Qual(mcptestPkg, "ResourceResult"), jen.Error()).Block(stmts...)
	}
	for _, c := range d.complete {
		a := ft.arg(c)
		what, ref := "argument", jen.Qual(mcptestPkg, "PromptRef").Call(jen.Lit(d.name))
		if d.kind == kindTemplate {
			what, ref = "variable", jen.Qual(mcptestPkg, "TemplateRef").Call(jen.Lit(d.key))
		}
		f.Add(comment(fmt.Sprintf("%s asks completion/complete for %s %s of %s %s, given what the user typed "+
			"(value) and the other %ss already chosen (chosen, or nil).", ft.completeMethod(a), what, c, d.kind, d.key, what)))
		f.Func().Add(recv).Id(ft.completeMethod(a)).Params(ctx(), id("value").String(), id("chosen").Map(jen.String()).String()).
			Params(jen.Op("*").Qual(runtimePkg, "Completion"), jen.Error()).Block(
			jen.Return(id("c").Dot("Client").Dot("Complete").Call(id("ctx"), ref, jen.Lit(c), id("value"), id("chosen"))),
		)
	}
}

// emitTestAnswers writes a form's answer methods: Answer (accept with the
// answer struct), or for URL mode Accept (the user agrees to open the
// URL), and Decline and Cancel.
func (g *gen) emitTestAnswers(f *jen.File, e *elicitIR) {
	id := jen.Id
	ms := e.answerMethods()
	name := jen.Lit(e.def.name)
	recv := jen.Params(id("c").Op("*").Id("Client"))
	if e.def.mode == "url" {
		f.Add(comment(fmt.Sprintf("%s makes the client accept elicitation %s (URL mode: the user agrees to open the "+
			"URL) whenever the server asks it, from now on.", ms[0], e.def.name)))
		f.Func().Add(recv).Id(ms[0]).Params().Block(id("c").Dot("Client").Dot("Accept").Call(name, jen.Nil()))
	} else {
		f.Add(comment(fmt.Sprintf("%s makes the client accept form %s with answer whenever the server asks it, "+
			"from now on.", ms[0], e.def.name)))
		f.Func().Add(recv).Id(ms[0]).Params(id("answer").Add(qualifiedType(e.answer, g.importPath))).Block(
			id("c").Dot("Client").Dot("Accept").Call(name, id("answer")))
	}
	f.Add(comment(fmt.Sprintf("%s makes the client decline elicitation %s whenever the server asks it, from now on.", ms[1], e.def.name)))
	f.Func().Add(recv).Id(ms[1]).Params().Block(id("c").Dot("Client").Dot("Decline").Call(name))
	f.Add(comment(fmt.Sprintf("%s makes the client cancel (dismiss) elicitation %s whenever the server asks it, "+
		"from now on.", ms[2], e.def.name)))
	f.Func().Add(recv).Id(ms[2]).Params().Block(id("c").Dot("Client").Dot("Cancel").Call(name))
}
