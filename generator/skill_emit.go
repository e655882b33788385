package generator

import (
	"fmt"
	"path"
	"strconv"

	"github.com/dave/jennifer/jen"
)

func (p *skillPart) emit(pc *packageCode) {
	if len(p.skills) == 0 {
		return
	}
	pc.importName(skillsPkg, "skills")
	dynamic := false
	for _, s := range p.skills {
		pc.files = append(pc.files, genFile{s.file, func() *jen.File { return emitSkill(pc, s) }})
		for _, file := range s.dynamic() {
			dynamic = true
			what := fmt.Sprintf("dynamic file %s of skill %s", file.path, s.name)
			pc.methods = append(pc.methods, handlerMethod{name: file.method,
				doc: []string{fmt.Sprintf("%s produces file %s of skill %s, for every resources/read of skill://%s/%s.",
					file.method, file.path, s.name, s.name, file.path)},
				params: []jen.Code{ctx()}, anon: []jen.Code{jen.Qual("context", "Context")},
				result: []jen.Code{jen.Index().Byte(), jen.Error()},
				what:   what, notImplemented: jen.Qual("errors", "New").Call(jen.Lit(what + " is not implemented"))})
		}
	}
	if dynamic {
		pc.handlerDoc = append(pc.handlerDoc, "each dynamic skill file")
	}
	pc.steps = append(pc.steps, registerStep{key: skillsPkg, doc: "serves its skills through the skills extension (io.modelcontextprotocol/skills)",
		code: jen.If(jen.Err().Op(":=").Qual(skillsPkg, "Register").Call(
			jen.Id("s"),
			jen.Index().Qual(skillsPkg, "Skill").ValuesFunc(func(vg *jen.Group) {
				for _, s := range p.skills {
					if len(s.dynamic()) > 0 {
						vg.Line().Id(s.funcName()).Call(jen.Id("h"))
					} else {
						vg.Line().Id(s.funcName()).Call()
					}
				}
				vg.Line()
			}),
			jen.Qual(skillsPkg, "Options").Values(jen.Id("DirectoryRead").Op(":").True()),
		), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))})
}

// emitSkill writes a skill's file: the embedded files and the Skill value
// that Register passes to the skills extension, with the digests and sizes
// computed now. A file that changes afterwards makes Register fail (and
// mcpgen generate --check report the drift) until the code is regenerated.
func emitSkill(pc *packageCode, s *skillIR) *jen.File {
	f := pc.newFile()
	static := len(s.dynamic()) < len(s.files)
	if static {
		f.Comment(fmt.Sprintf("// %s holds the files of skill %s, embedded from %s.", s.filesName(), s.name, s.embed))
		f.Comment("//")
		for _, file := range s.files {
			if file.method == "" {
				f.Comment("//go:embed " + strconv.Quote(path.Join(s.embed, file.path)))
			}
		}
		f.Var().Id(s.filesName()).Qual("embed", "FS")
	}

	doc := []string{fmt.Sprintf("%s is skill %s as skills/list and skills/get show it: the frontmatter of its SKILL.md, "+
		"and the size and sha256 digest of each file as they were when this code was generated.", s.funcName(), s.name)}
	if len(s.dynamic()) > 0 {
		doc = append(doc, "", "Its dynamic files come from h, so its entry lists its resources as \"dynamic\".")
	}
	f.Add(comment(doc...))
	var params []jen.Code
	if len(s.dynamic()) > 0 {
		params = append(params, jen.Id("h").Id("Handler"))
	}
	f.Func().Id(s.funcName()).Params(params...).Qual(skillsPkg, "Skill").Block(
		jen.Return(jen.Qual(skillsPkg, "Skill").ValuesFunc(func(vg *jen.Group) {
			vg.Line().Id("Path").Op(":").Lit(s.name)
			vg.Line().Id("Frontmatter").Op(":").Qual(jsonPkg, "RawMessage").Call(jsonText(string(s.frontmatter)))
			if static {
				vg.Line().Id("FS").Op(":").Id(s.filesName())
				vg.Line().Id("Dir").Op(":").Lit(s.embed)
			}
			if len(s.scopes) > 0 {
				vg.Line().Id("Scopes").Op(":").Index().String().ValuesFunc(func(sg *jen.Group) {
					for _, sc := range s.scopes {
						sg.Lit(sc)
					}
				})
			}
			vg.Line().Id("Files").Op(":").Index().Qual(skillsPkg, "File").ValuesFunc(func(fg *jen.Group) {
				for _, file := range s.files {
					fg.Line().ValuesFunc(func(eg *jen.Group) {
						eg.Id("Path").Op(":").Lit(file.path)
						if file.mimeType != "" {
							eg.Id("MIMEType").Op(":").Lit(file.mimeType)
						}
						if file.method != "" {
							eg.Id("Read").Op(":").Id("h").Dot(file.method)
							return
						}
						eg.Id("Size").Op(":").Lit(int(file.size))
						eg.Id("Digest").Op(":").Lit(file.digest)
					})
				}
				fg.Line()
			})
			vg.Line()
		})),
	)
	return f
}
