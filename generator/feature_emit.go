package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

func (p *featurePart) emit(pc *packageCode) {
	var prompts, resources, templates, completes, lists bool
	for _, ft := range p.features {
		pc.files = append(pc.files, genFile{ft.file, func() *jen.File { return emitFeature(pc, ft, featureHandler(ft)) }})
		pc.methods = append(pc.methods, featureMethods(ft, featureMethodDoc(ft), jen.Op("*").Qual(runtimePkg, resultOf(ft)), nil)...)
		pc.adds = append(pc.adds, featureRegistration(ft))
		pc.calls = append(pc.calls, func(f *jen.File) { emitTestFeature(f, pc.importPath, ft) })
		prompts = prompts || ft.typ == kindPrompt
		resources = resources || ft.typ == kindResource && ft.hasMethod()
		templates = templates || ft.typ == kindTemplate
		completes = completes || len(ft.complete) > 0
		lists = lists || ft.list
	}
	for _, phrase := range []struct {
		has  bool
		text string
	}{
		{prompts, "each prompt"}, {resources, "each resource"}, {templates, "each resource template"},
		{completes, "each completable argument or template variable"},
		{lists, `listing the resources of a template marked "mcpgen.dev/list"`},
	} {
		if phrase.has {
			pc.handlerDoc = append(pc.handlerDoc, phrase.text)
		}
	}
}

// resultOf is the runtime result type of a feature's Handler method.
func resultOf(ft *featureIR) string {
	if ft.typ == kindPrompt {
		return "PromptResult"
	}
	return "ResourceResult"
}

// featureRegistration is what Register adds for a feature.
func featureRegistration(ft *featureIR) registration {
	r := registration{add: "AddPrompt", typ: "Prompt", what: "prompts", value: jen.Id(ft.funcName()).Call(jen.Id("h")), order: ft.order}
	switch ft.typ {
	case kindResource:
		r.add, r.typ, r.what = "AddResource", "Resource", "resources"
	case kindTemplate:
		r.add, r.typ, r.what = "AddResourceTemplate", "ResourceTemplate", "resource templates"
	}
	return r
}

// featureHandler is the runtime handler of a prompt, resource or template.
func featureHandler(ft *featureIR) jen.Code {
	if ft.embedded != nil {
		return fileAdapter(ft, jen.Op("&").Qual(runtimePkg, "ResourceResult").Values(jen.Dict{
			jen.Id("Contents"): jen.Index().Qual(runtimePkg, "ResourceContents").Values(jen.Values(jen.DictFunc(func(dict jen.Dict) {
				dict[jen.Id("URI")] = jen.Id(ft.uriName())
				if ft.mimeType != "" {
					dict[jen.Id("MIMEType")] = jen.Lit(ft.mimeType)
				}
				field := "Text"
				if !ft.embedded.text {
					field = "Blob"
				}
				dict[jen.Id(field)] = jen.Id(ft.fileVar())
			}))),
		}))
	}
	return adapter(ft)
}

