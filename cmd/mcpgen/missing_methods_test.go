package main

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator"
)

// generatedNotes generates a package with three tools (one with typed
// output) and a prompt, the Handler the cases below implement in part.
func generatedNotes(t *testing.T) map[string][]byte {
	t.Helper()
	tools := `[
  {"name": "add_note", "inputSchema": {"type": "object"}},
  {"name": "rename_note", "description": "Renames a note.", "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}},
  {"name": "count_notes", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}
]`
	prompt := `{"name": "summarize", "arguments": []}`
	res, err := generator.Generate(generator.Config{Package: "notes", Inputs: []generator.InputFile{
		{Path: "tools.json", Data: []byte(tools)}, {Path: "prompt.json", Data: []byte(prompt)}}})
	if err != nil {
		t.Fatalf("generate: %v\n%s", err, res.Diagnostics.String())
	}
	return res.Files
}

func TestMissingMethods(t *testing.T) {
	generated := generatedNotes(t)
	const header = "package notes\n\nimport \"context\"\n\n"
	for _, tc := range []struct {
		name string
		user string
		want []string // the methods reported, in Handler's order; nil: no report
		recv string   // the receiver the report writes
	}{
		{"pointer assertion, one method written", header + `type Tools struct{}

var _ Handler = (*Tools)(nil)

func (tl *Tools) AddNote(ctx context.Context, call AddNoteCall, in AddNoteInput) ([]runtime.Content, error) { return nil, nil }
`, []string{"RenameNote", "CountNotes", "SummarizePrompt"}, "(tl *Tools)"},
		{"value assertion, no method yet", header + "type Tools struct{}\n\nvar _ Handler = Tools{}\n",
			[]string{"AddNote", "RenameNote", "CountNotes", "SummarizePrompt"}, "(t Tools)"},
		{"&T{} and a local embedded type", header + `type base struct{}

func (base) AddNote() {}

type Tools struct{ base }

var _ Handler = &Tools{}
`, []string{"RenameNote", "CountNotes", "SummarizePrompt"}, "(t *Tools)"},
		{"every method written", header + `type H struct{}

var _ Handler = new(H)

func (*H) AddNote()         {}
func (*H) RenameNote()      {}
func (*H) CountNotes()      {}
func (*H) SummarizePrompt() {}
`, nil, ""},
		{"UnimplementedHandler embedded", header + "type Tools struct{ UnimplementedHandler }\n\nvar _ Handler = Tools{}\n", nil, ""},
		{"another package's type embedded: its methods are unknown", header + "import \"example.com/base\"\n\ntype Tools struct{ base.Handler }\n\nvar _ Handler = Tools{}\n", nil, ""},
		{"no assertion", header + "type Tools struct{}\n", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gaps, err := missingMethods(generated, map[string][]byte{"tools.go": []byte(tc.user)})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(gaps) != 0 {
					t.Fatalf("reported %d gaps, want none:\n%s", len(gaps), gaps[0].String("notes"))
				}
				return
			}
			if len(gaps) != 1 {
				t.Fatalf("reported %d gaps, want 1", len(gaps))
			}
			report := gaps[0].String("notes")
			if len(gaps[0].methods) != len(tc.want) {
				t.Errorf("reported %d methods, want %d (%v):\n%s", len(gaps[0].methods), len(tc.want), tc.want, report)
			}
			for i, name := range tc.want {
				if i < len(gaps[0].methods) && !strings.Contains(gaps[0].methods[i], "func "+tc.recv+" "+name+"(") {
					t.Errorf("method %d is not %s on %s:\n%s", i, name, tc.recv, gaps[0].methods[i])
				}
			}
		})
	}
}

// TestMissingMethodsReportIsPasteReady: the report names where the type is
// asserted, how many methods it lacks and the packages they use, and gives
// each method with its doc, its parameter names and a body that compiles.
func TestMissingMethodsReportIsPasteReady(t *testing.T) {
	user := "package notes\n\ntype Tools struct{}\n\nvar _ Handler = (*Tools)(nil)\n"
	gaps, err := missingMethods(generatedNotes(t), map[string][]byte{"tools.go": []byte(user)})
	if err != nil || len(gaps) != 1 {
		t.Fatalf("gaps %v, err %v", gaps, err)
	}
	report := gaps[0].String("notes")
	for _, want := range []string{
		"mcpgen: *Tools (tools.go:5) lacks 4 methods of Handler; the build would stop at the first. Paste all 4 into a file of yours in notes/ (they use the packages context, fmt and github.com/mcpgen/mcpgen/runtime):\n",
		"// RenameNote handles tool rename_note.\n//\n// Renames a note.\nfunc (t *Tools) RenameNote(ctx context.Context, call RenameNoteCall, in RenameNoteInput) ([]runtime.Content, error) {\n\treturn nil, fmt.Errorf(\"tool %q is not implemented\", RenameNoteToolName)\n}\n",
		"func (t *Tools) CountNotes(ctx context.Context, call CountNotesCall, in CountNotesInput) (CountNotesOutput, error) {\n\treturn CountNotesOutput{}, fmt.Errorf(",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks\n%s\nin:\n%s", want, report)
		}
	}
}
