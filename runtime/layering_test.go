package runtime

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
	"testing"

	"github.com/mcpgen/mcpgen/internal/exportdata"
)

// tiers are the runtime's files by concept, top to bottom. A file may name
// (through go/types: a type, function, variable, constant, field or method)
// the declarations of its own tier and of the tiers below it, never those of
// a tier above: a request goes down from the transport that read it to the
// vocabulary every tier shares, and what a lower part needs from a higher
// one it receives as a value (a func, an interface) when the Server wires
// the parts. docs/architecture.md draws the same map; a new file goes in the
// tier of its concept, and this test fails until it is listed.
var tiers = []tier{
	{"face", []string{
		// Server: the composition root, its public methods delegates.
		"server.go", "serve.go", "doc.go",
	}},
	{"transports", []string{
		// Bytes in and out: HTTP (both eras on one endpoint) and stdio.
		"http_handler.go", "http_post.go", "http_get.go", "http_modern.go", "http_auth.go", "http_client_address.go",
		"modern_http_stream.go", "stdio.go",
	}},
	{"fan-out", []string{
		// List and resource changes to every client, on every replica.
		"change_notifications.go",
	}},
	{"eras", []string{
		// What differs between 2025 sessions and stateless 2026-07-28, and
		// the session machinery: the request-scoped sender, the
		// backpressure wait, the shared ID allocator.
		"era_legacy.go", "era_modern.go", "legacy_peer.go", "mrtr_peer.go",
		"session_table.go", "session.go", "session_bus.go", "stream.go", "keepalive.go",
		"request_scoped_sender.go", "backpressure_wait.go", "shared_id_allocator.go", "session_roots.go",
	}},
	{"dispatch", []string{
		// One row per method: the table, the methods by family, the
		// extension seam.
		"method_table.go", "method_lifecycle.go", "method_tools.go", "method_prompts.go",
		"method_resources.go", "method_completion.go", "method_scopes.go",
		"listen.go", "extension.go", "extension_hooks.go", "extension_host.go", "detached_call.go", "describe.go",
		"client_notifications.go", "extension_stream.go", "extension_routes.go",
	}},
	{"features", []string{
		// What the server offers: the registry and its lists.
		"feature_registry.go", "feature_lists.go", "prompt.go", "resource.go", "completion.go",
	}},
	{"core seams", []string{
		// The interfaces the tiers above meet at: the era, the
		// interceptors, the shares of server-wide bounds, and the Options
		// that plug stores and interceptors in.
		"era.go", "interceptor_chain.go", "interceptor.go", "caller_share.go", "options.go",
	}},
	{"stores", []string{
		// State that replicas share (and the bus between them), and its
		// in-memory defaults.
		"session_store.go", "pending_router.go", "event_store.go", "state_ledger.go",
	}},
	{"vocabulary", []string{
		// The words every tier uses: the public types, the JSON-RPC
		// envelope, method names.
		"call.go", "call_handle.go", "roots.go", "client_facts.go", "tool.go", "tool_output.go", "tool_adapter.go", "content.go", "elicitation.go", "url_elicitation.go",
		"sampling.go", "errors.go", "version.go", "optional.go", "auth.go", "jsonrpc.go",
		"request_params.go", "params_decode.go", "method_names.go", "sse_writer.go", "paging.go",
	}},
}

type tier struct {
	name  string
	files []string
}

