package generator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// deepTool is a tool whose input nests depth objects, each the "child" of
// the one above.
func deepTool(depth int) []byte {
	return []byte(`{"name": "deep", "description": "deep", "inputSchema": ` +
		strings.Repeat(`{"type": "object", "properties": {"child": `, depth) +
		`{"type": "object", "properties": {"leaf": {"type": "string"}}}` + strings.Repeat("}}", depth) + `}`)
}

// wideTool is a tool whose input has n string properties.
func wideTool(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"name": "wide", "description": "wide", "inputSchema": {"type": "object", "properties": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"p%d": {"type": "string"}`, i)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

func generateOne(t testing.TB, data []byte, limits Limits) (*Result, error) {
	t.Helper()
	res, err := Generate(Config{Package: "limits", Inputs: []InputFile{{Path: "in.json", Data: data}}, Limits: limits})
	if res == nil {
		t.Fatalf("Generate: %v", err)
	}
	return res, err
}

func outputBytes(res *Result) int {
	n := 0
	for _, f := range res.Files {
		n += len(f)
	}
	return n
}

// TestLimitsAreLocatedErrors: past each limit, Generate returns one located
// error and no files.
func TestLimitsAreLocatedErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   []byte
		limits Limits
		want   string
	}{
		{"depth", deepTool(70), Limits{}, "in.json:1:2798: /inputSchema/properties/child/"},
		{"schema nodes", wideTool(5000), Limits{}, "in.json:1:56: /inputSchema: the schema holds more than 5000 objects and arrays"},
		{"file size", wideTool(100), Limits{MaxInputBytes: 1000}, "in.json:1:1: /: the file holds 2780 bytes; an input file may hold at most 1000 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := generateOne(t, tc.data, tc.limits)
			if err == nil || res.Files != nil || len(res.Diagnostics) != 1 || !strings.HasPrefix(res.Diagnostics[0].String(), tc.want) {
				t.Fatalf("got %v, want one error starting %q", res.Diagnostics, tc.want)
			}
		})
	}
	// Just within the limits, the same inputs generate: the root, its
	// "properties" and 498 properties are 500 objects.
	if _, err := generateOne(t, deepTool(62), Limits{}); err != nil {
		t.Errorf("depth within the limit: %v", err)
	}
	if _, err := generateOne(t, wideTool(498), Limits{MaxSchemaNodes: 500}); err != nil {
		t.Errorf("schema nodes within the limit: %v", err)
	}
	if _, err := generateOne(t, wideTool(499), Limits{MaxSchemaNodes: 500}); err == nil {
		t.Error("501 schema nodes passed a limit of 500")
	}
}

func TestFrontmatterLimits(t *testing.T) {
	bomb := "---\nname: bomb\ndescription: d\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 10; i++ {
		bomb += fmt.Sprintf("a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	bomb += "---\nbody\n"
	_, problems := parseFrontmatter([]byte(bomb), Limits{}.withDefaults())
	if len(problems) != 1 || !strings.Contains(problems[0].msg, "more than 100 aliases") || problems[0].line != 5 {
		t.Fatalf("alias bomb: %+v", problems)
	}
	// Few aliases of a long value pass the alias count but not the bytes.
	long := "---\nname: long\ndescription: d\nv: &v " + strings.Repeat("y", 1000) + "\nl: [" + strings.TrimSuffix(strings.Repeat("*v, ", 60), ", ") + "]\n---\n"
	_, problems = parseFrontmatter([]byte(long), Limits{MaxFrontmatterBytes: 40 << 10}.withDefaults())
	if len(problems) != 1 || !strings.Contains(problems[0].msg, "as JSON (its aliases written out) passes 40 KiB") {
		t.Fatalf("long aliases: %+v", problems)
	}
	_, problems = parseFrontmatter([]byte(long), Limits{MaxFrontmatterBytes: 1000}.withDefaults())
	if len(problems) != 1 || !strings.Contains(problems[0].msg, "the frontmatter holds 1276 bytes; it may hold at most 1000 bytes") {
		t.Fatalf("long frontmatter: %+v", problems)
	}
	if fm, problems := parseFrontmatter([]byte(long), Limits{}.withDefaults()); len(problems) != 0 || len(fm.json) < 60000 {
		t.Fatalf("within the limits: %+v", problems)
	}
}

// TestOutputGrowsLinearly: doubling the depth of a schema or its number of
// properties at most doubles the generated code (plus the files every
// package has), and no identifier grows with the depth.
func TestOutputGrowsLinearly(t *testing.T) {
	for _, tc := range []struct {
		name        string
		small, big  []byte
		smallInBig  int
		maxIdentLen int
	}{
		{"depth", deepTool(30), deepTool(60), 2, maxTypeName + 8},
		{"properties", wideTool(1000), wideTool(2000), 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			small, err := generateOne(t, tc.small, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			big, err := generateOne(t, tc.big, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			s, b := outputBytes(small), outputBytes(big)
			if ratio := float64(b) / float64(s); ratio > 2.1 {
				t.Errorf("%d bytes of Go for the small input, %d for one twice its size (x%.2f)", s, b, ratio)
			}
			if tc.maxIdentLen == 0 {
				return
			}
			for name, src := range big.Files {
				f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
				if err != nil {
					t.Fatal(err)
				}
				ast.Inspect(f, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok && len(id.Name) > tc.maxIdentLen {
						t.Errorf("%s: identifier %s has %d bytes", name, id.Name, len(id.Name))
					}
					return true
				})
			}
		})
	}
}

// BenchmarkGenerateDeep and BenchmarkGenerateWide report the time and the
// bytes of Go per input as a schema grows deeper or wider, within the
// default limits: the time per input byte and the output per input byte
// stay about the same.
func BenchmarkGenerateDeep(b *testing.B) {
	for _, depth := range []int{15, 30, 60} {
		benchmarkGenerate(b, fmt.Sprintf("depth=%d", depth), deepTool(depth))
	}
}

func BenchmarkGenerateWide(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000} {
		benchmarkGenerate(b, fmt.Sprintf("properties=%d", n), wideTool(n))
	}
}

func benchmarkGenerate(b *testing.B, name string, data []byte) {
	b.Run(name, func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var res *Result
		for b.Loop() {
			var err error
			if res, err = generateOne(b, data, Limits{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(outputBytes(res))/float64(len(data)), "out/in")
	})
}
