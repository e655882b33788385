package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Config is one generation.
type Config struct {
	// Package is the Go package name of the output.
	Package string
	// Inputs are the JSON files; their order does not matter.
	Inputs []InputFile
	// Skills are the skill folders (ReadSkills); their order does not matter.
	Skills []SkillFolder
	// Dir is the folder the package is written to ("" is the current one).
	// Files that resources name (_meta["mcpgen.dev/file"]) are embedded with
	// go:embed, so they must lie inside it.
	Dir string
	// ReadFile reads the files resources name, by the path relative to
	// their input's Path; nil is os.ReadFile.
	ReadFile func(name string) ([]byte, error)
	// ImportPath is the import path of the generated package. When set (and
	// the package is not main), the result also holds the typed test client,
	// in the sibling package Package+"test" (TestClientFile).
	ImportPath string
}

// InputFile is one JSON input: its path (used in diagnostics) and contents.
type InputFile struct {
	Path string
	Data []byte
}

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

// ReadInputs reads the files named by paths; a folder contributes every
// *.json file directly inside it, in name order.
func ReadInputs(paths []string) ([]InputFile, error) {
	var files []InputFile
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("reading input: %w", err)
		}
		names := []string{p}
		if st.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("reading input folder: %w", err)
			}
			names = names[:0]
			for _, e := range entries {
				if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
					names = append(names, filepath.Join(p, e.Name()))
				}
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("input folder %s holds no .json files", p)
			}
			sort.Strings(names)
		}
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				return nil, fmt.Errorf("reading input: %w", err)
			}
			files = append(files, InputFile{Path: filepath.ToSlash(n), Data: data})
		}
	}
	return files, nil
}
