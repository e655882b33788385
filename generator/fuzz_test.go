package generator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// FuzzGenerate feeds arbitrary files to the pipeline: it must report
// problems, never panic, and never return files together with errors.
func FuzzGenerate(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join(goldenRoot, "*", "input", "*.json"))
	for _, n := range names {
		if data, err := os.ReadFile(n); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Generate(Config{Package: "fuzz", Inputs: []InputFile{{Path: "in.json", Data: data}}})
		if err != nil && res != nil && res.Files != nil {
			t.Fatal("files returned with an error")
		}
		if err == nil && len(res.Files) == 0 {
			t.Fatal("no files and no error")
		}
	})
}

// FuzzParse checks the position tree against encoding/json's idea of valid.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[1,"a",{"b":null}]`, `{"a":{"b":[true,false]}}`, `"x"`, ` 1 `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := jsontree.Parse(data)
		if err != nil {
			return
		}
		var walk func(n *jsontree.Node)
		walk = func(n *jsontree.Node) {
			if d.At(n.Ptr()) != n {
				t.Fatalf("At(%q) does not find the node", n.Ptr())
			}
			for _, m := range n.Members {
				walk(m.Value)
			}
			for _, e := range n.Elems {
				walk(e)
			}
		}
		walk(d.Root)
	})
}
