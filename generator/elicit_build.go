package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// elicitationKind is the elicitation files: the forms and URLs that tools,
// prompts and resources may ask the user for.
type elicitationKind struct {
	elicits []*elicitDef
}

func (k *elicitationKind) claim(n *jsontree.Node, list string) claimStrength {
	if list == "" && n.Kind == jsontree.Object && (n.Has("mode") || n.Has("requestedSchema")) {
		return shapeClaim
	}
	return noClaim
}

func (k *elicitationKind) lists() []listResult { return nil }
func (k *elicitationKind) fileKinds() []string { return []string{"elicitation"} }
func (k *elicitationKind) shapes() string {
	return `an elicitation {"name", "description", "mode", ...}`
}

func (k *elicitationKind) load(at place, _ string, lc *loadContext) {
	if e := loadElicitation(at, lc); e != nil {
		k.elicits = append(k.elicits, e)
	}
}

// finish keeps the first file of each name (by file, then offset) and
// reports the others; the elicitations are built in name order.
func (k *elicitationKind) finish(lc *loadContext) {
	sort.SliceStable(k.elicits, func(i, j int) bool { return before(k.elicits[i].at, k.elicits[j].at) })
	byName := map[string]*elicitDef{}
	var kept []*elicitDef
	for _, e := range k.elicits {
		if first, ok := byName[e.name]; ok {
			lc.rep.errorf(place{e.at.src, e.at.node.Get("name")}, "each elicitation is defined in exactly one file; delete or rename one",
				"elicitation %q is defined twice, first at %s", e.name, first.at)
			continue
		}
		byName[e.name] = e
		kept = append(kept, e)
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].name < kept[j].name })
	k.elicits = kept
	lc.whenUnused(elicitNamespace, func(name string) {
		if e := byName[name]; e != nil {
			lc.rep.warnf(place{e.at.src, e.at.node.Get("name")}, fmt.Sprintf("list it in a tool's _meta[%q], or remove the file", metaElicitations),
				"no tool asks for elicitation %q; its type is generated, but no call handle offers it", name)
		}
	})
}

// build names each elicitation and maps a form's requestedSchema to its
// answer struct; tools and features find them by name in bc.
func (k *elicitationKind) build(bc *buildContext) part {
	p := &elicitPart{}
	goNames := map[string]place{}
	for _, e := range k.elicits {
		ir := &elicitIR{name: e.name, goName: goName(e.name), mode: e.mode, message: e.message, description: docLinesOf(e.description)}
		if e.goName != "" {
			ir.goName = e.goName
		}
		if ir.message == "" {
			ir.message = e.description
		}
		hint := `set "x-go-name" in one of the elicitation files`
		at := place{e.at.src, e.at.node.Get("name")}
		if first, ok := goNames[ir.goName]; ok {
			bc.rep.errorf(at, hint, "elicitation %q gets the Go name %q, like the elicitation at %s", e.name, ir.goName, first)
			continue
		}
		goNames[ir.goName] = at
		ir.file = "mcpgen_" + snake(ir.goName) + "_elicitation.go"
		bc.claimFile(ir.file, at, hint)
		bc.ns.claim(ir.varName(), at, hint)
		bc.ns.claim(ir.constName(), at, hint)
		if e.mode == "form" {
			b := bc.typeBuilder(e.at.src, e.at.node.Ptr, fmt.Sprintf("elicitation %q", e.name), ir.goName, &ir.decls)
			b.root, b.rootHint = e.schema, hint
			b.roots[e.schema] = fmt.Sprintf("what the user answered to the %s form", e.name)
			ir.answer = b.structOf(e.schema, ir.goName)
			b.warnExtra()
			ir.schema = stripOverrides(e.at.src.doc, e.schema)
			var compact bytes.Buffer
			_ = json.Compact(&compact, ir.schema)
			ir.compact = compact.Bytes()
		}
		for _, m := range ir.answerMethods() {
			bc.claimClientMethod(m, at, `set "x-go-name" in the elicitation file, or rename the other`, fmt.Sprintf("elicitation %q", e.name))
		}
		bc.elicits[e.name] = ir
		p.elicits = append(p.elicits, ir)
	}
	return p
}
