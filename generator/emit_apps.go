package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// appsPkg is the runtime package of MCP Apps.
const appsPkg = "github.com/mcpgen/mcpgen/ext/apps"

// Resources served from a file and MCP Apps pages (ui:// resources), as
// emitted: a file is embedded and needs no Handler method; a page comes
// from its file or from a Handler method returning its HTML, and is sent as
// text/html;profile=mcp-app with the page's _meta.ui.

// hasMethod reports whether a feature is answered by a Handler method: every
// one but a resource served from a file.
func (f *featureIR) hasMethod() bool { return f.def.file == nil }

// isPage reports whether a feature is an MCP Apps page.
func (f *featureIR) isPage() bool { return f.def.kind == kindResource && isAppURI(f.def.key) }

// fileVar is the package variable holding an embedded file.
func (f *featureIR) fileVar() string { return lowerFirst(f.goName + "ResourceFile") }

// emitResourceFile writes the go:embed variable of a resource's file.
func emitResourceFile(f *jen.File, ft *featureIR) {
	rf := ft.def.file
	f.Anon("embed")
	typ := jen.String()
	if !rf.text {
		typ = jen.Index().Byte()
	}
	f.Add(comment(
		fmt.Sprintf("%s is %s, embedded: the contents of %s. mcpgen generated this file from the "+
			"version with SHA-256 %s, so generate --check fails once the file changes; regenerate then.",
			ft.fileVar(), rf.embed, ft.def.key, rf.sum),
		"",
	))
	f.Comment("//go:embed " + rf.embed)
	f.Var().Id(ft.fileVar()).Add(typ)
}

// pageMeta is a page's _meta.ui as a Go expression, or nil.
func pageMeta(ft *featureIR) jen.Code {
	if ft.def.ui == nil {
		return jen.Nil()
	}
	return jen.Qual(jsonPkg, "RawMessage").Call(jen.Lit(string(ft.def.ui)))
}

// fileAdapter is the runtime handler of a resource served from its file.
func fileAdapter(ft *featureIR) *jen.Statement {
	d := ft.def
	var result jen.Code
	if ft.isPage() {
		result = jen.Qual(appsPkg, "Page").Call(jen.Id(ft.uriName()), jen.Id(ft.fileVar()), pageMeta(ft))
	} else {
		result = jen.Op("&").Qual(runtimePkg, "ResourceResult").Values(jen.Dict{
			jen.Id("Contents"): jen.Index().Qual(runtimePkg, "ResourceContents").Values(jen.Values(jen.DictFunc(func(dict jen.Dict) {
				dict[jen.Id("URI")] = jen.Id(ft.uriName())
				if mt := d.at.node.Get("mimeType"); mt != nil && mt.Str != "" {
					dict[jen.Id("MIMEType")] = jen.Lit(mt.Str)
				}
				field := "Text"
				if !d.file.text {
					field = "Blob"
				}
				dict[jen.Id(field)] = jen.Id(ft.fileVar())
			}))),
		})
	}
	return jen.Func().Params(jen.Qual("context", "Context"), jen.Op("*").Qual(runtimePkg, "Call"), jen.String()).
		Params(jen.Op("*").Qual(runtimePkg, "ResourceResult"), jen.Error()).Block(jen.Return(result, jen.Nil()))
}

// pageAdapter is the runtime handler of a page a Handler method renders.
func pageAdapter(ft *featureIR) *jen.Statement {
	handle := handleValue(ft.callName(), "FeatureCall", len(ft.elicits) > 0)
	return jen.Func().Params(ctx(), jen.Id("call").Op("*").Qual(runtimePkg, "Call"), jen.Id("_").String()).
		Params(jen.Op("*").Qual(runtimePkg, "ResourceResult"), jen.Error()).Block(
		jen.List(jen.Id("html"), jen.Err()).Op(":=").Id("h").Dot(ft.method()).Call(jen.Id("ctx"), handle),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Qual(appsPkg, "Page").Call(jen.Id(ft.uriName()), jen.Id("html"), pageMeta(ft)), jen.Nil()),
	)
}

// pageMethodDoc is the first doc line of the Handler method rendering a page.
func pageMethodDoc(ft *featureIR) string {
	return fmt.Sprintf("%s returns the HTML document of MCP Apps page %s (resource %s), which resources/read "+
		"sends as %s with the page's _meta.ui. Hosts may cache it: send data through tool results, "+
		"never by writing it into the page.", ft.method(), ft.def.key, ft.def.name, appMIMEType)
}

// docLines are the doc lines of a tool's Handler method after the first:
// its description, then a paragraph on its MCP Apps page and visibility.
func (t *toolIR) docLines() []string {
	lines := docLinesOf(t.def.description)
	u := t.def.ui
	if u == nil || u.resourceURI == "" && !u.appOnly() {
		return lines
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	if u.resourceURI != "" {
		lines = append(lines, fmt.Sprintf("Hosts with MCP Apps show its result in page %s; others show the "+
			"result's text, so keep that text meaningful.", u.resourceURI))
	}
	if u.appOnly() {
		lines = append(lines, "It is app-only (visibility [\"app\"]): hosts keep it from the model and let "+
			"only the page call it. That is no access control, since any client may call it: require scopes "+
			"for what must be protected.")
	}
	return lines
}

// usesApps reports whether the package has MCP Apps pages or tools that
// name one, and so declares the extension.
func (g *gen) usesApps() bool {
	for _, t := range g.tools {
		if t.def.ui != nil {
			return true
		}
	}
	for _, ft := range g.features {
		if ft.isPage() {
			return true
		}
	}
	return false
}

// registerApps is the part of Register that declares MCP Apps, or nothing.
func (g *gen) registerApps() *jen.Statement {
	if !g.usesApps() {
		return jen.Null()
	}
	return jen.Comment("// Its tools show MCP Apps pages: declare the extension (io.modelcontextprotocol/ui).").Line().
		If(jen.Err().Op(":=").Qual(appsPkg, "Enable").Call(jen.Id("s")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
}

// emitPageMethod writes HostRendersPage on the call handle of a tool that
// names a page.
func emitPageMethod(f *jen.File, call string, t *toolIR) {
	if t.def.ui == nil || t.def.ui.resourceURI == "" {
		return
	}
	f.Add(comment(fmt.Sprintf("HostRendersPage reports whether the client renders %s: it declared MCP Apps "+
		"(io.modelcontextprotocol/ui) for %s. Other hosts show only the result's text, so write it for a "+
		"reader when this is false.", t.def.ui.resourceURI, appMIMEType)))
	f.Func().Params(jen.Id("c").Id(call)).Id("HostRendersPage").Params().Bool().Block(
		jen.Return(jen.Qual(appsPkg, "HostRendersPages").Call(jen.Id("c").Dot("call"))),
	)
}
