package generator

import (
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"
)

// emitHandler writes mcpgen_handler.go from what the parts gave: Handler
// and UnimplementedHandler with every part's methods, and Register, which
// adds every part's values to the server and runs their steps.
func emitHandler(pc *packageCode) *jen.File {
	f := pc.newFile()
	f.Add(comment(
		"This line fails to compile when the runtime is older than this generated code:",
		"upgrade github.com/mcpgen/mcpgen, or regenerate with the mcpgen version that matches it.",
	))
	f.Const().Id("_").Op("=").Qual(runtimePkg, "IsAtLeastVersion0_5_0")

	f.Add(comment(handlerDoc(pc.handlerDoc)...))
	f.Type().Id("Handler").InterfaceFunc(func(ig *jen.Group) {
		for _, m := range pc.methods {
			ig.Add(comment(m.doc...))
			ig.Id(m.name).Params(m.params...).Params(m.result...)
		}
	})
	unimpl := "UnimplementedHandler answers every method of Handler with an error saying it is not implemented."
	for _, m := range pc.methods {
		if m.byDefault != "" {
			unimpl = "UnimplementedHandler answers the methods of Handler with an error saying they are not implemented, " +
				"except those whose doc below says what they answer."
			break
		}
	}
	f.Add(comment(unimpl))
	f.Type().Id("UnimplementedHandler").Struct()
	for _, m := range pc.methods {
		zero := m.zero
		if zero == nil {
			zero = jen.Nil()
		}
		if m.byDefault != "" {
			f.Add(comment(m.byDefault))
		} else {
			f.Comment(commentSafe(fmt.Sprintf("// %s reports that %s is not implemented.", m.name, m.what)))
		}
		f.Func().Params(jen.Id("UnimplementedHandler")).Id(m.name).Params(m.anon...).Params(m.result...).Block(
			jen.Return(zero, m.notImplemented),
		)
	}

	f.Add(comment(registerDoc(pc)...))
	f.Func().Id("Register").Params(jen.Id("s").Op("*").Qual(runtimePkg, "Server"), jen.Id("h").Id("Handler")).Error().BlockFunc(func(g *jen.Group) {
		for _, add := range addMethods {
			var of []registration
			for _, r := range pc.adds {
				if r.add == add {
					of = append(of, r)
				}
			}
			if len(of) == 0 {
				continue
			}
			slices.SortStableFunc(of, func(a, b registration) int {
				switch {
				case a.order.before(b.order):
					return -1
				case b.order.before(a.order):
					return 1
				}
				return 0
			})
			g.For(jen.List(jen.Id("_"), jen.Id("x")).Op(":=").Range().Index().Qual(runtimePkg, of[0].typ).ValuesFunc(func(vg *jen.Group) {
				for _, r := range of {
					vg.Line().Add(r.value)
				}
				vg.Line()
			})).Block(
				jen.If(jen.Err().Op(":=").Id("s").Dot(add).Call(jen.Id("x")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			)
		}
		seen := map[string]bool{}
		for _, st := range pc.steps {
			if st.key != "" && seen[st.key] {
				continue
			}
			seen[st.key] = true
			g.Add(st.code)
		}
		g.Return(jen.Nil())
	})
	return f
}

// handlerDoc is Handler's doc comment: what its methods answer, from the
// parts' phrases ("each tool").
func handlerDoc(phrases []string) []string {
	first := "Handler answers the calls of this package; it has no methods, since nothing the package declares is answered by one."
	if len(phrases) > 0 {
		first = "Handler answers the calls of this package: it has a method for " + andList(phrases) + "."
	}
	return []string{first + " Embed UnimplementedHandler in your implementation so that methods added later do not break the build."}
}

// registerDoc is Register's doc comment: what it adds, in which order,
// and the steps it takes.
func registerDoc(pc *packageCode) []string {
	var what []string
	for _, add := range addMethods {
		for _, r := range pc.adds {
			if r.add == add && !slices.Contains(what, r.what) {
				what = append(what, r.what)
			}
		}
	}
	var doc string
	if len(what) > 0 {
		doc = "Register adds the " + andList(what) + " of this package to s, answered by h, in the order of " +
			"the input files, which is the order their lists show them in."
	}
	var steps []string
	seen := map[string]bool{}
	for _, st := range pc.steps {
		if (st.key == "" || !seen[st.key]) && st.doc != "" {
			steps = append(steps, st.doc)
		}
		seen[st.key] = true
	}
	switch {
	case len(steps) > 0 && doc != "":
		doc += " It also " + andList(steps) + "."
	case len(steps) > 0:
		doc = "Register " + andList(steps) + "."
	case doc == "":
		doc = "Register adds nothing: this package declares nothing a server serves."
	}
	return []string{doc}
}
