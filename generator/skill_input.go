package generator

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SkillFolder is one agent skill: a folder holding a SKILL.md (YAML
// frontmatter, then instructions) and any supporting files, read from disk
// by ReadSkills. The generated package embeds its files with go:embed.
type SkillFolder struct {
	// Path is the folder as given, slash-separated, for diagnostics.
	Path string
	// Embed is the folder relative to the generated package's folder,
	// slash-separated, as go:embed patterns name it; "" when the folder lies
	// outside the package's folder, where go:embed cannot reach.
	Embed string
	// Files are the skill's files, sorted by path, SKILL.md among them (when
	// the folder has one). Names starting with a dot are not skill files and
	// are left out, like the folders holding them.
	Files []SkillFile
}

// SkillFile is one file of a skill folder.
type SkillFile struct {
	// Path is the file's path inside the skill folder, slash-separated.
	Path string
	// Data is the file's content. It is left unread (nil) past the limits a
	// skill may have, which are reported instead.
	Data []byte
	// Size is the file's length in bytes.
	Size int64
	// Link is the target of a symbolic link, as the link holds it; such a
	// file is reported, not served (go:embed does not embed links).
	Link string
	// Outside is set when Link resolves to a place outside the skill folder.
	Outside bool
	// Irregular is set for what is neither a regular file nor a link (a
	// socket, a device), which is reported.
	Irregular bool
}

// The limits of the skills extension (SEP-2640): a skill has at most
// MaxSkillFiles files, SKILL.md included, of at most MaxSkillBytes in all.
const (
	MaxSkillFiles = 512
	MaxSkillBytes = 16 << 20
)

// skillFileName is the file that makes a folder a skill.
const skillFileName = "SKILL.md"

// IsSkillFolder reports whether dir holds a SKILL.md.
func IsSkillFolder(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, skillFileName))
	return err == nil && st.Mode().IsRegular()
}

// SplitSkillInputs separates the skill inputs from the JSON inputs of
// mcpgen generate: a folder holding a SKILL.md is a skill, and each folder
// directly inside an input folder that holds one is a skill too. It returns
// the skill folders and the inputs left for ReadInputs: files, and folders
// that hold *.json files or no skill at all.
func SplitSkillInputs(paths []string) (skills, rest []string, err error) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("reading input: %w", err)
		}
		if !st.IsDir() {
			rest = append(rest, p)
			continue
		}
		if IsSkillFolder(p) {
			skills = append(skills, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, nil, fmt.Errorf("reading input folder: %w", err)
		}
		hasJSON, found := false, false
		for _, e := range entries {
			switch {
			case e.IsDir() && IsSkillFolder(filepath.Join(p, e.Name())):
				skills = append(skills, filepath.Join(p, e.Name()))
				found = true
			case !e.IsDir() && strings.HasSuffix(e.Name(), ".json"):
				hasJSON = true
			}
		}
		if hasJSON || !found {
			rest = append(rest, p)
		}
	}
	return skills, rest, nil
}

// ReadSkills reads skill folders for a package generated into pkgDir. Files
// past the limits of a skill are listed with their sizes but not read.
func ReadSkills(dirs []string, pkgDir string) ([]SkillFolder, error) {
	pkgAbs, err := filepath.Abs(pkgDir)
	if err != nil {
		return nil, err
	}
	var out []SkillFolder
	for _, dir := range dirs {
		sf, err := readSkill(dir, pkgAbs)
		if err != nil {
			return nil, err
		}
		out = append(out, sf)
	}
	return out, nil
}

func readSkill(dir, pkgAbs string) (SkillFolder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return SkillFolder{}, err
	}
	sf := SkillFolder{Path: filepath.ToSlash(filepath.Clean(dir))}
	if rel, err := filepath.Rel(pkgAbs, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		sf.Embed = filepath.ToSlash(rel)
	}
	// A link inside the folder may resolve through other links; compare
	// with the folder's own resolved path.
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return SkillFolder{}, fmt.Errorf("reading skill folder: %w", err)
	}
	var total int64
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == abs {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(abs, p)
		f := SkillFile{Path: filepath.ToSlash(rel)}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			f.Link = target
			resolved, err := filepath.EvalSymlinks(p)
			f.Outside = err != nil || !within(real, resolved)
		case !d.Type().IsRegular():
			f.Irregular = true
		default:
			info, err := d.Info()
			if err != nil {
				return err
			}
			f.Size = info.Size()
			total += f.Size
			if total <= MaxSkillBytes && len(sf.Files) < MaxSkillFiles {
				if f.Data, err = os.ReadFile(p); err != nil {
					return err
				}
				f.Size = int64(len(f.Data))
			}
		}
		sf.Files = append(sf.Files, f)
		return nil
	})
	if err != nil {
		return SkillFolder{}, fmt.Errorf("reading skill folder %s: %w", dir, err)
	}
	sort.Slice(sf.Files, func(i, j int) bool { return sf.Files[i].Path < sf.Files[j].Path })
	return sf, nil
}

// within reports whether path lies inside dir (both absolute and clean).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
