package generator

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// toolKind is the tools: a Tool object as tools/list returns it, an array
// of them, or a tools/list result.
type toolKind struct {
	tools []*toolDef
}

func (k *toolKind) claim(n *jsontree.Node, list string) claimStrength {
	switch {
	case list == "tools":
		return shapeClaim
	case list == "[]":
		return fallbackClaim // an element no other kind claims is taken for a tool, and reported as one
	case list != "" || n.Kind != jsontree.Object:
		return noClaim
	case n.Has("inputSchema"):
		return shapeClaim
	case n.Has("name"):
		return fallbackClaim
	}
	return noClaim
}

func (k *toolKind) lists() []listResult { return []listResult{{"tools", "tools/list"}} }
func (k *toolKind) fileKinds() []string { return []string{"tool"} }
func (k *toolKind) shapes() string {
	return `a tool, an array of tools, a tools/list result {"tools": [...]}`
}

func (k *toolKind) load(at place, _ string, lc *loadContext) {
	if t := loadTool(at, lc.rep); t != nil {
		k.tools = append(k.tools, t)
	}
}

// finish keeps the first tool of each name (by file, then offset: the
// order of the input files, which tools/list keeps) and reports the
// others, and records the elicitations and pages the tools name.
func (k *toolKind) finish(lc *loadContext) {
	sort.SliceStable(k.tools, func(i, j int) bool { return before(k.tools[i].at, k.tools[j].at) })
	seen := map[string]*toolDef{}
	var kept []*toolDef
	for _, t := range k.tools {
		if first, ok := seen[t.name]; ok {
			lc.rep.errorf(place{t.at.src, t.at.node.Get("name")}, "tool names must be unique per server; rename one",
				"duplicate tool name %q, first defined at %s", t.name, first.at)
			continue
		}
		seen[t.name] = t
		kept = append(kept, t)
		referElicitations(lc, t.at.src, t.elicitRefs, fmt.Sprintf("tool %q", t.name))
		referPage(lc, t)
	}
	k.tools = kept
}

// build names each tool and maps its input and output schemas to Go types.
func (k *toolKind) build(bc *buildContext) part {
	p := &toolPart{}
	goNames := map[string]place{}
	for _, t := range k.tools {
		ir := &toolIR{name: t.name, goName: goName(t.name), description: docLinesOf(t.description), source: path.Base(t.at.src.path),
			definition: t.definition, scopes: t.scopes, singleUse: t.singleUse, order: inputOrder{t.at.src.path, t.at.node.Start}}
		if t.goName != "" {
			ir.goName = t.goName
		}
		if u := t.ui; u != nil {
			ir.apps, ir.page, ir.appOnly = true, u.resourceURI, u.appOnly()
		}
		hint := fmt.Sprintf(`set _meta[%q] on one of the tools`, metaGoName)
		at := place{t.at.src, t.at.node.Get("name")}
		if t.goNameAt != nil {
			at = place{t.at.src, t.goNameAt}
		}
		if first, ok := goNames[ir.goName]; ok {
			bc.rep.errorf(at, hint, "tool %q gets the Go name %q, like the tool at %s", t.name, ir.goName, first)
			continue
		}
		goNames[ir.goName] = at
		ir.file = "mcpgen_" + snake(ir.goName) + "_tool.go"
		if !bc.claimFile(ir.file, at, hint) {
			continue
		}
		ok := bc.ns.claim(ir.callName(), at, hint)
		ok = bc.ns.claim(ir.definitionName(), at, hint) && ok
		ok = bc.ns.claim(ir.funcName(), at, hint) && ok
		ok = bc.ns.claim(ir.constName(), at, hint) && ok
		if !ok {
			continue
		}
		bc.claimMethod(ir.goName, place{t.at.src, t.at.node.Get("name")}.String())
		b := bc.typeBuilder(t.at.src, t.at.node.Ptr, fmt.Sprintf("tool %q", t.name), ir.goName, &ir.decls)
		b.root = t.input
		b.roots[t.input] = fmt.Sprintf("the arguments of tool %s", t.name)
		ir.input = b.rootType(t.input, b.typeName(t.input, ir.goName+"Input"))
		b.warnExtra()
		if t.output != nil {
			b.root = t.output
			b.memo = map[*jsontree.Node]*typeRef{}
			b.roots[t.output] = fmt.Sprintf("the structured output of tool %s", t.name)
			ir.output = b.outputType(t.output, b.typeName(t.output, ir.goName+"Output"))
			ir.objectOutput, ir.wireObject = objectRoot(t.output), wireObjectRoot(t.output)
			b.warnExtra()
		}
		var refs []string
		for _, r := range t.elicitRefs {
			refs = append(refs, r.Str)
		}
		ir.elicits = bc.elicitations(refs)
		nameAt, goNameHint, what := place{t.at.src, t.at.node.Get("name")}, fmt.Sprintf(`set _meta[%q]`, metaGoName), fmt.Sprintf("tool %q", t.name)
		bc.claimClientMethod(ir.goName, nameAt, goNameHint, what)
		if ir.output != nil {
			bc.claimClientMethod(ir.goName+"WithContent", nameAt, goNameHint, what)
		}
		p.tools = append(p.tools, ir)
	}
	return p
}

// referPage records the page a tool shows its results in.
func referPage(lc *loadContext, t *toolDef) {
	if t.ui == nil || t.ui.resourceURI == "" {
		return
	}
	lc.refer(pageNamespace, t.ui.resourceURI, func(known []string) {
		hint := `declare a resource with this "uri" and "mimeType": "` + appMIMEType + `"`
		if len(known) > 0 {
			hint += ", or use one of: " + strings.Join(known, ", ")
		}
		lc.rep.errorf(place{t.at.src, t.ui.uriAt}, hint, "tool %q shows its results in %s, which no input declares", t.name, t.ui.resourceURI)
	})
}
