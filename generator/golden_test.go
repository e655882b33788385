package generator

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// update rewrites the goldens: go test ./generator -run Golden -update (or
// MCPGEN_UPDATE_GOLDEN=1, which also works with go test ./... where other
// packages do not know the flag).
var update = flag.Bool("update", os.Getenv("MCPGEN_UPDATE_GOLDEN") == "1", "rewrite the golden files under testdata/golden")

const goldenRoot = "../testdata/golden"

// goldenCase is one folder of testdata/golden: input/*.json, the expected
// package in want/ and the expected diagnostics in want.stderr. Skill
// folders are input/skills/*: the generated package embeds them from its
// own folder, so want/skills holds a copy of them, as a package folder
// would; a skill folder anywhere else under input/ (input/outside/*) lies
// outside the package's folder. Other files of input/ are files the
// resources name (_meta["mcpgen.dev/file"]); want/ holds a copy at input/,
// where the package's go:embed lines find them.
type goldenCase struct {
	name   string
	dir    string
	inputs []InputFile
	skills []SkillFolder
	files  map[string][]byte // input/NAME -> contents
}

func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	entries, err := os.ReadDir(goldenRoot)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(goldenRoot, e.Name())
		names, err := filepath.Glob(filepath.Join(dir, "input", "*"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(names)
		c := goldenCase{name: e.Name(), dir: dir, skills: goldenSkills(t, dir), files: map[string][]byte{}}
		for _, n := range names {
			if fi, err := os.Stat(n); err == nil && fi.IsDir() {
				continue // skill folders: goldenSkills
			}
			data, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(n, ".json") {
				c.inputs = append(c.inputs, InputFile{Path: "input/" + filepath.Base(n), Data: data})
			} else {
				c.files["input/"+filepath.Base(n)] = data
			}
		}
		if len(c.inputs) == 0 && len(c.skills) == 0 {
			t.Fatalf("%s: no input/*.json and no skill folder", dir)
		}
		cases = append(cases, c)
	}
	if len(cases) < 25 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	return cases
}

func goldenPackage(name string) string { return strings.ReplaceAll(name, "-", "") }

// goldenImportPath is the import path of a case's expected package, which
// its typed test client imports.
func goldenImportPath(name string) string {
	return "github.com/mcpgen/mcpgen/testdata/golden/" + name + "/want"
}