// emitFeature writes a feature's file: its definition, its URI or
// arguments, its call handle and the function wiring it to h, whose
// runtime handler is handler.
func emitFeature(pc *packageCode, ft *featureIR, handler jen.Code) *jen.File {
	f := pc.newFile()
	listed := map[featureType]string{kindPrompt: "prompts/list", kindResource: "resources/list", kindTemplate: "resources/templates/list"}[ft.typ]
	f.Add(comment(fmt.Sprintf("%s is %s %s as %s advertises it: as written in %s, without mcpgen's own keys.",
		ft.definitionName(), ft.typ, ft.key, listed, ft.source)))
	f.Const().Id(ft.definitionName()).Op("=").Add(jsonText(string(ft.definition)))
	switch ft.typ {
	case kindPrompt:
		f.Commentf("// %s is the name of prompt %s, as prompts/get names it.", ft.nameConst(), ft.name)
	case kindResource:
		f.Commentf("// %s is the URI of resource %s.", ft.uriName(), ft.name)
	case kindTemplate:
		f.Commentf("// %s is the URI template of resource template %s.", ft.nameConst(), ft.name)
	}
	f.Const().Id(ft.nameConst()).Op("=").Lit(ft.key)
	if ft.embedded != nil {
		emitResourceFile(f, ft)
	}
	if ft.hasArgs() {
		emitArgs(f, ft)
	}
	if ft.typ == kindTemplate {
		emitTemplateURI(f, ft)
	}
	if ft.hasMethod() {
		emitFeatureCall(f, ft)
	}
	typ := [...]string{"Prompt", "Resource", "ResourceTemplate"}[ft.typ]
	f.Commentf("// %s wires %s %s to h.", ft.funcName(), ft.typ, ft.key)
	f.Func().Id(ft.funcName()).Params(jen.Id("h").Id("Handler")).Qual(runtimePkg, typ).Block(
		jen.Return(jen.Qual(runtimePkg, typ).ValuesFunc(func(vg *jen.Group) {
			vg.Line().Id([...]string{"Name", "URI", "URITemplate"}[ft.typ]).Op(":").Id(ft.nameConst())
			vg.Line().Id("Definition").Op(":").Qual(jsonPkg, "RawMessage").Call(jen.Id(ft.definitionName()))
			if len(ft.elicits) > 0 {
				vg.Line().Id("Elicitations").Op(":").Index().Op("*").Qual(runtimePkg, "Elicitation").ValuesFunc(func(eg *jen.Group) {
					for _, e := range ft.elicits {
						eg.Id(e.varName())
					}
				})
			}
			vg.Line().Id("Handler").Op(":").Add(handler)
			if ft.list {
				vg.Line().Id("List").Op(":").Id("h").Dot(ft.listMethod())
			}
			if len(ft.complete) > 0 {
				vg.Line().Id("Complete").Op(":").Map(jen.String()).Qual(runtimePkg, "CompletionHandler").Values(jen.DictFunc(func(dict jen.Dict) {
					for _, c := range ft.complete {
						dict[jen.Lit(c)] = jen.Id("h").Dot(ft.completeMethod(ft.arg(c)))
					}
				}))
			}
			if len(ft.scopes) > 0 {
				vg.Line().Id("Scopes").Op(":").Index().String().ValuesFunc(func(sg *jen.Group) {
					for _, sc := range ft.scopes {
						sg.Lit(sc)
					}
				})
			}
			if c := ft.cache; c != nil {
				scope := "CachePublic"
				if c.private {
					scope = "CachePrivate"
				}
				vg.Line().Id("Cache").Op(":").Op("&").Qual(runtimePkg, "CacheHint").Values(jen.Dict{
					jen.Id("TTL"):   jen.Lit(int(c.ttlMs)).Op("*").Qual("time", "Millisecond"),
					jen.Id("Scope"): jen.Qual(runtimePkg, scope),
				})
			}
			vg.Line()
		})),
	)
	return f
}

// emitArgs writes a prompt's arguments struct (required arguments as
// values, optional ones as pointers) or a template's params struct (list
// variables as slices, optional ones as pointers).
func emitArgs(f *jen.File, ft *featureIR) {
	first := fmt.Sprintf("%s are the arguments of prompt %s; an optional argument the client left out is nil.", ft.argsName(), ft.name)
	if ft.typ == kindTemplate {
		first = fmt.Sprintf("%s are the variables of URI template %s, from the URI being read; an optional "+
			"variable the URI leaves out is nil.", ft.argsName(), ft.key)
	}
	f.Add(comment(first))
	f.Type().Id(ft.argsName()).StructFunc(func(sg *jen.Group) {
		for _, a := range ft.args {
			lines := a.description
			if ft.typ == kindTemplate {
				lines = []string{fmt.Sprintf("%s is variable %s.", a.goName, a.name)}
			}
			if len(lines) > 0 {
				sg.Add(comment(lines...))
			}
			sg.Id(a.goName).Add(argType(a))
		}
	})
}

func argType(a argIR) *jen.Statement {
	switch {
	case a.list:
		return jen.Index().String()
	case a.required:
		return jen.String()
	}
	return jen.Op("*").String()
}

