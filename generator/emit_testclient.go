package generator

import (
	"fmt"
	"path"
	"strings"

	"github.com/dave/jennifer/jen"
)

// The typed test client. For a package with a known import path, the
// generator also writes the sibling package <pkg>test (notes ->
// notes/notestest), importable from any test and from no production code:
// a Client wrapping mcptest.Client with one typed method per tool, prompt,
// resource, template read and completion, typed answers per form (the
// generated answer structs, or decline and cancel), and Run, which runs a
// test in every protocol era. This file writes the client's frame; the
// parts give its methods and forms (packageCode).

// TestClientFile is the file of the typed test client, relative to the
// generated package's folder.
func TestClientFile(pkg string) string { return pkg + "test/mcpgen_client.go" }

// emitTestClient renders <pkg>test/mcpgen_client.go.
func emitTestClient(pc *packageCode) *jen.File {
	pkg := pc.pkg
	f := jen.NewFile(pkg + "test")
	f.HeaderComment(Header)
	f.ImportName(runtimePkg, "runtime")
	f.ImportName(mcptestPkg, "mcptest")
	if path.Base(pc.importPath) == pkg {
		f.ImportName(pc.importPath, pkg)
	} else {
		f.ImportAlias(pc.importPath, pkg)
	}
	var doc []string
	for _, l := range wrapLine(fmt.Sprintf("Package %stest tests the server of package %s the way a client calls it, "+
		"with the types of package %[2]s: Client has a method per tool, prompt, resource, template and completion, "+
		"and typed answers to the forms; Run runs a test in every protocol era.", pkg, pkg), commentWidth) {
		doc = append(doc, "// "+l)
	}
	f.PackageComment(strings.Join(doc, "\n"))
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
		for _, form := range pc.forms {
			vg.Line().Add(form)
		}
		if len(pc.forms) > 0 {
			vg.Line()
		}
	})
	for _, add := range pc.calls {
		add(f)
	}
	for _, add := range pc.answers {
		add(f)
	}
	return f
}
