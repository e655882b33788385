package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodSkillMD = "---\nname: big\ndescription: A skill at the edge of the limits.\n---\n"

// generateSkill generates a package of one skill folder held in memory.
func generateSkill(t *testing.T, files []SkillFile) Diagnostics {
	t.Helper()
	res, _ := Generate(Config{Package: "p", Skills: []SkillFolder{{Path: "skills/big", Embed: "skills/big", Files: files}}})
	if res == nil {
		t.Fatal("no result")
	}
	return res.Diagnostics
}

func TestSkillLimits(t *testing.T) {
	md := SkillFile{Path: "SKILL.md", Data: []byte(goodSkillMD), Size: int64(len(goodSkillMD))}
	files := []SkillFile{md}
	for i := 1; i < MaxSkillFiles; i++ {
		files = append(files, SkillFile{Path: fmt.Sprintf("f%03d.md", i), Data: []byte("x"), Size: 1})
	}
	if ds := generateSkill(t, files); ds.HasErrors() {
		t.Fatalf("%d files is within the limit:\n%s", len(files), ds)
	}
	files = append(files, SkillFile{Path: "one-too-many.md", Data: []byte("x"), Size: 1})
	ds := generateSkill(t, files)
	if !ds.HasErrors() || !strings.Contains(ds.String(), "skills/big/SKILL.md:1:1: /: skill \"big\" has 513 files; a skill may have at most 512") {
		t.Fatalf("513 files:\n%s", ds)
	}

	// The bytes of the files count, SKILL.md included; a file past the
	// limit is not read (Data nil), only counted.
	rest := int64(MaxSkillBytes) - md.Size
	ds = generateSkill(t, []SkillFile{md, {Path: "big.bin", Data: make([]byte, rest), Size: rest}})
	if ds.HasErrors() {
		t.Fatalf("exactly 16 MiB is within the limit:\n%s", ds)
	}
	ds = generateSkill(t, []SkillFile{md, {Path: "big.bin", Size: rest + 1}})
	if !strings.Contains(ds.String(), fmt.Sprintf("skill \"big\" holds %d bytes; a skill may hold at most 16777216 (16 MiB) in all", MaxSkillBytes+1)) {
		t.Fatalf("16 MiB and a byte:\n%s", ds)
	}
}

func TestReadSkillsStopsReadingPastTheLimit(t *testing.T) {
	dir := t.TempDir()
	skill := filepath.Join(dir, "pkg", "skills", "big")
	write := func(name string, size int) {
		p := filepath.Join(skill, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("SKILL.md", 10)
	write("a.bin", MaxSkillBytes)
	write("b.bin", 5)
	write(".hidden/c.bin", 5)
	write(".d.bin", 5)
	skills, err := ReadSkills([]string{skill}, filepath.Join(dir, "pkg"))
	if err != nil {
		t.Fatal(err)
	}
	got := skills[0]
	if got.Embed != "skills/big" || len(got.Files) != 3 {
		t.Fatalf("embed %q, files %+v", got.Embed, got.Files)
	}
	for _, f := range got.Files {
		if f.Path == "a.bin" && f.Data != nil || f.Path == "b.bin" && f.Data != nil || f.Path == "SKILL.md" && f.Data == nil {
			t.Errorf("%s: read %v, size %d", f.Path, f.Data != nil, f.Size)
		}
	}
	if skills, _ := ReadSkills([]string{skill}, filepath.Join(dir, "other")); skills[0].Embed != "" {
		t.Errorf("a folder outside the package got embed path %q", skills[0].Embed)
	}
}

// TestReadPaths: ReadPaths gives each folder to the kind that reads it
// whole (a skill folder, or the skill folders directly inside an input
// folder) and reads the rest as JSON: files, and folders that hold *.json
// files or no skill at all.
func TestReadPaths(t *testing.T) {
	dir := t.TempDir()
	mk := func(p, data string) {
		p = filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("one/SKILL.md", goodSkillMD)
	mk("many/a/SKILL.md", goodSkillMD)
	mk("many/b/SKILL.md", goodSkillMD)
	mk("many/notes/readme.txt", "not a skill")
	mk("mixed/tool.json", "{}")
	mk("mixed/c/SKILL.md", goodSkillMD)
	mk("tool.json", "{}")
	in := func(ps ...string) []string {
		for i, p := range ps {
			ps[i] = filepath.Join(dir, p)
		}
		return ps
	}
	cfg, err := ReadPaths(in("one", "many", "mixed", "tool.json"), dir)
	if err != nil {
		t.Fatal(err)
	}
	var skills, inputs []string
	for _, s := range cfg.Skills {
		skills = append(skills, s.Embed)
	}
	for _, f := range cfg.Inputs {
		inputs = append(inputs, f.Path)
	}
	if want := "one,many/a,many/b,mixed/c"; strings.Join(skills, ",") != want {
		t.Errorf("skills %v, want %v", skills, want)
	}
	if want := filepath.ToSlash(filepath.Join(dir, "mixed/tool.json")) + "," + filepath.ToSlash(filepath.Join(dir, "tool.json")); strings.Join(inputs, ",") != want {
		t.Errorf("inputs %v, want %v", inputs, want)
	}
	if _, err := ReadPaths(in("missing"), dir); err == nil {
		t.Error("ReadPaths of a missing path succeeded")
	}
}

func TestEmbeddableName(t *testing.T) {
	for _, p := range []string{"a.md", "scripts/fill.py", "with space.md", "_under.md", "ünï.md", "a+b(1).txt"} {
		if err := embeddableName(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{"a*.md", "q?.md", "b[1].md", "x:y", "dot.", "con.txt", "GIT~1", `back\slash`, "tab\t.md"} {
		if err := embeddableName(p); err == nil {
			t.Errorf("%s: accepted", p)
		}
	}
}
