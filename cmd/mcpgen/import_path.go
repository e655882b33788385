package main

import (
	"os"
	"path/filepath"
)

// importPathOf is the import path of the package in dir, from the go.mod
// of the module holding it, or "" outside any module. Generate writes the
// typed test client only when it knows the path (the client imports the
// package); outside a module nothing could import either.
func importPathOf(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	gomod := findGoMod(abs)
	if gomod == "" {
		return ""
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	mod := modulePathOf(data)
	rel, err := filepath.Rel(filepath.Dir(gomod), abs)
	if mod == "" || err != nil {
		return ""
	}
	if rel == "." {
		return mod
	}
	return mod + "/" + filepath.ToSlash(rel)
}
