package generator

import (
	"path"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// A skill options file is a JSON input beside the tools that says what a
// skill folder cannot: who may read the skill and which of its files are
// produced at run time.
//
//	{"skill": "note-taking", "scopes": ["notes:read"], "dynamic": ["references/recent.md"]}
//
// The SKILL.md stays the author's, served byte for byte.

// skillOptionsDef is one skill options file.
type skillOptionsDef struct {
	at     place
	name   string
	nameAt place
	// scopes are the OAuth scopes a caller needs to list, get and read the skill.
	scopes []string
	// dynamic are the files a Handler method serves.
	dynamic []*skillDynamicDef
}

// skillDynamicDef is a file of a skill produced at run time.
type skillDynamicDef struct {
	at   place
	path string
}

// loadSkillOptions loads a skill options file, recognised by its "skill"
// key; nil when it is bad.
func loadSkillOptions(at place, rep *reporter) *skillOptionsDef {
	root := at.node
	o := &skillOptionsDef{at: at}
	ok := true
	for _, mem := range root.Members {
		switch mem.Key {
		case "skill", "scopes", "dynamic":
		default:
			// Reported, and the rest still checked.
			rep.errorf(place{at.src, mem.Value}, `a skill options file has "skill", "scopes" and "dynamic"`, "unknown key %q", mem.Key)
		}
	}
	name, has := str(at, "skill", true, "", rep)
	if !has {
		return nil
	}
	o.name, o.nameAt = name, place{at.src, root.Get("skill")}
	if v := root.Get("scopes"); v != nil {
		ok = loadScopes(at, v, &o.scopes, rep) && ok
	}
	if v := root.Get("dynamic"); v != nil {
		if v.Kind != jsontree.Array {
			rep.errorf(place{at.src, v}, `write ["references/report.md", ...]`, `"dynamic" must be an array of file paths`)
			return nil
		}
		for _, el := range v.Elems {
			if el.Kind != jsontree.String {
				rep.errorf(place{at.src, el}, "", "a dynamic file is a path string, not a %s", el.Kind)
				ok = false
				continue
			}
			o.dynamic = append(o.dynamic, &skillDynamicDef{at: place{at.src, el}, path: el.Str})
		}
	}
	if !ok {
		return nil
	}
	return o
}

// applySkillOptions attaches each options file to its skill, checking that
// the skill exists and that each dynamic file is a new path of the skill.
func applySkillOptions(skills []*skillDef, byName map[string]*skillDef, opts []*skillOptionsDef, rep *reporter) {
	sort.SliceStable(opts, func(i, j int) bool { return before(opts[i].at, opts[j].at) })
	for _, o := range opts {
		s := byName[o.name]
		if s == nil {
			names := make([]string, 0, len(skills))
			for _, s := range skills {
				names = append(names, s.name)
			}
			hint := "add the skill folder to the inputs"
			if len(names) > 0 {
				hint += ", or name one of: " + strings.Join(names, ", ")
			}
			rep.errorf(o.nameAt, hint, "no skill folder among the inputs is named %q", o.name)
			continue
		}
		if s.options != nil {
			rep.errorf(o.nameAt, "merge the two files", "skill %q has options at %s already", o.name, s.options.at)
			continue
		}
		ok := true
		files := map[string]bool{}
		dirs := map[string]bool{}
		addDirs := func(p string) {
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				dirs[d] = true
			}
		}
		for _, f := range s.files {
			files[f.path] = true
			addDirs(f.path)
		}
		var dynamic []skillFileDef
		for _, d := range o.dynamic {
			p := d.path
			bad := func(hint, format string, args ...any) {
				rep.errorf(d.at, hint, format, args...)
				ok = false
			}
			switch {
			case p == "" || path.IsAbs(p) || path.Clean(p) != p || strings.HasPrefix(p, "../") || p == "..":
				bad("write the path inside the skill folder, such as references/report.md", "%q is not a clean path inside the skill folder", p)
			case p == skillFileName:
				bad("the frontmatter is read when generating, so SKILL.md is always a file of the folder", "SKILL.md cannot be dynamic")
			case strings.HasPrefix(p, ".") || strings.Contains(p, "/."):
				bad("rename it", "%q names a hidden file, which is not a skill file", p)
			case files[p]:
				bad("remove the file from the folder, or the path from \"dynamic\"", "%q is a file of the skill folder already", p)
			case dirs[p]:
				bad("choose another path", "%q is a folder of the skill", p)
			default:
				if err := embeddableName(p); err != nil {
					bad("rename it", "%q cannot be a skill file name: %v", p, err)
					continue
				}
				files[p] = true
				addDirs(p)
				dynamic = append(dynamic, skillFileDef{path: p, mimeType: skillMIMEType(p, nil, true), dynamic: d})
			}
		}
		if !ok {
			continue
		}
		s.options = o
		s.files = append(s.files, dynamic...)
		sort.Slice(s.files, func(i, j int) bool { return s.files[i].path < s.files[j].path })
	}
}
