package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// A page is emitted as a resource (feature_emit.go) whose handler wraps
// its HTML with apps.Page: from its embedded file, or from a Handler
// method that returns the document.

func (p *pagePart) emit(pc *packageCode) {
	if len(p.pages) == 0 {
		return
	}
	methods := false
	for _, ft := range p.pages {
		pc.files = append(pc.files, genFile{ft.file, func() *jen.File { return emitFeature(pc, ft, pageHandler(ft)) }})
		pc.methods = append(pc.methods, featureMethods(ft, pageMethodDoc(ft), jen.String(), jen.Lit(""))...)
		pc.adds = append(pc.adds, featureRegistration(ft))
		pc.calls = append(pc.calls, func(f *jen.File) { emitTestFeature(f, pc.importPath, ft) })
		methods = methods || ft.hasMethod()
	}
	if methods {
		pc.handlerDoc = append(pc.handlerDoc, "each MCP Apps page that is not served from a file")
	}
	enableApps(pc)
}

// enableApps adds the step of Register that declares MCP Apps, once
// however many parts ask for it (pages, and tools that name one).
func enableApps(pc *packageCode) {
	pc.importName(appsPkg, "apps")
	pc.steps = append(pc.steps, registerStep{key: appsPkg, doc: "declares the MCP Apps extension (io.modelcontextprotocol/ui)",
		code: jen.Comment("// Its tools show MCP Apps pages: declare the extension (io.modelcontextprotocol/ui).").Line().
			If(jen.Err().Op(":=").Qual(appsPkg, "Enable").Call(jen.Id("s")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))})
}

// pageHandler is the runtime handler of a page: its file, or what its
// Handler method renders, as apps.Page sends it.
func pageHandler(ft *featureIR) jen.Code {
	meta := jen.Nil()
	if ft.ui != nil {
		meta = jen.Qual(jsonPkg, "RawMessage").Call(jsonText(string(ft.ui)))
	}
	if ft.embedded != nil {
		return fileAdapter(ft, jen.Qual(appsPkg, "Page").Call(jen.Id(ft.uriName()), jen.Id(ft.fileVar()), meta))
	}
	handle := handleValue(ft.callName(), "FeatureCall", len(ft.elicits) > 0)
	return jen.Func().Params(ctx(), jen.Id("call").Op("*").Qual(runtimePkg, "Call"), jen.Id("_").String()).
		Params(jen.Op("*").Qual(runtimePkg, "ResourceResult"), jen.Error()).Block(
		jen.List(jen.Id("html"), jen.Err()).Op(":=").Id("h").Dot(ft.method()).Call(jen.Id("ctx"), handle),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Qual(appsPkg, "Page").Call(jen.Id(ft.uriName()), jen.Id("html"), meta), jen.Nil()),
	)
}

// pageMethodDoc is the first doc line of the Handler method rendering a page.
func pageMethodDoc(ft *featureIR) string {
	return fmt.Sprintf("%s returns the HTML document of MCP Apps page %s (resource %s), which resources/read "+
		"sends as %s with the page's _meta.ui. Hosts may cache it: send data through tool results, "+
		"never by writing it into the page.", ft.method(), ft.key, ft.name, appMIMEType)
}
