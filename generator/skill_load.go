package generator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// skillDef is one skill folder once checked: what skills/list says of it
// and what the generated code embeds.
type skillDef struct {
	folder  *SkillFolder
	name    string // the frontmatter name, which is the folder's name
	skillMD string // the SKILL.md's path, for diagnostics
	fm      *frontmatter
	files   []skillFileDef
	// options are the skill's options file, or nil.
	options *skillOptionsDef
}

// skillFileDef is a file of a skill: a static one with the digest and size
// of the bytes embedded, or a dynamic one its Handler method serves.
type skillFileDef struct {
	path     string
	mimeType string
	size     int64
	digest   string // "sha256:<hex>"; "" for a dynamic file
	dynamic  *skillDynamicDef
}

// skillNameRE is the Agent Skills specification's name rule: 1 to 64
// lowercase letters, digits and hyphens, no hyphen first, last or twice in a
// row (the last part is checked apart).
var skillNameRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$`)

// The Agent Skills specification's length limits, in characters.
const (
	maxSkillDescription   = 1024
	maxSkillCompatibility = 500
)

// reservedMetadataPrefix marks metadata keys the skills extension reserves
// for MCP extensions.
const reservedMetadataPrefix = "io.modelcontextprotocol/"

// loadSkills checks the skill folders and the skill options files,
// reporting every problem, and returns the good skills sorted by name.
func loadSkills(folders []SkillFolder, opts []*skillOptionsDef, rep *reporter) []*skillDef {
	sorted := make([]*SkillFolder, len(folders))
	for i := range folders {
		sorted[i] = &folders[i]
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	byName := map[string]*skillDef{}
	var skills []*skillDef
	for _, f := range sorted {
		s := loadSkill(f, rep)
		if s == nil {
			continue
		}
		if first, ok := byName[s.name]; ok {
			rep.errorIn(s.skillMD, 1, 1, "/name", "rename one of the folders (and its name)",
				"skill %q is also the name of %s; skill URIs (skill://%s/SKILL.md) would collide", s.name, first.folder.Path, s.name)
			continue
		}
		byName[s.name] = s
		skills = append(skills, s)
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].name < skills[j].name })
	applySkillOptions(skills, byName, opts, rep)
	return skills
}

func loadSkill(f *SkillFolder, rep *reporter) *skillDef {
	name := path.Base(f.Path)
	s := &skillDef{folder: f, name: name, skillMD: f.Path + "/" + skillFileName}
	var md *SkillFile
	ok := true
	var total int64
	for i := range f.Files {
		file := &f.Files[i]
		where := f.Path + "/" + file.Path
		total += file.Size
		switch {
		case file.Path == skillFileName:
			md = file
		case path.Base(file.Path) == "go.mod":
			rep.errorIn(where, 1, 1, "", "remove it, or move the skill elsewhere",
				"a go.mod makes its folder another module, whose files go:embed cannot embed")
			ok = false
		}
		switch {
		case file.Outside:
			rep.errorIn(where, 1, 1, "", "copy the file into the skill folder instead",
				"links to %s, outside the skill folder; a skill serves only its own files", file.Link)
			ok = false
		case file.Link != "":
			rep.errorIn(where, 1, 1, "", "replace the link with a copy of the file",
				"is a link (to %s); go:embed embeds only regular files", file.Link)
			ok = false
		case file.Irregular:
			rep.errorIn(where, 1, 1, "", "remove it", "is not a regular file")
			ok = false
		default:
			if err := embeddableName(file.Path); err != nil {
				rep.errorIn(where, 1, 1, "", "rename it", "file name cannot be embedded by go:embed: %v", err)
				ok = false
			}
		}
	}
	if md == nil {
		rep.errorIn(s.skillMD, 1, 1, "", "a skill is a folder holding a SKILL.md", "the skill folder has no SKILL.md")
		return nil
	}
	if f.Embed == "" {
		rep.errorIn(s.skillMD, 1, 1, "", "move the skill folder into the folder of the generated package, or generate the package into a folder that holds it",
			"skill folder %s lies outside the folder of the generated package, and go:embed reaches only files inside it", f.Path)
		ok = false
	}
	if len(f.Files) > MaxSkillFiles {
		rep.errorIn(s.skillMD, 1, 1, "", "move files out of the skill, or split it into several skills",
			"skill %q has %d files; a skill may have at most %d, SKILL.md included", name, len(f.Files), MaxSkillFiles)
		ok = false
	}
	if total > MaxSkillBytes {
		rep.errorIn(s.skillMD, 1, 1, "", "move files out of the skill, or split it into several skills",
			"skill %q holds %d bytes; a skill may hold at most %d (16 MiB) in all", name, total, MaxSkillBytes)
		ok = false
	}
	if !ok || md.Data == nil && md.Size > 0 {
		return nil
	}
	fm, problems := parseFrontmatter(md.Data)
	for _, p := range problems {
		rep.diags = append(rep.diags, Diagnostic{File: s.skillMD, Line: p.line, Col: p.col, Pointer: p.pointer,
			Message: p.msg, Hint: p.hint, Warning: p.warning})
	}
	if fm == nil {
		return nil
	}
	s.fm = fm
	if !checkSkillFields(s, rep) || fm.json == nil {
		return nil
	}
	for _, file := range f.Files {
		sum := sha256.Sum256(file.Data)
		s.files = append(s.files, skillFileDef{path: file.Path, size: file.Size,
			digest: "sha256:" + hex.EncodeToString(sum[:]), mimeType: skillMIMEType(file.Path, file.Data, false)})
	}
	return s
}

// checkSkillFields checks the frontmatter fields of the Agent Skills
// specification: name and description, and the optional license,
// compatibility, metadata and allowed-tools. Other fields pass through.
func checkSkillFields(s *skillDef, rep *reporter) bool {
	fm := s.fm
	at := func(n *yaml.Node) (int, int) { return n.Line + fm.line, n.Column }
	ok := true
	bad := func(n *yaml.Node, pointer, hint, format string, args ...any) {
		line, col := at(n)
		rep.errorIn(s.skillMD, line, col, pointer, hint, format, args...)
		ok = false
	}
	str := func(key string, required bool, maxLen int) (string, bool) {
		k, v := fm.field(key)
		if k == nil {
			if required {
				rep.errorIn(s.skillMD, 2, 1, "", fmt.Sprintf("add a line %s: to the frontmatter", key), "frontmatter has no %s", key)
				ok = false
			}
			return "", false
		}
		if v.Kind != yaml.ScalarNode || scalarKind(v) != "!!str" || v.Value == "" {
			bad(v, "/"+key, "", "%s must be a non-empty string", key)
			return "", false
		}
		if n := utf8.RuneCountInString(v.Value); n > maxLen {
			bad(v, "/"+key, "", "%s has %d characters; the Agent Skills specification allows %d", key, n, maxLen)
			return "", false
		}
		return v.Value, true
	}
	if name, has := str("name", true, 64); has {
		_, v := fm.field("name")
		switch {
		case !skillNameRE.MatchString(name) || strings.Contains(name, "--"):
			bad(v, "/name", "use 1 to 64 lowercase letters, digits and hyphens, with no hyphen first, last or twice in a row",
				"skill name %q breaks the Agent Skills naming rules", name)
		case name != s.name:
			bad(v, "/name", fmt.Sprintf("name the folder %s, or the skill %s", name, s.name),
				"skill name %q differs from its folder's name %q", name, s.name)
		}
	}
	str("description", true, maxSkillDescription)
	str("compatibility", false, maxSkillCompatibility)
	if _, v := fm.field("allowed-tools"); v != nil {
		good := v.Kind == yaml.ScalarNode && scalarKind(v) == "!!str"
		if v.Kind == yaml.SequenceNode {
			good = true
			for _, el := range v.Content {
				el = resolveAlias(el)
				good = good && el.Kind == yaml.ScalarNode && scalarKind(el) == "!!str"
			}
		}
		if !good {
			bad(v, "/allowed-tools", "", "allowed-tools must be a string of space-separated tool names, or a list of strings")
		}
	}
	if _, v := fm.field("metadata"); v != nil {
		if v.Kind != yaml.MappingNode {
			bad(v, "/metadata", "", "metadata must be a mapping of keys to string values")
		} else {
			for i := 0; i+1 < len(v.Content); i += 2 {
				k, val := v.Content[i], resolveAlias(v.Content[i+1])
				ptr := "/metadata/" + escapePointer(k.Value)
				line, col := at(k)
				if strings.HasPrefix(k.Value, reservedMetadataPrefix) {
					rep.warnIn(s.skillMD, line, col, ptr, "use a key of your own",
						"metadata keys starting with %s are reserved for MCP extensions", reservedMetadataPrefix)
				}
				if val.Kind != yaml.ScalarNode || scalarKind(val) != "!!str" {
					line, col := at(val)
					rep.warnIn(s.skillMD, line, col, ptr, "quote it",
						"metadata values are strings in the Agent Skills specification")
				}
			}
		}
	}
	return ok
}

// embeddableName reports why go:embed would refuse a file name (the go
// command's rules for file paths in modules), or nil. Glob characters are
// refused too, since go:embed patterns would read them as globs.
func embeddableName(p string) error {
	for _, elem := range strings.Split(p, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return fmt.Errorf("%q is an empty, . or .. element", elem)
		}
		if strings.HasSuffix(elem, ".") {
			return fmt.Errorf("%q ends with a dot", elem)
		}
		for _, r := range elem {
			if r < 0x20 || r == 0x7f || strings.ContainsRune("\"'*:;<>?\\`|[]", r) {
				return fmt.Errorf("%q holds the character %q", elem, r)
			}
		}
		short, _, _ := strings.Cut(elem, ".")
		switch strings.ToUpper(short) {
		case "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
			"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9":
			return fmt.Errorf("%q is a reserved file name on Windows", elem)
		}
		if i := strings.LastIndexByte(short, '~'); i >= 0 && i < len(short)-1 && strings.Trim(short[i+1:], "0123456789") == "" {
			return fmt.Errorf("%q looks like a Windows short name", elem)
		}
	}
	return nil
}
