package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ReadPaths reads what mcpgen generate is given, for a package written to
// pkgDir, into the inputs of a Config: each path is a JSON file, a folder of
// *.json files, or a folder that an input kind reads whole (a skill folder:
// one holding a SKILL.md). A folder is also searched one level down for the
// folders a kind reads whole (a folder of skill folders); it is read as JSON
// too when it holds *.json files, or when no kind claims anything in it.
func ReadPaths(paths []string, pkgDir string) (Config, error) {
	var folderKinds []folderKind
	for _, k := range inputKinds() {
		if fk, ok := k.(folderKind); ok {
			folderKinds = append(folderKinds, fk)
		}
	}
	claimed := make([][]string, len(folderKinds))
	claim := func(dir string) bool {
		for i, fk := range folderKinds {
			if fk.claimsFolder(dir) {
				claimed[i] = append(claimed[i], dir)
				return true
			}
		}
		return false
	}
	var jsonPaths []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return Config{}, fmt.Errorf("reading input: %w", err)
		}
		if !st.IsDir() {
			jsonPaths = append(jsonPaths, p)
			continue
		}
		if claim(p) {
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return Config{}, fmt.Errorf("reading input folder: %w", err)
		}
		hasJSON, found := false, false
		for _, e := range entries {
			switch {
			case e.IsDir():
				found = claim(filepath.Join(p, e.Name())) || found
			case strings.HasSuffix(e.Name(), ".json"):
				hasJSON = true
			}
		}
		if hasJSON || !found {
			jsonPaths = append(jsonPaths, p)
		}
	}
	var cfg Config
	for i, fk := range folderKinds {
		if err := fk.readFolders(claimed[i], pkgDir, &cfg); err != nil {
			return Config{}, err
		}
	}
	if len(jsonPaths) > 0 {
		files, err := ReadInputs(jsonPaths)
		if err != nil {
			return Config{}, err
		}
		cfg.Inputs = files
	}
	return cfg, nil
}