// adapter is the runtime handler that decodes the arguments or variables
// and calls the Handler method.
func adapter(ft *featureIR) *jen.Statement {
	handle := handleValue(ft.callName(), "FeatureCall", len(ft.elicits) > 0)
	var body []jen.Code
	src := "args"
	if ft.typ == kindTemplate {
		src = "vars"
	}
	if ft.hasArgs() {
		body = append(body, jen.Id("in").Op(":=").Id(ft.argsName()).Values(jen.DictFunc(func(dict jen.Dict) {
			for _, a := range ft.args {
				switch {
				case a.list:
					dict[jen.Id(a.goName)] = jen.Id(src).Index(jen.Lit(a.name))
				case a.required && ft.typ == kindTemplate:
					dict[jen.Id(a.goName)] = jen.Id(src).Dot("Get").Call(jen.Lit(a.name))
				case a.required:
					dict[jen.Id(a.goName)] = jen.Id(src).Index(jen.Lit(a.name))
				}
			}
		})))
		for _, a := range ft.args {
			if a.list || a.required {
				continue
			}
			if ft.typ == kindTemplate {
				body = append(body, jen.If(jen.Id("v").Op(":=").Id(src).Index(jen.Lit(a.name)), jen.Len(jen.Id("v")).Op(">").Lit(0)).Block(
					jen.Id("in").Dot(a.goName).Op("=").Op("&").Id("v").Index(jen.Lit(0)),
				))
				continue
			}
			body = append(body, jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id(src).Index(jen.Lit(a.name)), jen.Id("ok")).Block(
				jen.Id("in").Dot(a.goName).Op("=").Op("&").Id("v"),
			))
		}
	}
	callArgs := []jen.Code{jen.Id("ctx"), handle}
	if ft.typ == kindTemplate {
		callArgs = append(callArgs, jen.Id("uri"))
	}
	if ft.hasArgs() {
		callArgs = append(callArgs, jen.Id("in"))
	}
	body = append(body, jen.Return(jen.Id("h").Dot(ft.method()).Call(callArgs...)))
	call := jen.Id("call").Op("*").Qual(runtimePkg, "Call")
	switch ft.typ {
	case kindPrompt:
		a := jen.Id("_")
		if len(ft.args) > 0 {
			a = jen.Id("args")
		}
		return jen.Func().Params(ctx(), call, a.Map(jen.String()).String()).
			Params(jen.Op("*").Qual(runtimePkg, "PromptResult"), jen.Error()).Block(body...)
	case kindResource:
		return jen.Func().Params(ctx(), call, jen.Id("_").String()).
			Params(jen.Op("*").Qual(runtimePkg, "ResourceResult"), jen.Error()).Block(body...)
	}
	return jen.Func().Params(ctx(), call, jen.Id("uri").String(), jen.Id("vars").Qual(runtimePkg, "URIVars")).
		Params(jen.Op("*").Qual(runtimePkg, "ResourceResult"), jen.Error()).Block(body...)
}

// fileAdapter is the runtime handler of a resource served from its file,
// answering result.
func fileAdapter(ft *featureIR, result jen.Code) *jen.Statement {
	return jen.Func().Params(jen.Qual("context", "Context"), jen.Op("*").Qual(runtimePkg, "Call"), jen.String()).
		Params(jen.Op("*").Qual(runtimePkg, "ResourceResult"), jen.Error()).Block(jen.Return(result, jen.Nil()))
}

// emitResourceFile writes the go:embed variable of a resource's file.
func emitResourceFile(f *jen.File, ft *featureIR) {
	rf := ft.embedded
	f.Anon("embed")
	typ := jen.String()
	if !rf.text {
		typ = jen.Index().Byte()
	}
	f.Add(comment(
		fmt.Sprintf("%s is %s, embedded: the contents of %s. mcpgen generated this file from the "+
			"version with SHA-256 %s, so generate --check fails once the file changes; regenerate then.",
			ft.fileVar(), rf.embed, ft.key, rf.sum),
		"",
	))
	f.Comment("//go:embed " + rf.embed)
	f.Var().Id(ft.fileVar()).Add(typ)
}

// emitFeatureCall writes the call handle: runtime.FeatureCall plus exactly the
// elicitations the feature declares.
func emitFeatureCall(f *jen.File, ft *featureIR) {
	call := ft.callName()
	f.Add(comment(fmt.Sprintf("%s is the handle of one %s of %s %s: progress, logging, sampling, roots, "+
		"and the elicitations it declares. Asking for an elicitation it does not declare is a compile error.",
		call, map[featureType]string{kindPrompt: "prompts/get", kindResource: "resources/read", kindTemplate: "resources/read"}[ft.typ],
		ft.typ, ft.key)))
	f.Type().Id(call).Struct(handleFields("FeatureCall", len(ft.elicits) > 0)...)
	emitElicitMethods(f, call, ft.elicits)
}

