package generator

import (
	"fmt"
	"path"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// skillKind is the agent skills: skill folders (Config.Skills, read by
// ReadSkills), and the skill options files among the JSON inputs that say
// what a folder cannot (who may read it, which files are dynamic).
type skillKind struct {
	options []*skillOptionsDef
	skills  []*skillDef
}

func (k *skillKind) claim(n *jsontree.Node, list string) claimStrength {
	if list == "" && n.Kind == jsontree.Object && n.Has("skill") {
		return shapeClaim
	}
	return noClaim
}

func (k *skillKind) lists() []listResult { return nil }
func (k *skillKind) fileKinds() []string { return []string{"skill"} }
func (k *skillKind) shapes() string {
	return `a skill options file {"skill", "scopes", "dynamic"}`
}

func (k *skillKind) load(at place, _ string, lc *loadContext) {
	if o := loadSkillOptions(at, lc.rep); o != nil {
		k.options = append(k.options, o)
	}
}

// finish checks the skill folders and applies the options files to them.
func (k *skillKind) finish(lc *loadContext) {
	k.skills = loadSkills(lc.cfg.Skills, k.options, lc.rep)
}

func (k *skillKind) claimsFolder(dir string) bool { return isSkillFolder(dir) }

func (k *skillKind) readFolders(dirs []string, pkgDir string, cfg *Config) error {
	skills, err := ReadSkills(dirs, pkgDir)
	cfg.Skills = skills
	return err
}

// build names the skills and the Handler methods of their dynamic files,
// reporting names that collide with each other, with the package's other
// names or with the Handler's other methods.
func (k *skillKind) build(bc *buildContext) part {
	p := &skillPart{}
	idents := map[string]string{}
	for _, s := range k.skills {
		ir := &skillIR{name: s.name, goName: goName(s.name), embed: s.folder.Embed, frontmatter: s.fm.json}
		ir.file = "mcpgen_" + snake(ir.goName) + "_skill.go"
		if s.options != nil {
			ir.scopes = s.options.scopes
		}
		ok := true
		for _, id := range []string{ir.funcName(), ir.filesName()} {
			first, taken := idents[id]
			if other, owned := bc.identTaken(id); owned {
				first, taken = other, true
			}
			if taken {
				bc.rep.errorIn(s.skillMD, 1, 1, "/name", "rename the skill", "skill %q gets the Go name %s, like %s", s.name, id, first)
				ok = false
			}
			idents[id] = fmt.Sprintf("skill %q", s.name)
		}
		for _, f := range s.files {
			fir := skillFileIR{path: f.path, mimeType: f.mimeType, size: f.size, digest: f.digest}
			if f.dynamic != nil {
				base := strings.TrimSuffix(path.Base(f.path), path.Ext(f.path))
				fir.method = "Read" + ir.goName + joinWords(base)
				what := fmt.Sprintf("dynamic file %s of skill %q", f.path, s.name)
				if first, free := bc.claimMethod(fir.method, what); !free {
					bc.rep.errorf(f.dynamic.at, "rename the file", "Handler method %s of %s collides with the one made for %s", fir.method, what, first)
					ok = false
				}
			}
			ir.files = append(ir.files, fir)
		}
		if ok {
			p.skills = append(p.skills, ir)
		}
	}
	return p
}
