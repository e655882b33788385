package generator

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The limits of the skills extension (SEP-2640): a skill has at most
// MaxSkillFiles files, SKILL.md included, of at most MaxSkillBytes in all.
const (
	MaxSkillFiles = 512
	MaxSkillBytes = 16 << 20
)

// skillFileName is the file that makes a folder a skill.
const skillFileName = "SKILL.md"

// isSkillFolder reports whether dir holds a SKILL.md.
func isSkillFolder(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, skillFileName))
	return err == nil && st.Mode().IsRegular()
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
