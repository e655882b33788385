package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// emitURLElicitation writes the methods of a call handle for one declared
// URL-mode elicitation: ElicitX (ask the user to open a URL), NewX (a
// handle that can complete it later or list it in RequireURL) and RequireX
// (end the call until the user completed it: -32042 in 2025-11-25, an
// input_required round in 2026-07-28).
func emitURLElicitation(f *jen.File, call string, e *elicitIR) {
	name, v := e.goName, e.varName()
	f.Add(comment(append([]string{
		fmt.Sprintf("Elicit%s asks the user to open url (elicitation %s, URL mode); an empty "+
			"message uses the declared one. nil means the user agreed to open it, not that the "+
			"flow finished; runtime.ErrDeclined and runtime.ErrCancelled report the other answers.", name, e.name), ""},
		e.description...)...))
	f.Func().Params(jen.Id("c").Id(call)).Id("Elicit"+name).Params(ctx(), jen.List(jen.Id("message"), jen.Id("url")).String()).Error().Block(
		jen.Return(jen.Id("c").Dot("call").Dot("ElicitURL").Call(jen.Id("ctx"), jen.Id(v), jen.Id("message"), jen.Id("url"))),
	)
	f.Add(comment(
		fmt.Sprintf("New%s starts elicitation %s (URL mode) and returns its handle: ID is the "+
			"elicitationId to put in the URL (2025-11-25; empty in 2026-07-28), Ask sends it, and "+
			"Complete, or Ref with Server.CompleteURLElicitation on any replica, tells the client "+
			"the out-of-band step finished. A client without elicitation.url gets -32021.", name, e.name),
	))
	f.Func().Params(jen.Id("c").Id(call)).Id("New"+name).Params().Params(jen.Op("*").Qual(runtimePkg, "URLElicitation"), jen.Error()).Block(
		jen.Return(jen.Id("c").Dot("call").Dot("NewURLElicitation").Call(jen.Id(v))),
	)
	f.Add(comment(
		fmt.Sprintf("Require%s returns the error that ends the call until the user completed "+
			"elicitation %s at the URL that url builds from its handle (keep the handle's Ref to "+
			"complete it later): URLElicitationRequiredError, -32042, in 2025-11-25; in 2026-07-28, "+
			"which reserves -32042, an input_required round asking for the URL again on every "+
			"retry until the handler stops requiring it. An empty message uses the declared one.", name, e.name),
	))
	f.Func().Params(jen.Id("c").Id(call)).Id("Require"+name).Params(jen.Id("message").String(),
		jen.Id("url").Func().Params(jen.Op("*").Qual(runtimePkg, "URLElicitation")).String()).Error().Block(
		jen.List(jen.Id("h"), jen.Err()).Op(":=").Id("c").Dot("call").Dot("NewURLElicitation").Call(jen.Id(v)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Return(jen.Id("c").Dot("call").Dot("RequireURL").Call(jen.Qual(runtimePkg, "URLNeed").Values(jen.Dict{
			jen.Id("Elicitation"): jen.Id("h"),
			jen.Id("Message"):     jen.Id("message"),
			jen.Id("URL"):         jen.Id("url").Call(jen.Id("h")),
		}))),
	)
}
