package templates

import (
	"sort"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator"
)

// The example schemas generate without a warning, into the files the
// handler stubs and the regeneration docs name.
func TestExampleSchemasGenerateCleanly(t *testing.T) {
	files, err := Project(Data{Name: "srv", Package: "notes", ImportPath: "example.com/srv"})
	if err != nil {
		t.Fatal(err)
	}
	var inputs []generator.InputFile
	skill := generator.SkillFolder{Path: "notes/skills/note-taking", Embed: "skills/note-taking"}
	for _, f := range files {
		if strings.HasPrefix(f.Path, "notes/schemas/") {
			inputs = append(inputs, generator.InputFile{Path: f.Path, Data: f.Data})
		}
		if rel, ok := strings.CutPrefix(f.Path, skill.Path+"/"); ok {
			skill.Files = append(skill.Files, generator.SkillFile{Path: rel, Data: f.Data, Size: int64(len(f.Data))})
		}
	}
	res, err := generator.Generate(generator.Config{Package: "notes", Inputs: inputs, Skills: []generator.SkillFolder{skill}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) > 0 {
		t.Errorf("warnings: %v", res.Diagnostics)
	}
	var got []string
	for name := range res.Files {
		got = append(got, name)
	}
	sort.Strings(got)
	want := "mcpgen_add_note_tool.go mcpgen_confirm_delete_elicitation.go mcpgen_delete_note_tool.go mcpgen_handler.go mcpgen_list_notes_tool.go mcpgen_note_added_event.go mcpgen_note_taking_skill.go mcpgen_note_template.go mcpgen_package_events.go mcpgen_summarize_note_prompt.go"
	if strings.Join(got, " ") != want {
		t.Errorf("generated files:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	// The go:generate line must sort after every generated file (see notes.go).
	for _, name := range got {
		if name > "notes.go" {
			t.Errorf("generated %s sorts after notes.go, which holds the go:generate line", name)
		}
	}
}
