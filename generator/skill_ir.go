package generator

// skillsPkg is the runtime side of the skills extension.
const skillsPkg = "github.com/mcpgen/mcpgen/ext/skills"

// skillIR is a skill ready to emit.
type skillIR struct {
	name        string // the skill's name, which is its folder's
	goName      string
	file        string
	embed       string // its folder relative to the package's, for go:embed
	frontmatter []byte // its SKILL.md's frontmatter as JSON
	scopes      []string
	files       []skillFileIR // sorted by path
}

// skillFileIR is one file of a skill: static, with the size and digest of
// the bytes embedded, or dynamic, produced by a Handler method.
type skillFileIR struct {
	path     string
	mimeType string
	size     int64
	digest   string // "sha256:<hex>"
	method   string // the Handler method of a dynamic file; "" for a static one
}

func (s *skillIR) funcName() string  { return lowerFirst(s.goName + "Skill") }
func (s *skillIR) filesName() string { return lowerFirst(s.goName + "SkillFiles") }

// dynamic are the skill's dynamic files.
func (s *skillIR) dynamic() []skillFileIR {
	var out []skillFileIR
	for _, f := range s.files {
		if f.method != "" {
			out = append(out, f)
		}
	}
	return out
}

// skillPart is the skills of the package.
type skillPart struct {
	skills []*skillIR // by name
}
