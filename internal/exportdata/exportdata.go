// Package exportdata gives tests that type-check Go source an importer that
// reads each import's compiled export data from the build cache (go list
// -export) instead of type-checking it, the standard library included,
// from source: under -race that took a minute and more per check.
package exportdata

import (
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Files maps each of pkgs and every package they import, directly or not,
// to its export data file, as go list -export -deps reports them from the
// current folder's module ("." for the package of this folder).
func Files(pkgs ...string) (map[string]string, error) {
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		return nil, fmt.Errorf("go list -export: %v\n%s", err, msg)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok && file != "" {
			m[path] = file
		}
	}
	return m, nil
}

// Importer imports from files (as Files returns them); an import files
// does not name is an error that says so.
func Importer(fset *token.FileSet, files map[string]string) types.Importer {
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}
