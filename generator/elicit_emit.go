package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

func (p *elicitPart) emit(pc *packageCode) {
	for _, e := range p.elicits {
		pc.files = append(pc.files, genFile{e.file, func() *jen.File { return emitElicitation(pc, e) }})
		fields := []jen.Code{jen.Id("Name").Op(":").Qual(pc.importPath, e.constName()), jen.Id("Mode").Op(":").Lit(e.mode)}
		if e.compact != nil {
			// Compact: the client compares it with what it receives as JSON values.
			fields = append(fields, jen.Id("RequestedSchema").Op(":").Qual(jsonPkg, "RawMessage").Call(jsonText(string(e.compact))))
		}
		pc.forms = append(pc.forms, jen.Values(fields...))
		pc.answers = append(pc.answers, func(f *jen.File) { emitTestAnswers(f, pc.importPath, e) })
	}
}

// emitElicitation writes an elicitation's file: its answer types and the
// runtime.Elicitation value its handles ask with.
func emitElicitation(pc *packageCode, e *elicitIR) *jen.File {
	f := pc.newFile()
	for _, d := range e.decls {
		emitDecl(f, d)
	}
	v := e.varName()
	f.Add(comment(fmt.Sprintf("%s is the name of elicitation %s, as call handles ask for it and the test client "+
		"answers it.", e.constName(), e.name)))
	f.Const().Id(e.constName()).Op("=").Lit(e.name)
	f.Add(docWith(fmt.Sprintf("%s declares the %s elicitation (%s mode).", v, e.name, e.mode), e.description))
	f.Var().Id(v).Op("=").Op("&").Qual(runtimePkg, "Elicitation").ValuesFunc(func(g *jen.Group) {
		g.Line().Id("Name").Op(":").Id(e.constName())
		g.Line().Id("Mode").Op(":").Lit(e.mode)
		g.Line().Id("Message").Op(":").Lit(e.message)
		if e.schema != nil {
			g.Line().Id("RequestedSchema").Op(":").Qual(jsonPkg, "RawMessage").Call(jsonText(string(e.schema)))
		}
		g.Line()
	})
	return f
}

// emitElicitMethods writes a call handle's methods for the elicitations
// it declares (a tool's, a prompt's or a resource's): ElicitX for a form,
// and ElicitX, NewX and RequireX for a URL (emitURLElicitation).
func emitElicitMethods(f *jen.File, call string, elicits []*elicitIR) {
	for _, e := range elicits {
		if e.mode == "url" {
			emitURLElicitation(f, call, e)
			continue
		}
		method := "Elicit" + e.goName
		f.Add(comment(append([]string{
			fmt.Sprintf("%s asks the user to fill in the %s form; an empty message uses "+
				"the declared one. A declined form returns runtime.ErrDeclined, a dismissed one "+
				"runtime.ErrCancelled (test with errors.Is).", method, e.name), ""},
			e.description...)...))
		f.Func().Params(jen.Id("c").Id(call)).Id(method).Params(ctx(), jen.Id("message").String()).Params(typeExpr(e.answer), jen.Error()).Block(
			jen.Var().Id("answer").Add(typeExpr(e.answer)),
			jen.Err().Op(":=").Id("c").Dot("call").Dot("Elicit").Call(jen.Id("ctx"), jen.Id(e.varName()), jen.Id("message"), jen.Op("&").Id("answer")),
			jen.Return(jen.Id("answer"), jen.Err()),
		)
	}
}

// asks is the sentence of a test client doc comment naming the forms a
// handler may ask.
func asks(elicits []*elicitIR) string {
	if len(elicits) == 0 {
		return ""
	}
	var names []string
	for _, e := range elicits {
		ms := e.answerMethods()
		names = append(names, fmt.Sprintf("%s (%s, %s or %s)", e.name, ms[0], ms[1], ms[2]))
	}
	return " Its handler may ask " + strings.Join(names, ", ") + "."
}

// emitTestAnswers writes a form's answer methods of the test client:
// Answer (accept with the answer struct), or for URL mode Accept (the user
// agrees to open the URL), and Decline and Cancel.
func emitTestAnswers(f *jen.File, importPath string, e *elicitIR) {
	id := jen.Id
	ms := e.answerMethods()
	name := jen.Qual(importPath, e.constName())
	recv := jen.Params(id("c").Op("*").Id("Client"))
	if e.mode == "url" {
		f.Add(comment(fmt.Sprintf("%s makes the client accept elicitation %s (URL mode: the user agrees to open the "+
			"URL) whenever the server asks it, from now on.", ms[0], e.name)))
		f.Func().Add(recv).Id(ms[0]).Params().Block(id("c").Dot("Client").Dot("Accept").Call(name, jen.Nil()))
	} else {
		f.Add(comment(fmt.Sprintf("%s makes the client accept form %s with answer whenever the server asks it, "+
			"from now on.", ms[0], e.name)))
		f.Func().Add(recv).Id(ms[0]).Params(id("answer").Add(qualifiedType(e.answer, importPath))).Block(
			id("c").Dot("Client").Dot("Accept").Call(name, id("answer")))
	}
	f.Add(comment(fmt.Sprintf("%s makes the client decline elicitation %s whenever the server asks it, from now on.", ms[1], e.name)))
	f.Func().Add(recv).Id(ms[1]).Params().Block(id("c").Dot("Client").Dot("Decline").Call(name))
	f.Add(comment(fmt.Sprintf("%s makes the client cancel (dismiss) elicitation %s whenever the server asks it, "+
		"from now on.", ms[2], e.name)))
	f.Func().Add(recv).Id(ms[2]).Params().Block(id("c").Dot("Client").Dot("Cancel").Call(name))
}