// TestLayering fails when a runtime file names a declaration of a higher
// tier, or is in no tier.
func TestLayering(t *testing.T) {
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
	tierOf := map[string]int{}
	for i, tier := range tiers {
		for _, f := range tier.files {
			if _, ok := src[f]; !ok {
				t.Errorf("tier %q lists %s, which is not a runtime file", tier.name, f)
			}
			tierOf[f] = i
		}
	}
	for name := range src {
		if _, ok := tierOf[name]; !ok {
			t.Errorf("%s is in no tier: add it to the tier of its concept in layering_test.go (and docs/architecture.md's map)", name)
		}
	}
	tierNames := make([]string, len(tiers))
	for i, tier := range tiers {
		tierNames[i] = tier.name
	}
	problems, err := upwardNames(src, tierOf, tierNames)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestDocTiers keeps docs/architecture.md's map of the runtime true: its
// tiers section puts each file in the tier this test's table does, and
// names every file; and every runtime file the page names anywhere (the
// request's way, the recipes) exists.
func TestDocTiers(t *testing.T) {
	const page = "../docs/architecture.md"
	doc, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	fileName := regexp.MustCompile(`[a-z0-9_<>]+\.go\b`)
	pathName := regexp.MustCompile(`(?:[a-z0-9_]+/)*[a-z0-9_<>]+\.go\b`)
	for _, name := range pathName.FindAllString(text, -1) {
		dir, base := filepath.Split(name)
		if strings.Contains(name, "<") || dir != "" && dir != "runtime/" {
			continue // another package's file
		}
		name = base
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s names %s, which is not a runtime file", page, name)
		}
	}
	start := strings.Index(text, "## The runtime's tiers")
	end := strings.Index(text, "## The three mechanisms")
	if start < 0 || end < start {
		t.Fatalf("%s has no section \"The runtime's tiers\" before \"The three mechanisms\"", page)
	}
	tierOf := map[string]int{}
	for i, tier := range tiers {
		for _, f := range tier.files {
			tierOf[f] = i
		}
	}
	mentioned := map[string]bool{}
	for _, bullet := range strings.Split(text[start:end], "\n- ")[1:] {
		name, rest, ok := strings.Cut(bullet, ":")
		i := slices.IndexFunc(tiers, func(t tier) bool { return t.name == strings.TrimSpace(name) })
		if !ok || i < 0 {
			t.Errorf("%s's tier %q is not a tier of layering_test.go", page, name)
			continue
		}
		for _, f := range fileName.FindAllString(rest, -1) {
			if f == "method_<family>.go" {
				for _, g := range tiers[i].files {
					if strings.HasPrefix(g, "method_") {
						mentioned[g] = true
					}
				}
				continue
			}
			if j, ok := tierOf[f]; !ok || j != i {
				t.Errorf("%s puts %s in tier %q; layering_test.go does not", page, f, tiers[i].name)
			}
			mentioned[f] = true
		}
	}
	for f := range tierOf {
		if !mentioned[f] {
			t.Errorf("%s's tiers section does not name %s", page, f)
		}
	}
}

// TestLayeringCatchesAnUpwardName: the check reports a lower file that
// names a higher one's declaration (here a method, reached through a
// field), and lets a higher file name a lower one.
func TestLayeringCatchesAnUpwardName(t *testing.T) {
	src := map[string][]byte{
		"top.go":    []byte("package p\n\ntype Top struct{ low *Low }\n\nfunc (t *Top) Serve() int { return t.low.n }\n"),
		"bottom.go": []byte("package p\n\ntype Low struct{ n int; up *Top }\n\nfunc (l *Low) back() int { return l.up.Serve() }\n"),
	}
	problems, err := upwardNames(src, map[string]int{"top.go": 0, "bottom.go": 1}, []string{"top", "bottom"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"bottom.go (bottom) names Serve, declared in top.go (top)",
		"bottom.go (bottom) names Top, declared in top.go (top)",
	}
	if !slices.Equal(problems, want) {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

// upwardNames type-checks one package's files and returns, sorted, each
// name a file uses that a file of a higher (smaller-numbered) tier
// declares; tierNames name the tiers in the report.
func upwardNames(src map[string][]byte, tierOf map[string]int, tierNames []string) ([]string, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	for name, b := range src {
		f, err := parser.ParseFile(fset, name, b, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	imports, err := exportdata.Files(".")
	if err != nil {
		return nil, err
	}
	conf := types.Config{Importer: exportdata.Importer(fset, imports)}
	pkg, err := conf.Check("layering", fset, files, info)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var problems []string
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg {
			continue
		}
		// Package-level declarations, fields and methods; not locals.
		if p := obj.Parent(); p != nil && p != pkg.Scope() {
			continue
		}
		from := fset.Position(id.Pos()).Filename
		to := fset.Position(obj.Pos()).Filename
		if tierOf[to] < tierOf[from] {
			p := fmt.Sprintf("%s (%s) names %s, declared in %s (%s)", from, tierNames[tierOf[from]], obj.Name(), to, tierNames[tierOf[to]])
			if !seen[p] {
				seen[p] = true
				problems = append(problems, p)
			}
		}
	}
	sort.Strings(problems)
	return problems, nil
}