// featureMethodDoc is the first doc line of a feature's Handler method.
func featureMethodDoc(ft *featureIR) string {
	switch ft.typ {
	case kindResource:
		return fmt.Sprintf("%s answers resources/read of %s (resource %s).", ft.method(), ft.key, ft.name)
	case kindTemplate:
		return fmt.Sprintf("%s answers resources/read of a URI matching %s (resource template %s); "+
			"return runtime.ErrResourceNotFound when there is nothing at uri.", ft.method(), ft.key, ft.name)
	}
	return fmt.Sprintf("%s answers prompts/get of prompt %s.", ft.method(), ft.name)
}

// featureMethods are the Handler methods a feature brings: the one
// answering it (first, its first doc line, returning result and an error;
// UnimplementedHandler returns zero, or nil), its listing and its
// completions.
func featureMethods(ft *featureIR, first string, result, zero jen.Code) []handlerMethod {
	params := []jen.Code{ctx(), jen.Id("call").Id(ft.callName())}
	anon := []jen.Code{jen.Qual("context", "Context"), jen.Id(ft.callName())}
	if ft.typ == kindTemplate {
		params = append(params, jen.Id("uri").String())
		anon = append(anon, jen.String())
	}
	if ft.hasArgs() {
		params = append(params, jen.Id("in").Id(ft.argsName()))
		anon = append(anon, jen.Id(ft.argsName()))
	}
	doc := []string{first}
	if len(ft.description) > 0 {
		doc = append(append(doc, ""), ft.description...)
	}
	// notImplemented is UnimplementedHandler's error: format with %q
	// standing for the feature's name constant, then for args.
	notImplemented := func(format string, args ...jen.Code) jen.Code {
		return jen.Qual("fmt", "Errorf").Call(append([]jen.Code{jen.Lit(format + " is not implemented")}, args...)...)
	}
	var out []handlerMethod
	if ft.hasMethod() {
		out = append(out, handlerMethod{name: ft.method(), doc: doc, params: params, anon: anon,
			result: []jen.Code{result, jen.Error()}, what: fmt.Sprintf("%s %q", ft.typ, ft.key),
			notImplemented: notImplemented(ft.typ.String()+" %q", jen.Id(ft.nameConst())), zero: zero})
	}
	if ft.list {
		out = append(out, handlerMethod{name: ft.listMethod(),
			doc:    []string{fmt.Sprintf("%s lists the resources of template %s that exist now, for resources/list.", ft.listMethod(), ft.key)},
			params: []jen.Code{ctx()}, anon: []jen.Code{jen.Qual("context", "Context")},
			result:         []jen.Code{jen.Index().Qual(runtimePkg, "ResourceInfo"), jen.Error()},
			what:           fmt.Sprintf("listing of resource template %q", ft.key),
			notImplemented: notImplemented("listing of resource template %q", jen.Id(ft.nameConst()))})
	}
	for _, c := range ft.complete {
		a := ft.arg(c)
		kind := "argument"
		if ft.typ == kindTemplate {
			kind = "variable"
		}
		what := fmt.Sprintf("completion of %s %q of %s %q", kind, c, ft.typ, ft.key)
		err := notImplemented("completion of "+kind+" %q of "+ft.typ.String()+" %q", jen.Lit(c), jen.Id(ft.nameConst()))
		out = append(out, handlerMethod{name: ft.completeMethod(a),
			doc: []string{fmt.Sprintf("%s suggests values for %s %s of %s %s, for completion/complete.",
				ft.completeMethod(a), kind, c, ft.typ, ft.key)},
			params: []jen.Code{ctx(), jen.Id("req").Qual(runtimePkg, "CompletionRequest")},
			anon:   []jen.Code{jen.Qual("context", "Context"), jen.Qual(runtimePkg, "CompletionRequest")},
			result: []jen.Code{jen.Op("*").Qual(runtimePkg, "Completion"), jen.Error()},
			what:   what, notImplemented: err})
	}
	return out
}

