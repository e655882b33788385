package generator

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"regexp"
	"strings"
	"sync"
)

// Result is a generated package.
type Result struct {
	// Files maps file names to contents: the package's files, and with
	// Config.ImportPath the test client in a folder of its own (TestClientFile).
	Files map[string][]byte
	// Diagnostics are the warnings (and, when Generate fails, the errors),
	// sorted by file, line and column.
	Diagnostics Diagnostics
}

// ErrUsage marks a Config that cannot be used at all (not a problem in the
// inputs).
var ErrUsage = errors.New("usage")

// ownedRE matches the names of files mcpgen writes: mcpgen_handler.go and
// mcpgen_<name>_<kind>.go for each kind's files.
var ownedRE = sync.OnceValue(func() *regexp.Regexp {
	var words []string
	for _, k := range inputKinds() {
		words = append(words, k.fileKinds()...)
	}
	return regexp.MustCompile(`^mcpgen_(handler|[a-z0-9_]+_(` + strings.Join(words, "|") + `))\.go$`)
})

// Owned reports whether a file with this name and contents was written by
// mcpgen: both its name pattern and its first line say so.
func Owned(name string, data []byte) bool {
	return ownedRE().MatchString(name) && bytes.HasPrefix(data, []byte(Header+"\n"))
}

// Generate runs the pipeline: load every input with its kind, let each kind
// finish and resolve the references between kinds, build each kind's part
// (the IR), and emit the package from the parts. When any input is bad it
// returns the result with no files and an error that is the Diagnostics.
func Generate(cfg Config) (*Result, error) {
	if !token.IsIdentifier(cfg.Package) || cfg.Package == "_" {
		return nil, fmt.Errorf("%w: %q is not a valid Go package name", ErrUsage, cfg.Package)
	}
	if len(cfg.Inputs) == 0 && len(cfg.Skills) == 0 {
		return nil, fmt.Errorf("%w: no input files", ErrUsage)
	}
	rep := &reporter{}
	kinds := inputKinds()
	lc := newLoadContext(&cfg, rep)
	for _, in := range cfg.Inputs {
		loadFile(in, kinds, lc)
	}
	for _, k := range kinds {
		k.finish(lc)
	}
	lc.resolve()

	importPath := cfg.ImportPath
	if cfg.Package == "main" { // a command cannot be imported, so it gets no test client
		importPath = ""
	}
	bc := newBuildContext(cfg.Package, importPath != "", rep)
	parts := make([]part, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, k.build(bc))
	}

	res := &Result{Diagnostics: rep.diags}
	res.Diagnostics.sort()
	if res.Diagnostics.HasErrors() {
		return res, res.Diagnostics
	}
	files, err := emitPackage(cfg.Package, importPath, parts)
	if err != nil {
		return res, err
	}
	res.Files = files
	return res, nil
}
