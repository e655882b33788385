package generator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/internal/exportdata"
)

// stages are the generator's files by the stage of the pipeline they hold
// (doc.go draws the same map). The flow is one way, load -> IR -> emit: a
// file may name (through go/types: a type, function, variable, constant,
// field or method) only the declarations of the stages its own may use.
// A new file goes in the stage of its concept, and TestLayering fails
// until it is listed.
var stages = map[string][]string{
	// The pipeline: Generate, the registry of input kinds, the dispatch of
	// input files to the kinds, ReadPaths.
	"pipeline": {"generate.go", "kinds.go", "dispatch.go", "read_paths.go", "doc.go"},
	// Model -> IR: the kinds' build steps, the contexts they share, the
	// schema-to-Go-type mapper.
	"build": {"input_kind.go", "build_context.go", "types.go", "types_choice.go", "types_enum.go", "types_struct.go", "types_union.go",
		"elicit_build.go", "tool_build.go", "feature_build.go", "page_build.go", "skill_build.go", "event_build.go"},
	// Reading and checking the inputs into the load model.
	"load": {"load_context.go", "schema_check.go", "schema_satisfiable.go", "meta_strip.go", "scopes.go", "output_schema.go",
		"elicit_load.go", "elicit_subset.go", "tool_load.go", "tool_ui_load.go", "feature_load.go", "resource_file.go", "page_load.go",
		"skill_input.go", "skill_load.go", "skill_frontmatter.go", "skill_mime.go", "skill_options.go", "event_load.go"},
	// The IR: self-contained, what emit reads.
	"ir": {"ir.go", "elicit_ir.go", "tool_ir.go", "feature_ir.go", "page_ir.go", "skill_ir.go", "event_ir.go"},
	// IR -> Go code with jennifer: each kind's emitter and the package's.
	"emit": {"emit_file.go", "emit_types.go", "emit_handles.go", "emit_package.go", "emit_handler.go", "emit_testclient.go",
		"elicit_emit.go", "elicit_url_emit.go", "tool_emit.go", "feature_emit.go", "template_uri_emit.go", "page_emit.go", "skill_emit.go", "event_emit.go"},
	// The contract between the parts and the package emitter.
	"seam": {"part.go"},
	// Words every stage uses: diagnostics, the public input types, Go
	// names, doc lines, JSON values, the _meta keys, MCP Apps' names.
	"shared": {"diag.go", "inputs.go", "limits.go", "names.go", "doc_comments.go", "json_values.go", "meta_keys.go", "mcp_apps.go", "feature_type.go"},
}

// uses are the stages a stage's files may name, besides its own.
var uses = map[string][]string{
	"pipeline": {"build", "load", "ir", "emit", "seam", "shared"},
	"build":    {"load", "ir", "seam", "shared"}, // never emit
	"load":     {"shared"},                       // never build, IR or emit
	"ir":       {"shared"},                       // never the load model
	"emit":     {"ir", "seam", "shared"},         // never the load model, never building IR
	"seam":     {"ir", "shared"},
	"shared":   nil,
}

// maxCycle bounds the largest strongly connected component of the file
// graph: files that all name each other, one concept spread too thin.
const maxCycle = 6

