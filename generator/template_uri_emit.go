package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// Handlers announce changes (a resource they updated, a list that grew)
// through their call handles (runtime.ToolCall and runtime.FeatureCall), and
// name a template's resource with the typed URI function of the template.

// emitTemplateURI writes the function that expands a template with its
// params: the URI resources/read of that resource receives, and the one to
// announce when it changes.
func emitTemplateURI(f *jen.File, ft *featureIR) {
	f.Add(comment(
		fmt.Sprintf("%s is the URI that p names in URI template %s: the uri that %s receives for "+
			"it, and the one to pass to NotifyResourceUpdated when that resource changes.", ft.templateURIName(), ft.key, ft.method()),
	))
	vars := jen.Qual(runtimePkg, "URIVars").Values(jen.DictFunc(func(dict jen.Dict) {
		for _, a := range ft.args {
			switch {
			case a.list:
				dict[jen.Lit(a.name)] = jen.Id("p").Dot(a.goName)
			case a.required:
				dict[jen.Lit(a.name)] = jen.Values(jen.Id("p").Dot(a.goName))
			}
		}
	}))
	var body []jen.Code
	optional := false
	for _, a := range ft.args {
		optional = optional || !a.list && !a.required
	}
	if optional {
		body = append(body, jen.Id("vars").Op(":=").Add(vars))
		for _, a := range ft.args {
			if a.list || a.required {
				continue
			}
			body = append(body, jen.If(jen.Id("p").Dot(a.goName).Op("!=").Nil()).Block(
				jen.Id("vars").Index(jen.Lit(a.name)).Op("=").Index().String().Values(jen.Op("*").Id("p").Dot(a.goName)),
			))
		}
		vars = jen.Id("vars")
	}
	body = append(body, jen.Return(jen.Qual(runtimePkg, "ExpandURITemplate").Call(jen.Id(ft.nameConst()), vars)))
	f.Func().Id(ft.templateURIName()).Params(jen.Id("p").Id(ft.argsName())).String().Block(body...)
}
