package generator

import (
	"fmt"
	"path"
	"strings"

	"github.com/dave/jennifer/jen"
)

// featureIR is a prompt, resource or resource template ready to emit.
type featureIR struct {
	def     *featureDef
	goName  string
	file    string
	elicits []*elicitIR
}

// Names of what a feature declares.
func (f *featureIR) suffix() string {
	return [...]string{"Prompt", "Resource", "Template"}[f.def.kind]
}
func (f *featureIR) definitionName() string { return lowerFirst(f.goName + f.suffix() + "Definition") }
func (f *featureIR) funcName() string       { return lowerFirst(f.goName + f.suffix()) }
func (f *featureIR) callName() string       { return f.goName + f.suffix() + "Call" }

// argsName is the arguments struct of a prompt or the params struct of a template.
func (f *featureIR) argsName() string {
	if f.def.kind == kindPrompt {
		return f.goName + "PromptArgs"
	}
	return f.goName + "Params"
}

// uriName is the exported constant holding a resource's URI.
func (f *featureIR) uriName() string { return f.goName + "ResourceURI" }

// method is the Handler method that answers the feature.
func (f *featureIR) method() string {
	if f.def.kind == kindPrompt {
		return f.goName + "Prompt"
	}
	return "Read" + f.goName
}
func (f *featureIR) listMethod() string                  { return "List" + f.goName }
func (f *featureIR) completeMethod(a *featureArg) string { return "Complete" + f.goName + a.goName }

// hasArgs reports whether the handler method takes an arguments struct.
func (f *featureIR) hasArgs() bool { return f.def.kind == kindTemplate || len(f.def.args) > 0 }

func (f *featureIR) arg(name string) *featureArg {
	for i := range f.def.args {
		if f.def.args[i].name == name {
			return &f.def.args[i]
		}
	}
	return nil
}

// buildFeatures names every feature, reporting collisions of Go names and of
// Handler methods (with the tools' too).
func (g *gen) buildFeatures(m *model) {
	methods := map[string]place{}
	for _, t := range g.tools {
		methods[t.goName] = place{t.def.at.src, t.def.at.node.Get("name")}
	}
	for _, d := range m.features {
		ir := &featureIR{def: d, goName: d.goName}
		if ir.goName == "" {
			ir.goName = goName(d.name)
		}
		at := place{d.at.src, d.at.node.Get("name")}
		if d.goNameAt != nil {
			at = place{d.at.src, d.goNameAt}
		}
		hint := fmt.Sprintf(`set _meta[%q] on one of them`, metaGoName)
		if ir.goName == "" {
			g.rep.errorf(at, hint, "%s name %q makes no Go name", d.kind, d.name)
			continue
		}
		ir.file = "mcpgen_" + snake(ir.goName) + "_" + snake(ir.suffix()) + ".go"
		handle := ir.callName()
		if !ir.hasMethod() {
			handle = ir.fileVar()
		}
		ok := g.ns.claim(handle, at, hint)
		ok = ok && g.ns.claim(ir.definitionName(), at, hint)
		ok = ok && g.ns.claim(ir.funcName(), at, hint)
		if ok && ir.hasArgs() {
			ok = g.ns.claim(ir.argsName(), at, hint)
		}
		if ok && d.kind == kindResource {
			ok = g.ns.claim(ir.uriName(), at, hint)
		}
		if ok && d.kind == kindTemplate {
			ok = g.ns.claim(ir.templateURIName(), at, hint)
		}
		var names []string
		if ir.hasMethod() {
			names = append(names, ir.method())
		}
		if d.list {
			names = append(names, ir.listMethod())
		}
		for _, c := range d.complete {
			names = append(names, ir.completeMethod(ir.arg(c)))
		}
		for _, n := range names {
			if !ok {
				break
			}
			if first, dup := methods[n]; dup {
				g.rep.errorf(at, hint, "Handler method %s collides with the one made for %s", n, first)
				ok = false
			}
			methods[n] = at
		}
		if !ok {
			continue
		}
		for _, ref := range d.elicitRefs {
			if e := g.elicits[ref.Str]; e != nil {
				ir.elicits = append(ir.elicits, e)
			}
		}
		g.features = append(g.features, ir)
	}
}

// featureFile is a file to render.
type featureFile struct {
	name  string
	build func() *jen.File
}

func (g *gen) featureFiles() []featureFile {
	var out []featureFile
	for _, f := range g.features {
		out = append(out, featureFile{f.file, func() *jen.File { return g.emitFeature(f) }})
	}
	return out
}