// TestLayering fails when a file names a declaration of a stage its own
// may not use, is in no stage, or when the file graph has a cycle longer
// than maxCycle or one holding both a load and an emit file.
func TestLayering(t *testing.T) {
	src := packageSources(t)
	stageOf := map[string]string{}
	for stage, files := range stages {
		for _, f := range files {
			if _, ok := src[f]; !ok {
				t.Errorf("stage %q lists %s, which is not a generator file", stage, f)
			}
			stageOf[f] = stage
		}
	}
	for name := range src {
		if _, ok := stageOf[name]; !ok {
			t.Errorf("%s is in no stage: add it to the stage of its concept in layering_test.go (and doc.go's map)", name)
		}
	}
	graph, names, err := fileGraph(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range stageProblems(graph, names, stageOf) {
		t.Error(p)
	}
	comps := components(graph)
	t.Logf("largest cycle: %d files %v", len(comps[0]), comps[0])
	for _, p := range cycleProblems(comps, stageOf) {
		t.Error(p)
	}
}

// kindAgnostic are the files that run every kind without knowing any:
// the pipeline, the package emitter and the seam. Adding a kind edits none
// of them (doc.go, "Adding an input kind"), so none may name a declaration
// of a kind's own files. The one exception: the buildContext hands the
// elicitations, which tools, prompts and resources ask for, to the kinds
// built after them.
var kindAgnostic = []string{"generate.go", "dispatch.go", "read_paths.go", "input_kind.go", "load_context.go", "build_context.go",
	"part.go", "emit_package.go", "emit_handler.go", "emit_testclient.go", "emit_file.go"}

// kindFile reports whether a file belongs to one input kind.
func kindFile(name string) bool {
	for _, prefix := range []string{"elicit_", "tool_", "feature_", "page_", "skill_", "template_uri_", "output_schema", "resource_file"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// TestPipelineKnowsNoKind: Generate, the dispatch of inputs, ReadPaths, the
// contexts and the package emitter name nothing of any kind but what the
// registry (kinds.go) and the seam give them.
func TestPipelineKnowsNoKind(t *testing.T) {
	graph, names, err := fileGraph(packageSources(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range kindAgnostic {
		if _, ok := graph[from]; !ok {
			t.Errorf("%s is not a generator file", from)
		}
		for to := range graph[from] {
			if kindFile(to) && !(from == "build_context.go" && to == "elicit_ir.go") {
				t.Errorf("%s names %s of %s, a kind's file: go through inputKind or part instead", from, strings.Join(names[[2]string{from, to}], ", "), to)
			}
		}
	}
}

// TestLayeringCatches: the checks report a load file naming an emit file's
// declaration, and a cycle through a load and an emit file, and accept an
// emit file naming the IR.
func TestLayeringCatches(t *testing.T) {
	src := map[string][]byte{
		"a_load.go": []byte("package p\n\ntype def struct{ n int }\n\nfunc load() *def { render(nil); return &def{} }\n"),
		"a_emit.go": []byte("package p\n\nfunc render(d *def) { _ = d.n; _ = ir{} }\n"),
		"a_ir.go":   []byte("package p\n\ntype ir struct{}\n"),
	}
	stageOf := map[string]string{"a_load.go": "load", "a_emit.go": "emit", "a_ir.go": "ir"}
	graph, names, err := fileGraph(src)
	if err != nil {
		t.Fatal(err)
	}
	got := append(stageProblems(graph, names, stageOf), cycleProblems(components(graph), stageOf)...)
	want := []string{
		"a_emit.go (emit) names def, declared in a_load.go (load)",
		"a_emit.go (emit) names n, declared in a_load.go (load)",
		"a_load.go (load) names render, declared in a_emit.go (emit)",
		"a cycle holds load and emit files: a_emit.go a_load.go",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDocStages keeps doc.go's map true: every file it names exists and is
// in the stage its map says.
func TestDocStages(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(doc), "// # Files by stage\n")
	if start < 0 {
		t.Fatal(`doc.go has no "# Files by stage" section`)
	}
	section := string(doc)[start+1:]
	if end := strings.Index(section, "\n// # "); end >= 0 {
		section = section[:end]
	}
	text := strings.ReplaceAll(section, "\n//", "")
	stageOf := map[string]string{}
	for stage, files := range stages {
		for _, f := range files {
			stageOf[f] = stage
		}
	}
	fileName := regexp.MustCompile(`[a-z0-9_]+\.go\b`)
	mentioned := map[string]bool{}
	for _, bullet := range strings.Split(text, "  - ")[1:] {
		stage, rest, _ := strings.Cut(bullet, ":")
		stage = strings.TrimSpace(stage)
		if _, ok := stages[stage]; !ok {
			t.Errorf("doc.go's stage %q is not a stage of layering_test.go", stage)
			continue
		}
		for _, f := range fileName.FindAllString(rest, -1) {
			if stageOf[f] != stage {
				t.Errorf("doc.go puts %s in stage %q; layering_test.go puts it in %q", f, stage, stageOf[f])
			}
			mentioned[f] = true
		}
	}
	for f := range stageOf {
		if !mentioned[f] && f != "doc.go" {
			t.Errorf("doc.go's map does not name %s", f)
		}
	}
}

func packageSources(t *testing.T) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	src := map[string][]byte{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		if src[name], err = os.ReadFile(name); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

// fileGraph type-checks one package's files and returns which files each
// file names a declaration of (package-level, a field or a method; not a
// local), itself left out, and the names behind each edge.
func fileGraph(src map[string][]byte) (map[string]map[string]bool, map[[2]string][]string, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	for name, b := range src {
		f, err := parser.ParseFile(fset, name, b, 0)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	imports, err := generatorExports()
	if err != nil {
		return nil, nil, err
	}
	conf := types.Config{Importer: exportdata.Importer(fset, imports)}
	pkg, err := conf.Check("layering", fset, files, info)
	if err != nil {
		return nil, nil, err
	}
	graph := map[string]map[string]bool{}
	for name := range src {
		graph[name] = map[string]bool{}
	}
	names := map[[2]string][]string{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg {
			continue
		}
		if p := obj.Parent(); p != nil && p != pkg.Scope() {
			continue
		}
		from, to := fset.Position(id.Pos()).Filename, fset.Position(obj.Pos()).Filename
		if from == to {
			continue
		}
		graph[from][to] = true
		edge := [2]string{from, to}
		if !slices.Contains(names[edge], obj.Name()) {
			names[edge] = append(names[edge], obj.Name())
		}
	}
	return graph, names, nil
}

// stageProblems lists, sorted, each name a file uses from a stage its own
// may not use.
func stageProblems(graph map[string]map[string]bool, names map[[2]string][]string, stageOf map[string]string) []string {
	var out []string
	for from, tos := range graph {
		for to := range tos {
			fs, ts := stageOf[from], stageOf[to]
			if fs == ts || slices.Contains(uses[fs], ts) || fs == "" || ts == "" {
				continue
			}
			for _, n := range names[[2]string{from, to}] {
				out = append(out, fmt.Sprintf("%s (%s) names %s, declared in %s (%s)", from, fs, n, to, ts))
			}
		}
	}
	sort.Strings(out)
	return out
}

// cycleProblems lists the components longer than maxCycle and those
// holding both a load and an emit file.
func cycleProblems(comps [][]string, stageOf map[string]string) []string {
	var out []string
	for _, c := range comps {
		if len(c) > maxCycle {
			out = append(out, fmt.Sprintf("a cycle of %d files, more than %d: %s", len(c), maxCycle, strings.Join(c, " ")))
		}
		load := slices.ContainsFunc(c, func(f string) bool { return stageOf[f] == "load" })
		emit := slices.ContainsFunc(c, func(f string) bool { return stageOf[f] == "emit" })
		if load && emit {
			out = append(out, "a cycle holds load and emit files: "+strings.Join(c, " "))
		}
	}
	return out
}

// components are the strongly connected components of graph (Tarjan's
// algorithm), each sorted, the largest first.
func components(graph map[string]map[string]bool) [][]string {
	var nodes []string
	for n := range graph {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		var next []string
		for w := range graph[v] {
			next = append(next, w)
		}
		sort.Strings(next)
		for _, w := range next {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			sort.Strings(comp)
			out = append(out, comp)
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// generatorExports holds the export data files of what the generator
// imports, read once per test binary.
var generatorExports = sync.OnceValues(func() (map[string]string, error) { return exportdata.Files(".") })
