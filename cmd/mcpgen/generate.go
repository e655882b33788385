package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"

	"github.com/mcpgen/mcpgen/generator"
)

func newGenerateCmd(stdout, stderr io.Writer) *cobra.Command {
	var out, pkg string
	var check bool
	cmd := &cobra.Command{
		Use:   "generate [flags] INPUT... | generate --check [-o DIR]",
		Short: "Generate a Go package from tool, elicitation, prompt and resource JSON files and skill folders",
		Long: `generate reads JSON inputs (files, or folders of *.json files) and skill folders
(a folder holding a SKILL.md, or a folder of them) and writes one Go package
into -o. Each JSON input holds, as its list method returns it (alone, in an
array, as the list result or as the whole JSON-RPC response):

  a tool               {"name", "inputSchema", ...}          -> mcpgen_<name>_tool.go
  an elicitation       {"name", "mode": "form"|"url", ...}   -> mcpgen_<name>_elicitation.go
  a prompt             {"name", "arguments": [...], ...}     -> mcpgen_<name>_prompt.go
  a resource           {"uri", "name", ...}                  -> mcpgen_<name>_resource.go
  a resource template  {"uriTemplate", "name", ...}          -> mcpgen_<name>_template.go

A skill folder becomes mcpgen_<skill>_skill.go, which embeds the skill's files
(so a skill folder must lie inside the -o folder). mcpgen_handler.go holds the
Handler interface and Register, and inside a Go module the package's typed test
client is written to <package>test/mcpgen_client.go (see package
github.com/mcpgen/mcpgen/mcptest). tools/list lists the tools in the order of
the input files (folders in name order).

Only files whose bytes change are written; mcpgen files that are no longer
generated are removed; other files are never touched. When a handler type of
the folder (one asserted with var _ Handler = (*T)(nil)) lacks methods of the
new Handler, every one is printed with its signature, ready to paste. When an input is bad,
every problem is printed as file:LINE:COL: /json/pointer: message and nothing
is written. With --check nothing is written either: the exit code is 1 and a
unified diff is printed when the folder differs from what would be generated,
with the folder it compared with and the command that regenerates it. --check
with no INPUT reads the inputs (and -o, -package) from the //go:generate line
in the -o folder that runs mcpgen generate, so that CI checks exactly what go
generate writes: go tool mcpgen generate --check -o PACKAGE_FOLDER.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !check {
				return usageError{errors.New("generate needs at least one INPUT (a JSON file or a folder of them)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 { // --check: the inputs of the folder's //go:generate line
				line, err := readGenerateLine(out)
				if err != nil {
					return usageError{err}
				}
				if pkg == "" {
					pkg = line.pkg
				}
				fmt.Fprintf(stderr, "mcpgen: checking %s against //go:generate %s (%s)\n", line.out, line.command, line.file)
				return runGenerate(line.out, pkg, true, line.inputs, stdout, stderr)
			}
			return runGenerate(out, pkg, check, args, stdout, stderr)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", ".", "output folder")
	cmd.Flags().StringVar(&pkg, "package", "", "Go package name (default: the package already in the output folder, else the folder's name)")
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; exit 1 with a diff when the output folder is not up to date")
	return cmd
}

func runGenerate(out, pkg string, check bool, inputs []string, stdout, stderr io.Writer) error {
	if pkg == "" {
		var err error
		if pkg, err = defaultPackage(out); err != nil {
			return usageError{err}
		}
	}
	cfg, err := generator.ReadPaths(inputs, out)
	if err != nil {
		return err
	}
	cfg.Package, cfg.Dir, cfg.ImportPath = pkg, out, importPathOf(out)
	res, err := generator.Generate(cfg)
	if res != nil {
		fmt.Fprint(stderr, res.Diagnostics.String())
	}
	if errors.Is(err, generator.ErrUsage) {
		return usageError{err}
	}
	if err != nil {
		if res != nil && res.Diagnostics.HasErrors() {
			fmt.Fprintln(stderr, "mcpgen: nothing was written")
			return errReported
		}
		return err
	}
	stale, err := staleFiles(out, res.Files)
	if err != nil {
		return err
	}
	if check {
		if holdsNone(out, res.Files) {
			// Most likely the wrong folder: a diff would list every file as
			// new, in the package of whatever else is there.
			fmt.Fprintln(stderr, wrongFolderMessage(out, len(res.Files)))
			return errReported
		}
		diff, err := checkDiff(out, res.Files, stale)
		if err != nil {
			return err
		}
		if diff != "" {
			fmt.Fprint(stdout, diff)
			fmt.Fprintln(stderr, checkMessage(out, inputs))
			return errReported
		}
		return nil
	}
	if err := write(out, res.Files, stale); err != nil {
		return err
	}
	reportMissingMethods(out, res.Files, stderr)
	return nil
}

// defaultPackage is the package of the Go files already in dir, or else the
// folder's name made into a valid package name.
func defaultPackage(dir string) (string, error) {
	entries, _ := os.ReadDir(dir)
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.PackageClauseOnly)
		if err == nil {
			return f.Name.Name, nil
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	name := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			return unicode.ToLower(r)
		}
		return -1
	}, filepath.Base(abs))
	if name == "" || !token.IsIdentifier(name) {
		return "", fmt.Errorf("cannot make a package name from folder %q; pass -package", filepath.Base(abs))
	}
	return name, nil
}

// staleFiles are mcpgen's files in dir (by name pattern and header) that
// this generation does not produce.
func staleFiles(dir string, files map[string][]byte) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		if _, ok := files[e.Name()]; ok || e.IsDir() || !strings.HasPrefix(e.Name(), "mcpgen_") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if generator.Owned(e.Name(), data) {
			stale = append(stale, e.Name())
		}
	}
	return stale, nil
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// checkDiff returns a unified diff from the folder to the generated files,
// or "" when they match.
func checkDiff(dir string, files map[string][]byte, stale []string) (string, error) {
	var b strings.Builder
	add := func(old, cur []byte, fromName, toName string) error {
		d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(string(old)), B: difflib.SplitLines(string(cur)),
			FromFile: fromName, ToFile: toName, Context: 3,
		})
		if err != nil {
			return err
		}
		b.WriteString(d)
		return nil
	}
	for _, name := range sortedNames(files) {
		p := filepath.ToSlash(filepath.Join(dir, name))
		old, err := os.ReadFile(filepath.Join(dir, name))
		from := p
		if errors.Is(err, os.ErrNotExist) {
			old, from = nil, "/dev/null"
		} else if err != nil {
			return "", err
		}
		if bytes.Equal(old, files[name]) {
			continue
		}
		if err := add(old, files[name], from, p); err != nil {
			return "", err
		}
	}
	for _, name := range stale {
		p := filepath.ToSlash(filepath.Join(dir, name))
		old, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		if err := add(old, nil, p, "/dev/null"); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// write writes the files whose bytes changed (through a temporary file and a
// rename) and then removes the stale ones.
func write(dir string, files map[string][]byte, stale []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range sortedNames(files) {
		p := filepath.Join(dir, name)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil { // the test client's package
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(p), ".mcpgen-*.tmp")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(files[name])
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("writing %s: %w", p, err)
		}
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Rename(tmp.Name(), p); err != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("writing %s: %w", p, err)
		}
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// holdsNone reports whether dir holds none of the generated files.
func holdsNone(dir string, files map[string][]byte) bool {
	for name := range files {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return false
		}
	}
	return true
}

// wrongFolderMessage is what --check says instead of a diff when the folder
// holds none of the n generated files.
func wrongFolderMessage(out string, n int) string {
	return fmt.Sprintf("mcpgen: %s holds none of the %d generated files, so it is most likely not the folder of the generated package; "+
		"run --check from that folder (where its //go:generate line is), or point -o at it", absolute(out), n)
}

// checkMessage says where --check compared and how to regenerate: with go
// generate when a //go:generate line of the folder runs mcpgen, with go
// tool mcpgen when the module pins it as a tool, else with mcpgen itself.
func checkMessage(out string, inputs []string) string {
	return fmt.Sprintf("mcpgen: %s is not up to date with its inputs (%s); regenerate with %s",
		absolute(out), strings.Join(inputs, " "), regenerateCommand(out, inputs))
}

// absolute is dir as an absolute path when it can be made one.
func absolute(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// regenerateCommand is the command that regenerates the package in out.
func regenerateCommand(out string, inputs []string) string {
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasPrefix(e.Name(), "mcpgen_") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "//go:generate ") && strings.Contains(line, "mcpgen") && strings.Contains(line, " generate") {
				return fmt.Sprintf("`go generate ./...` in %s (the //go:generate line of %s)", out, e.Name())
			}
		}
	}
	args := "generate"
	if out != "." {
		args += " -o " + out
	}
	args += " " + strings.Join(inputs, " ")
	if pinsTool(out) {
		return "`go tool mcpgen " + args + "`"
	}
	return "`mcpgen " + args + "`"
}

// pinsTool reports whether the module holding dir pins mcpgen as a Go tool.
func pinsTool(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		if data, err := os.ReadFile(filepath.Join(abs, "go.mod")); err == nil {
			return strings.Contains(string(data), "github.com/mcpgen/mcpgen/cmd/mcpgen")
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return false
		}
		abs = parent
	}
}
