package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// generateLine is what a //go:generate line that runs `mcpgen generate`
// asks for, its paths made relative to the working directory.
type generateLine struct {
	file    string // the Go file holding the line
	out     string // -o, default the line's folder
	pkg     string // -package
	inputs  []string
	command string // the line as written, after //go:generate
}

// readGenerateLine finds the //go:generate line of dir that runs mcpgen
// generate, so that `mcpgen generate --check` with no inputs checks exactly
// what `go generate` writes. Generated files (mcpgen_*.go) are not read.
func readGenerateLine(dir string) (*generateLine, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("--check with no INPUT reads the //go:generate line of the -o folder: %w", err)
	}
	var found []*generateLine
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasPrefix(n, "mcpgen_") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(data), "\n") {
			cmd, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "//go:generate ")
			if !ok {
				continue
			}
			args, ok := mcpgenGenerateArgs(cmd)
			if !ok {
				continue
			}
			g, err := parseGenerateArgs(dir, args)
			if err != nil {
				return nil, fmt.Errorf("%s: //go:generate %s: %w", filepath.Join(dir, n), cmd, err)
			}
			g.file, g.command = filepath.Join(dir, n), cmd
			found = append(found, g)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("generate --check needs INPUTs, or a //go:generate line running mcpgen generate in %s (the -o folder) to read them from; there is none", absolute(dir))
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("%s has %d //go:generate lines running mcpgen generate (%s and %s); name the INPUTs to check", absolute(dir), len(found), found[0].file, found[1].file)
}

// mcpgenGenerateArgs returns the arguments after `... mcpgen generate` in
// a go:generate command (go tool mcpgen, mcpgen, go run .../cmd/mcpgen).
func mcpgenGenerateArgs(cmd string) ([]string, bool) {
	words := splitGenerateWords(cmd)
	for i := 0; i+1 < len(words); i++ {
		if (words[i] == "mcpgen" || strings.HasSuffix(words[i], "/mcpgen") || strings.HasSuffix(words[i], "/cmd/mcpgen")) && words[i+1] == "generate" {
			return words[i+2:], true
		}
	}
	return nil, false
}

// splitGenerateWords splits a go:generate command the way go generate
// does: at spaces, with double-quoted Go strings as one word.
func splitGenerateWords(cmd string) []string {
	var words []string
	for cmd = strings.TrimSpace(cmd); cmd != ""; cmd = strings.TrimSpace(cmd) {
		if cmd[0] == '"' {
			if q, err := strconv.QuotedPrefix(cmd); err == nil {
				w, _ := strconv.Unquote(q)
				words = append(words, w)
				cmd = cmd[len(q):]
				continue
			}
		}
		end := strings.IndexAny(cmd, " \t")
		if end < 0 {
			end = len(cmd)
		}
		words = append(words, cmd[:end])
		cmd = cmd[end:]
	}
	return words
}

// parseGenerateArgs reads generate's flags and inputs as the line gives
// them; its paths are relative to dir, where go generate runs it.
func parseGenerateArgs(dir string, args []string) (*generateLine, error) {
	fs := pflag.NewFlagSet("generate", pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	out := fs.StringP("out", "o", ".", "")
	pkg := fs.String("package", "", "")
	fs.Bool("check", false, "")
	for i, a := range args { // the Go spelling, -package
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && !strings.HasPrefix(a, "-o") {
			args[i] = "-" + a
		}
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() == 0 {
		return nil, fmt.Errorf("it names no INPUT")
	}
	rel := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	g := &generateLine{out: rel(*out), pkg: *pkg}
	for _, in := range fs.Args() {
		g.inputs = append(g.inputs, rel(in))
	}
	return g, nil
}
