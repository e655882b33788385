package generator

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// A resource whose contents are a file next to its JSON:
// _meta["mcpgen.dev/file"]: "notes_view.html". The generated package
// embeds the file with go:embed, so the server serves the bytes it was built
// with, and no Handler method is needed. The generated code names the file's
// SHA-256, so generate --check fails when the file changed since it was
// generated (and checked: a ui:// page must be an HTML5 document).
const metaFile = metaPrefix + "file"

// resourceFile is a resource's file.
type resourceFile struct {
	ref   *jsontree.Node // the _meta value, for diagnostics
	path  string         // as the inputs name it: the JSON file's folder joined with the value
	embed string         // relative to the output folder, for //go:embed
	text  bool           // valid UTF-8: served as text, else as a base64 blob
	sum   string         // hex SHA-256 of the contents
}

// embedElemRE is one element of a path go:embed accepts written bare (no
// pattern characters, no quoting, no leading dot).
var embedElemRE = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)

// loadFileRef reads the _meta value naming a resource's file.
func loadFileRef(at place, f *featureDef, rep *reporter) bool {
	v := at.node
	const hint = `name a file next to the JSON, such as "notes_view.html"`
	if v.Kind != jsontree.String || v.Str == "" {
		rep.errorf(at, hint, "%q must be a file name", metaFile)
		return false
	}
	if strings.HasPrefix(v.Str, "/") || strings.Contains(v.Str, `\`) {
		rep.errorf(at, hint, "%q is a path relative to the JSON file, written with /", metaFile)
		return false
	}
	f.file = &resourceFile{ref: v, path: path.Join(path.Dir(at.src.path), v.Str)}
	return true
}

// readResourceFile reads a resource's file, when it names one, and works
// out its go:embed path from the folder of the generated package. It
// returns the file's contents, or nil when it has none or it was reported.
func readResourceFile(f *featureDef, cfg *Config, rep *reporter) []byte {
	rf := f.file
	if rf == nil {
		return nil
	}
	readFile := cfg.ReadFile
	if readFile == nil {
		readFile = os.ReadFile
	}
	at := place{f.at.src, rf.ref}
	if len(f.elicitRefs) > 0 {
		rep.errorf(at, "serve it from a Handler method instead, or drop the elicitations",
			"a resource served from a file asks no questions, but this one lists elicitations")
	}
	embed, err := embedPath(cfg.Dir, rf.path)
	if err != nil {
		rep.errorf(at, "keep the file inside the folder of the generated package, or generate into a folder above it", "%v", err)
		return nil
	}
	for _, el := range strings.Split(embed, "/") {
		if !embedElemRE.MatchString(el) {
			rep.errorf(at, "use letters, digits, _ - and . in file and folder names, not first", "go:embed cannot name %s as written", embed)
			return nil
		}
	}
	data, err := readFile(filepath.FromSlash(rf.path))
	if err != nil {
		what := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			what = "it does not exist"
		}
		rep.errorf(at, "create it, or fix the name", "%s %q names %s, and %s", f.kind, f.key, rf.path, what)
		return nil
	}
	sum := sha256.Sum256(data)
	rf.embed, rf.text, rf.sum = embed, utf8.Valid(data), hex.EncodeToString(sum[:])
	return data
}

// embedPath is file relative to dir, or an error when go:embed cannot reach
// it from there.
func embedPath(dir, file string) (string, error) {
	if dir == "" {
		dir = "."
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	absFile, err := filepath.Abs(filepath.FromSlash(file))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, absFile)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s lies outside the package folder %s, where go:embed cannot reach", file, filepath.ToSlash(dir))
	}
	return filepath.ToSlash(rel), nil
}
