package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// InputFile is one JSON input: its path (used in diagnostics) and contents.
type InputFile struct {
	Path string
	Data []byte
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