func (g *gen) emitFeature(ft *featureIR) *jen.File {
	f := g.newFile()
	d := ft.def
	listed := map[featureKind]string{kindPrompt: "prompts/list", kindResource: "resources/list", kindTemplate: "resources/templates/list"}[d.kind]
	f.Add(comment(fmt.Sprintf("%s is %s %s as %s advertises it: as written in %s, without mcpgen's own keys.",
		ft.definitionName(), d.kind, d.key, listed, path.Base(d.at.src.path))))
	f.Const().Id(ft.definitionName()).Op("=").Lit(string(d.definition))
	if d.kind == kindResource {
		f.Commentf("// %s is the URI of resource %s.", ft.uriName(), d.name)
		f.Const().Id(ft.uriName()).Op("=").Lit(d.key)
	}
	if d.file != nil {
		emitResourceFile(f, ft)
	}
	if ft.hasArgs() {
		g.emitArgs(f, ft)
	}
	if d.kind == kindTemplate {
		emitTemplateURI(f, ft)
	}
	if ft.hasMethod() {
		g.emitFeatureCall(f, ft)
	}
	f.Commentf("// %s wires %s %s to h.", ft.funcName(), d.kind, d.key)
	f.Func().Id(ft.funcName()).Params(jen.Id("h").Id("Handler")).Qual(runtimePkg, [...]string{"Prompt", "Resource", "ResourceTemplate"}[d.kind]).Block(
		jen.Return(jen.Qual(runtimePkg, [...]string{"Prompt", "Resource", "ResourceTemplate"}[d.kind]).ValuesFunc(func(vg *jen.Group) {
			switch d.kind {
			case kindPrompt:
				vg.Line().Id("Name").Op(":").Lit(d.name)
			case kindResource:
				vg.Line().Id("URI").Op(":").Id(ft.uriName())
			case kindTemplate:
				vg.Line().Id("URITemplate").Op(":").Lit(d.key)
			}
			vg.Line().Id("Definition").Op(":").Qual(jsonPkg, "RawMessage").Call(jen.Id(ft.definitionName()))
			if len(ft.elicits) > 0 {
				vg.Line().Id("Elicitations").Op(":").Index().Op("*").Qual(runtimePkg, "Elicitation").ValuesFunc(func(eg *jen.Group) {
					for _, e := range ft.elicits {
						eg.Id(e.varName())
					}
				})
			}
			switch {
			case d.file != nil:
				vg.Line().Id("Handler").Op(":").Add(fileAdapter(ft))
			case ft.isPage():
				vg.Line().Id("Handler").Op(":").Add(pageAdapter(ft))
			default:
				vg.Line().Id("Handler").Op(":").Add(adapter(ft))
			}
			if d.list {
				vg.Line().Id("List").Op(":").Id("h").Dot(ft.listMethod())
			}
			if len(d.complete) > 0 {
				vg.Line().Id("Complete").Op(":").Map(jen.String()).Qual(runtimePkg, "CompletionHandler").Values(jen.DictFunc(func(dict jen.Dict) {
					for _, c := range d.complete {
						dict[jen.Lit(c)] = jen.Id("h").Dot(ft.completeMethod(ft.arg(c)))
					}
				}))
			}
			if len(d.scopes) > 0 {
				vg.Line().Id("Scopes").Op(":").Index().String().ValuesFunc(func(sg *jen.Group) {
					for _, sc := range d.scopes {
						sg.Lit(sc)
					}
				})
			}
			if c := d.cache; c != nil {
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
func (g *gen) emitArgs(f *jen.File, ft *featureIR) {
	d := ft.def
	first := fmt.Sprintf("%s are the arguments of prompt %s; an optional argument the client left out is nil.", ft.argsName(), d.name)
	if d.kind == kindTemplate {
		first = fmt.Sprintf("%s are the variables of URI template %s, from the URI being read; an optional "+
			"variable the URI leaves out is nil.", ft.argsName(), d.key)
	}
	f.Add(comment(first))
	f.Type().Id(ft.argsName()).StructFunc(func(sg *jen.Group) {
		for _, a := range d.args {
			lines := docLinesOf(a.description)
			if d.kind == kindTemplate {
				lines = []string{fmt.Sprintf("%s is variable %s.", a.goName, a.name)}
			}
			if len(lines) > 0 {
				sg.Add(comment(lines...))
			}
			sg.Id(a.goName).Add(argType(d.kind, a))
		}
	})
}

func argType(kind featureKind, a featureArg) *jen.Statement {
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
	d := ft.def
	handle := handleValue(ft.callName(), "FeatureCall", len(ft.elicits) > 0)
	var body []jen.Code
	src := "args"
	if d.kind == kindTemplate {
		src = "vars"
	}
	if ft.hasArgs() {
		body = append(body, jen.Id("in").Op(":=").Id(ft.argsName()).Values(jen.DictFunc(func(dict jen.Dict) {
			for _, a := range d.args {
				switch {
				case a.list:
					dict[jen.Id(a.goName)] = jen.Id(src).Index(jen.Lit(a.name))
				case a.required && d.kind == kindTemplate:
					dict[jen.Id(a.goName)] = jen.Id(src).Dot("Get").Call(jen.Lit(a.name))
				case a.required:
					dict[jen.Id(a.goName)] = jen.Id(src).Index(jen.Lit(a.name))
				}
			}
		})))
		for _, a := range d.args {
			if a.list || a.required {
				continue
			}
			if d.kind == kindTemplate {
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
	if d.kind == kindTemplate {
		callArgs = append(callArgs, jen.Id("uri"))
	}
	if ft.hasArgs() {
		callArgs = append(callArgs, jen.Id("in"))
	}
	body = append(body, jen.Return(jen.Id("h").Dot(ft.method()).Call(callArgs...)))
	call := jen.Id("call").Op("*").Qual(runtimePkg, "Call")
	switch d.kind {
	case kindPrompt:
		a := jen.Id("_")
		if len(d.args) > 0 {
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

// emitFeatureCall writes the call handle: runtime.FeatureCall plus exactly the
// elicitations the feature declares.
func (g *gen) emitFeatureCall(f *jen.File, ft *featureIR) {
	call := ft.callName()
	f.Add(comment(fmt.Sprintf("%s is the handle of one %s of %s %s: progress, logging, sampling, roots, "+
		"and the elicitations it declares. Asking for an elicitation it does not declare is a compile error.",
		call, map[featureKind]string{kindPrompt: "prompts/get", kindResource: "resources/read", kindTemplate: "resources/read"}[ft.def.kind],
		ft.def.kind, ft.def.key)))
	f.Type().Id(call).Struct(handleFields("FeatureCall", len(ft.elicits) > 0)...)
	emitElicitMethods(f, call, ft.elicits)
}

// handlerParams are the parameters and results of a feature's Handler method.
func (ft *featureIR) handlerParams(named bool) ([]jen.Code, []jen.Code) {
	id := func(n string) *jen.Statement {
		if named {
			return jen.Id(n)
		}
		return jen.Null()
	}
	params := []jen.Code{id("ctx").Qual("context", "Context"), id("call").Id(ft.callName())}
	if ft.def.kind == kindTemplate {
		params = append(params, id("uri").String())
	}
	if ft.hasArgs() {
		params = append(params, id("in").Id(ft.argsName()))
	}
	res := "ResourceResult"
	if ft.def.kind == kindPrompt {
		res = "PromptResult"
	}
	if ft.isPage() {
		return params, []jen.Code{jen.String(), jen.Error()}
	}
	return params, []jen.Code{jen.Op("*").Qual(runtimePkg, res), jen.Error()}
}

// featureMethod is one Handler method a feature brings.
type featureMethod struct {
	name           string
	doc            []string
	params, result []jen.Code // named
	anon           []jen.Code // params without names, for UnimplementedHandler
	what           string     // for the not-implemented error
	zero           jen.Code   // the first result UnimplementedHandler returns; nil is nil
}

func (ft *featureIR) methods() []featureMethod {
	d := ft.def
	params, results := ft.handlerParams(true)
	anon, _ := ft.handlerParams(false)
	first := fmt.Sprintf("%s answers prompts/get of prompt %s.", ft.method(), d.name)
	switch d.kind {
	case kindResource:
		first = fmt.Sprintf("%s answers resources/read of %s (resource %s).", ft.method(), d.key, d.name)
	case kindTemplate:
		first = fmt.Sprintf("%s answers resources/read of a URI matching %s (resource template %s); "+
			"return runtime.ErrResourceNotFound when there is nothing at uri.", ft.method(), d.key, d.name)
	}
	if ft.isPage() {
		first = pageMethodDoc(ft)
	}
	doc := []string{first}
	if lines := docLinesOf(d.description); len(lines) > 0 {
		doc = append(append(doc, ""), lines...)
	}
	var out []featureMethod
	if ft.hasMethod() {
		m := featureMethod{name: ft.method(), doc: doc, params: params, result: results, anon: anon,
			what: fmt.Sprintf("%s %q", d.kind, d.key)}
		if ft.isPage() {
			m.zero = jen.Lit("")
		}
		out = append(out, m)
	}
	if d.list {
		out = append(out, featureMethod{name: ft.listMethod(),
			doc:    []string{fmt.Sprintf("%s lists the resources of template %s that exist now, for resources/list.", ft.listMethod(), d.key)},
			params: []jen.Code{ctx()}, anon: []jen.Code{jen.Qual("context", "Context")},
			result: []jen.Code{jen.Index().Qual(runtimePkg, "ResourceInfo"), jen.Error()},
			what:   fmt.Sprintf("listing of resource template %q", d.key)})
	}
	for _, c := range d.complete {
		a := ft.arg(c)
		what := "argument"
		if d.kind == kindTemplate {
			what = "variable"
		}
		out = append(out, featureMethod{name: ft.completeMethod(a),
			doc: []string{fmt.Sprintf("%s suggests values for %s %s of %s %s, for completion/complete.",
				ft.completeMethod(a), what, c, d.kind, d.key)},
			params: []jen.Code{ctx(), jen.Id("req").Qual(runtimePkg, "CompletionRequest")},
			anon:   []jen.Code{jen.Qual("context", "Context"), jen.Qual(runtimePkg, "CompletionRequest")},
			result: []jen.Code{jen.Op("*").Qual(runtimePkg, "Completion"), jen.Error()},
			what:   fmt.Sprintf("completion of %s %q of %s %q", what, c, d.kind, d.key)})
	}
	return out
}

// featureHandlerMethods adds the features' methods to the Handler interface.
func (g *gen) featureHandlerMethods(ig *jen.Group) {
	for _, ft := range g.features {
		for _, m := range ft.methods() {
			ig.Add(comment(m.doc...))
			ig.Id(m.name).Params(m.params...).Params(m.result...)
		}
	}
}

// emitFeatureHandler writes UnimplementedHandler's feature methods, in
// mcpgen_handler.go.
func (g *gen) emitFeatureHandler(f *jen.File) {
	if len(g.features) == 0 {
		return
	}
	for _, ft := range g.features {
		for _, m := range ft.methods() {
			zero := m.zero
			if zero == nil {
				zero = jen.Nil()
			}
			f.Commentf("// %s reports that %s is not implemented.", m.name, m.what)
			f.Func().Params(jen.Id("UnimplementedHandler")).Id(m.name).Params(m.anon...).Params(m.result...).Block(
				jen.Return(zero, jen.Qual("errors", "New").Call(jen.Lit(m.what+" is not implemented"))),
			)
		}
	}
}

// registerFeatures is the part of Register that adds the features, in input
// order within each kind, or nothing.
func (g *gen) registerFeatures() *jen.Statement {
	s := jen.Null()
	started := false
	for _, k := range []struct {
		kind     featureKind
		typ, add string
	}{{kindPrompt, "Prompt", "AddPrompt"}, {kindResource, "Resource", "AddResource"}, {kindTemplate, "ResourceTemplate", "AddResourceTemplate"}} {
		var of []*featureIR
		for _, ft := range g.features {
			if ft.def.kind == k.kind {
				of = append(of, ft)
			}
		}
		if len(of) == 0 {
			continue
		}
		if started {
			s.Line()
		}
		started = true
		s.For(jen.List(jen.Id("_"), jen.Id("x")).Op(":=").Range().Index().Qual(runtimePkg, k.typ).ValuesFunc(func(vg *jen.Group) {
			for _, ft := range of {
				vg.Line().Id(ft.funcName()).Call(jen.Id("h"))
			}
			vg.Line()
		})).Block(
			jen.If(jen.Err().Op(":=").Id("s").Dot(k.add).Call(jen.Id("x")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		)
	}
	return s
}

// featureHandlerDoc is the doc comment of Handler (or, with unimplemented,
// UnimplementedHandler): lines as written for a package of tools only, a
// sentence more when it has prompts or resources.
func (g *gen) featureHandlerDoc(lines ...string) []string {
	if len(g.features) == 0 {
		return lines
	}
	if strings.HasPrefix(lines[0], "UnimplementedHandler") {
		return append(lines, "", "It answers every prompt, resource read, listing and completion the same way.")
	}
	return append(lines, "", "Prompts, resources and resource templates have their methods here too: one to "+
		"answer each, one per completable argument or template variable, and one listing the resources of a "+
		"template marked \"mcpgen.dev/list\".")
}