// generateCase runs the pipeline and returns the files and the stderr text.
func generateCase(t *testing.T, c goldenCase, inputs []InputFile, skills []SkillFolder) (map[string][]byte, string) {
	t.Helper()
	res, err := Generate(Config{Package: goldenPackage(c.name), Inputs: inputs, Skills: skills, ImportPath: goldenImportPath(c.name), ReadFile: func(name string) ([]byte, error) {
		if data, ok := c.files[filepath.ToSlash(name)]; ok {
			return data, nil
		}
		return nil, os.ErrNotExist
	}})
	if res == nil {
		t.Fatalf("Generate: %v", err)
	}
	if err != nil && !res.Diagnostics.HasErrors() {
		t.Fatalf("Generate failed without diagnostics: %v", err)
	}
	if err != nil && res.Files != nil {
		t.Fatal("Generate returned files along with errors")
	}
	if res.Files == nil {
		return nil, res.Diagnostics.String()
	}
	tree := map[string][]byte{}
	for name, data := range res.Files {
		tree[name] = data
	}
	for name, data := range c.files {
		tree[name] = data
	}
	return tree, res.Diagnostics.String()
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			files, stderr := generateCase(t, c, c.inputs, c.skills)

			// Input order must not matter: reversed and rotated give the same bytes.
			for _, perm := range [][]InputFile{reversed(c.inputs), rotated(c.inputs)} {
				f2, s2 := generateCase(t, c, perm, reversed(c.skills))
				if s2 != stderr || !sameFiles(files, f2) {
					t.Fatal("a different input order gives different output")
				}
			}

			wantDir := filepath.Join(c.dir, "want")
			stderrFile := filepath.Join(c.dir, "want.stderr")
			if *update {
				os.RemoveAll(wantDir)
				for name, data := range files {
					os.MkdirAll(filepath.Dir(filepath.Join(wantDir, name)), 0o755)
					if err := os.WriteFile(filepath.Join(wantDir, name), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if len(files) > 0 {
					copySkills(t, c.dir)
				}
				os.Remove(stderrFile)
				if stderr != "" {
					if err := os.WriteFile(stderrFile, []byte(stderr), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			want := map[string][]byte{}
			_ = filepath.WalkDir(wantDir, func(p string, e fs.DirEntry, err error) error {
				if err == nil && e.IsDir() && p == filepath.Join(wantDir, "skills") {
					return filepath.SkipDir // the copy of the skill folders, compared below
				}
				if err != nil || e.IsDir() {
					return nil
				}
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				rel, _ := filepath.Rel(wantDir, p)
				want[filepath.ToSlash(rel)] = data
				return nil
			})
			if len(want) == 0 && len(files) > 0 {
				t.Fatalf("missing golden %s (run go test ./generator -run Golden -update)", wantDir)
			}
			for name, data := range files {
				if !bytes.Equal(want[name], data) {
					t.Errorf("%s differs from the golden (run with -update and review the diff)", name)
				}
			}
			for name := range want {
				if _, ok := files[name]; !ok {
					t.Errorf("golden %s is no longer generated", name)
				}
			}
			checkSkillCopy(t, c.dir)
			wantStderr, err := os.ReadFile(stderrFile)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if string(wantStderr) != stderr {
				t.Errorf("diagnostics differ:\n--- want\n%s--- got\n%s", wantStderr, stderr)
			}
		})
	}
}

// TestGoldenCompiles builds and vets every golden package.
func TestGoldenCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	var pkgs []string
	for _, c := range goldenCases(t) {
		if _, err := os.Stat(filepath.Join(c.dir, "want", "mcpgen_handler.go")); err == nil {
			pkgs = append(pkgs, "./testdata/golden/"+c.name+"/want/...")
		}
	}
	if len(pkgs) < 15 {
		t.Fatalf("only %d golden packages", len(pkgs))
	}
	cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
	// gofmt-stable: formatting again changes nothing.
	cmd = exec.Command("gofmt", "-l", "testdata/golden")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("gofmt -l: %v\n%s", err, out)
	}
	// goimports-stable too, when goimports is installed.
	if goimports, err := exec.LookPath("goimports"); err == nil {
		cmd = exec.Command(goimports, "-l", "testdata/golden")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("goimports -l: %v\n%s", err, out)
		}
	}
}

func reversed[T any](in []T) []T {
	out := make([]T, len(in))
	for i, f := range in {
		out[len(in)-1-i] = f
	}
	return out
}

func rotated(in []InputFile) []InputFile {
	if len(in) < 2 {
		return in
	}
	return append(append([]InputFile(nil), in[1:]...), in[0])
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(b[k], v) {
			return false
		}
	}
	return true
}

// goldenSkills reads a case's skill folders: input/skills/* inside the
// package's folder, any other folder of input/ holding a SKILL.md outside it.
func goldenSkills(t *testing.T, dir string) []SkillFolder {
	t.Helper()
	input := filepath.Join(dir, "input")
	var dirs []string
	err := filepath.WalkDir(input, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && isSkillFolder(p) {
			dirs = append(dirs, p)
			return filepath.SkipDir
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	skills, err := ReadSkills(dirs, input)
	if err != nil {
		t.Fatal(err)
	}
	for i := range skills {
		rel, _ := filepath.Rel(dir, dirs[i])
		skills[i].Path = filepath.ToSlash(rel)
		if !strings.HasPrefix(skills[i].Embed, "skills/") {
			skills[i].Embed = ""
		}
	}
	return skills
}

// skillTree maps the paths of the files under root to their contents
// (nil when root does not exist).
func skillTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	tree := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		tree[filepath.ToSlash(rel)] = data
		return err
	})
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// copySkills copies input/skills into want/skills (links left out: go:embed
// does not embed them).
func copySkills(t *testing.T, dir string) {
	t.Helper()
	for name, data := range skillTree(t, filepath.Join(dir, "input", "skills")) {
		p := filepath.Join(dir, "want", "skills", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkSkillCopy checks that want/skills is a copy of input/skills.
func checkSkillCopy(t *testing.T, dir string) {
	t.Helper()
	in, want := skillTree(t, filepath.Join(dir, "input", "skills")), skillTree(t, filepath.Join(dir, "want", "skills"))
	if _, err := os.Stat(filepath.Join(dir, "want")); os.IsNotExist(err) {
		return // a case of errors writes no package
	}
	if !sameFiles(in, want) {
		t.Errorf("want/skills is not a copy of input/skills (run with -update)")
	}
}
