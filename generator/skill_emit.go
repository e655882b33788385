package generator

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
)

// skillsPkg is the runtime side of the skills extension.
const skillsPkg = "github.com/mcpgen/mcpgen/ext/skills"

// skillIR is a skill ready to emit.
type skillIR struct {
	def    *skillDef
	goName string
	file   string
}

func (s *skillIR) funcName() string  { return lowerFirst(s.goName + "Skill") }
func (s *skillIR) filesName() string { return lowerFirst(s.goName + "SkillFiles") }

// dynamic are the skill's dynamic files.
func (s *skillIR) dynamic() []skillFileDef {
	var out []skillFileDef
	for _, f := range s.def.files {
		if f.dynamic != nil {
			out = append(out, f)
		}
	}
	return out
}

// buildSkills names the skills and the Handler methods of their dynamic
// files, reporting names that collide with each other, with the package's
// other names or with the Handler's other methods.
func (g *gen) buildSkills(skills []*skillDef) {
	methods := map[string]string{}
	for _, t := range g.tools {
		methods[t.goName] = fmt.Sprintf("tool %q", t.def.name)
	}
	for _, ft := range g.features {
		for _, m := range ft.methods() {
			methods[m.name] = m.what
		}
	}
	idents := map[string]string{}
	for _, s := range skills {
		ir := &skillIR{def: s, goName: goName(s.name)}
		ir.file = "mcpgen_" + snake(ir.goName) + "_skill.go"
		ok := true
		for _, id := range []string{ir.funcName(), ir.filesName()} {
			first, taken := idents[id]
			if _, owned := g.ns.owners[id]; owned || reserved[id] {
				first, taken = fmt.Sprintf("%s, a name of the package's tools or features", id), true
			}
			if taken {
				g.rep.errorIn(s.skillMD, 1, 1, "/name", "rename the skill", "skill %q gets the Go name %s, like %s", s.name, id, first)
				ok = false
			}
			idents[id] = fmt.Sprintf("skill %q", s.name)
		}
		for _, f := range s.files {
			if f.dynamic == nil {
				continue
			}
			base := strings.TrimSuffix(path.Base(f.path), path.Ext(f.path))
			f.dynamic.method = "Read" + ir.goName + joinWords(base)
			what := fmt.Sprintf("dynamic file %s of skill %q", f.path, s.name)
			if first, taken := methods[f.dynamic.method]; taken {
				g.rep.errorf(f.dynamic.at, "rename the file", "Handler method %s of %s collides with the one made for %s", f.dynamic.method, what, first)
				ok = false
			}
			methods[f.dynamic.method] = what
		}
		if ok {
			g.skills = append(g.skills, ir)
		}
	}
}

// skillFiles are the skills' files to render.
func (g *gen) skillFiles() []featureFile {
	var out []featureFile
	for _, s := range g.skills {
		out = append(out, featureFile{s.file, func() *jen.File { return g.emitSkill(s) }})
	}
	return out
}

// emitSkill writes a skill's file: the embedded files and the Skill value
// that Register passes to the skills extension, with the digests and sizes
// computed now. A file that changes afterwards makes Register fail (and
// mcpgen generate --check report the drift) until the code is regenerated.
func (g *gen) emitSkill(s *skillIR) *jen.File {
	f := g.newFile()
	d := s.def
	static := false
	for _, file := range d.files {
		static = static || file.dynamic == nil
	}
	if static {
		f.Comment(fmt.Sprintf("// %s holds the files of skill %s, embedded from %s.", s.filesName(), d.name, d.folder.Embed))
		f.Comment("//")
		for _, file := range d.files {
			if file.dynamic == nil {
				f.Comment("//go:embed " + strconv.Quote(path.Join(d.folder.Embed, file.path)))
			}
		}
		f.Var().Id(s.filesName()).Qual("embed", "FS")
	}

	doc := []string{fmt.Sprintf("%s is skill %s as skills/list and skills/get show it: the frontmatter of its SKILL.md, "+
		"and the size and sha256 digest of each file as they were when this code was generated.", s.funcName(), d.name)}
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
			vg.Line().Id("Path").Op(":").Lit(d.name)
			vg.Line().Id("Frontmatter").Op(":").Qual(jsonPkg, "RawMessage").Call(jen.Lit(string(d.fm.json)))
			if static {
				vg.Line().Id("FS").Op(":").Id(s.filesName())
				vg.Line().Id("Dir").Op(":").Lit(d.folder.Embed)
			}
			if d.options != nil && len(d.options.scopes) > 0 {
				vg.Line().Id("Scopes").Op(":").Index().String().ValuesFunc(func(sg *jen.Group) {
					for _, sc := range d.options.scopes {
						sg.Lit(sc)
					}
				})
			}
			vg.Line().Id("Files").Op(":").Index().Qual(skillsPkg, "File").ValuesFunc(func(fg *jen.Group) {
				for _, file := range d.files {
					fg.Line().ValuesFunc(func(eg *jen.Group) {
						eg.Id("Path").Op(":").Lit(file.path)
						if file.mimeType != "" {
							eg.Id("MIMEType").Op(":").Lit(file.mimeType)
						}
						if file.dynamic != nil {
							eg.Id("Read").Op(":").Id("h").Dot(file.dynamic.method)
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

// skillHandlerMethods adds the Handler methods of dynamic skill files.
func (g *gen) skillHandlerMethods(ig *jen.Group) {
	for _, s := range g.skills {
		for _, file := range s.dynamic() {
			ig.Add(comment(fmt.Sprintf("%s produces file %s of skill %s, for every resources/read of skill://%s/%s.",
				file.dynamic.method, file.path, s.def.name, s.def.name, file.path)))
			ig.Id(file.dynamic.method).Params(ctx()).Params(jen.Index().Byte(), jen.Error())
		}
	}
}

// emitSkillHandler writes UnimplementedHandler's methods for dynamic skill files.
func (g *gen) emitSkillHandler(f *jen.File) {
	for _, s := range g.skills {
		for _, file := range s.dynamic() {
			what := fmt.Sprintf("dynamic file %s of skill %s", file.path, s.def.name)
			f.Commentf("// %s reports that %s is not implemented.", file.dynamic.method, what)
			f.Func().Params(jen.Id("UnimplementedHandler")).Id(file.dynamic.method).Params(jen.Qual("context", "Context")).
				Params(jen.Index().Byte(), jen.Error()).Block(
				jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit(what+" is not implemented"))),
			)
		}
	}
}

// registerSkills is the part of Register that serves the skills, or nothing.
func (g *gen) registerSkills() *jen.Statement {
	if len(g.skills) == 0 {
		return jen.Null()
	}
	return jen.If(jen.Err().Op(":=").Qual(skillsPkg, "Register").Call(
		jen.Id("s"),
		jen.Index().Qual(skillsPkg, "Skill").ValuesFunc(func(vg *jen.Group) {
			for _, s := range g.skills {
				if len(s.dynamic()) > 0 {
					vg.Line().Id(s.funcName()).Call(jen.Id("h"))
				} else {
					vg.Line().Id(s.funcName()).Call()
				}
			}
			vg.Line()
		}),
		jen.Qual(skillsPkg, "Options").Values(jen.Id("DirectoryRead").Op(":").True()),
	), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
}