// emitTestFeature writes the test client's methods of a feature: the one
// getting or reading it, and one per completion.
func emitTestFeature(f *jen.File, importPath string, ft *featureIR) {
	id := jen.Id
	q := func(name string) *jen.Statement { return jen.Qual(importPath, name) }
	recv := jen.Params(id("c").Op("*").Id("Client"))
	params := []jen.Code{ctx()}
	if ft.hasArgs() {
		params = append(params, id("in").Add(q(ft.argsName())))
	}
	switch ft.typ {
	case kindPrompt:
		f.Add(comment(fmt.Sprintf("%s gets prompt %s with the arguments in.%s", ft.method(), ft.name, asks(ft.elicits))))
		var stmts []jen.Code
		args := jen.Nil()
		if len(ft.args) > 0 {
			args = id("args")
			stmts = append(stmts, id("args").Op(":=").Map(jen.String()).String().Values(jen.DictFunc(func(dict jen.Dict) {
				for _, a := range ft.args {
					if a.required {
						dict[jen.Lit(a.name)] = id("in").Dot(a.goName)
					}
				}
			})))
			for _, a := range ft.args {
				if !a.required {
					stmts = append(stmts, jen.If(id("in").Dot(a.goName).Op("!=").Nil()).Block(
						id("args").Index(jen.Lit(a.name)).Op("=").Op("*").Id("in").Dot(a.goName)))
				}
			}
		}
		stmts = append(stmts, jen.Return(id("c").Dot("Client").Dot("GetPrompt").Call(id("ctx"), q(ft.nameConst()), args)))
		f.Func().Add(recv).Id(ft.method()).Params(params...).Params(jen.Op("*").Qual(mcptestPkg, "PromptResult"), jen.Error()).Block(stmts...)
	case kindResource:
		f.Add(comment(fmt.Sprintf("%s reads resource %s (%s).%s", ft.method(), ft.name, ft.key, asks(ft.elicits))))
		f.Func().Add(recv).Id(ft.method()).Params(params...).Params(jen.Op("*").Qual(mcptestPkg, "ResourceResult"), jen.Error()).Block(
			jen.Return(id("c").Dot("Client").Dot("ReadResource").Call(id("ctx"), q(ft.uriName()))),
		)
	case kindTemplate:
		first := fmt.Sprintf("%s reads the resource of template %s whose variables are in", ft.method(), ft.key)
		for _, a := range ft.args {
			if !a.list && !a.required {
				first += " (a nil optional variable is left out of the URI)"
				break
			}
		}
		f.Add(comment(first + "." + asks(ft.elicits)))
		stmts := []jen.Code{id("vars").Op(":=").Map(jen.String()).Index().String().Values(jen.DictFunc(func(dict jen.Dict) {
			for _, a := range ft.args {
				switch {
				case a.list:
					dict[jen.Lit(a.name)] = id("in").Dot(a.goName)
				case a.required:
					dict[jen.Lit(a.name)] = jen.Values(id("in").Dot(a.goName))
				}
			}
		}))}
		for _, a := range ft.args {
			if !a.list && !a.required {
				stmts = append(stmts, jen.If(id("in").Dot(a.goName).Op("!=").Nil()).Block(
					id("vars").Index(jen.Lit(a.name)).Op("=").Index().String().Values(jen.Op("*").Id("in").Dot(a.goName))))
			}
		}
		stmts = append(stmts,
			jen.List(id("uri"), jen.Err()).Op(":=").Qual(mcptestPkg, "ExpandURITemplate").Call(q(ft.nameConst()), id("vars")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(id("c").Dot("Client").Dot("ReadResource").Call(id("ctx"), id("uri"))),
		)
		f.Func().Add(recv).Id(ft.method()).Params(params...).Params(jen.Op("*").Qual(mcptestPkg, "ResourceResult"), jen.Error()).Block(stmts...)
	}
	for _, c := range ft.complete {
		a := ft.arg(c)
		what, ref := "argument", jen.Qual(mcptestPkg, "PromptRef").Call(q(ft.nameConst()))
		if ft.typ == kindTemplate {
			what, ref = "variable", jen.Qual(mcptestPkg, "TemplateRef").Call(q(ft.nameConst()))
		}
		f.Add(comment(fmt.Sprintf("%s asks completion/complete for %s %s of %s %s, given what the user typed "+
			"(value) and the other %ss already chosen (chosen, or nil).", ft.completeMethod(a), what, c, ft.typ, ft.key, what)))
		f.Func().Add(recv).Id(ft.completeMethod(a)).Params(ctx(), id("value").String(), id("chosen").Map(jen.String()).String()).
			Params(jen.Op("*").Qual(runtimePkg, "Completion"), jen.Error()).Block(
			jen.Return(id("c").Dot("Client").Dot("Complete").Call(id("ctx"), ref, jen.Lit(c), id("value"), id("chosen"))),
		)
	}
}
