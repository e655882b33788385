package generator

import (
	"fmt"
	"path"
	"sort"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// featureLists are the list results of features and what their items are.
var featureLists = []struct {
	listResult
	typ featureType
}{
	{listResult{"prompts", "prompts/list"}, kindPrompt},
	{listResult{"resources", "resources/list"}, kindResource},
	{listResult{"resourceTemplates", "resources/templates/list"}, kindTemplate},
}

// featureTypeOf tells a feature object apart from a tool, an elicitation
// or a skill's options by its shape.
func featureTypeOf(n *jsontree.Node) (featureType, bool) {
	switch {
	case n.Kind != jsontree.Object || n.Has("inputSchema") || n.Has("mode") || n.Has("requestedSchema"):
		return 0, false
	case n.Has("uriTemplate"):
		return kindTemplate, true
	case n.Has("uri"):
		return kindResource, true
	case n.Has("arguments"):
		return kindPrompt, true
	}
	return 0, false
}

// featureKind is the prompts, resources and resource templates: a Prompt
// object (it has "arguments"; write "arguments": [] for a prompt without
// any), a Resource ("uri"), a ResourceTemplate ("uriTemplate"), arrays of
// them, and the results of prompts/list, resources/list and
// resources/templates/list. MCP Apps pages are resources of a kind of
// their own (page_build.go).
type featureKind struct {
	features []*featureDef
}

func (k *featureKind) claim(n *jsontree.Node, list string) claimStrength {
	for _, l := range featureLists {
		if list == l.key {
			return shapeClaim
		}
	}
	if _, ok := featureTypeOf(n); ok && (list == "" || list == "[]") {
		return shapeClaim
	}
	return noClaim
}

func (k *featureKind) lists() []listResult {
	var out []listResult
	for _, l := range featureLists {
		out = append(out, l.listResult)
	}
	return out
}

func (k *featureKind) shapes() string {
	return "a prompt, resource or resource template (or an array or list result of them)"
}

func (k *featureKind) fileKinds() []string { return []string{"prompt", "resource", "template"} }

func (k *featureKind) load(at place, list string, lc *loadContext) {
	typ, _ := featureTypeOf(at.node)
	for _, l := range featureLists {
		if list == l.key {
			typ = l.typ
		}
	}
	if f := loadFeature(typ, at, lc.rep, nil); f != nil {
		k.features = append(k.features, f)
	}
}

// finish keeps the first prompt name, resource URI and URI template (by
// file, then offset) and reports the others, records the elicitations
// they ask for and reads the files resources are served from.
func (k *featureKind) finish(lc *loadContext) {
	k.features = uniqueFeatures(k.features, lc)
	for _, f := range k.features {
		readResourceFile(f, lc.cfg, lc.rep)
	}
}

// uniqueFeatures sorts features in input order and drops (and reports)
// those whose key an earlier one has, recording the elicitations the
// others ask for.
func uniqueFeatures(features []*featureDef, lc *loadContext) []*featureDef {
	sort.SliceStable(features, func(i, j int) bool { return before(features[i].at, features[j].at) })
	seen := map[featureType]map[string]*featureDef{kindPrompt: {}, kindResource: {}, kindTemplate: {}}
	what := map[featureType]string{kindPrompt: "prompt name", kindResource: "resource URI", kindTemplate: "URI template"}
	var kept []*featureDef
	for _, f := range features {
		if first, ok := seen[f.kind][f.key]; ok {
			lc.rep.errorf(place{f.at.src, f.keyAt}, what[f.kind]+"s must be unique per server; change one",
				"duplicate %s %q, first defined at %s", what[f.kind], f.key, first.at)
			continue
		}
		seen[f.kind][f.key] = f
		kept = append(kept, f)
		referElicitations(lc, f.at.src, f.elicitRefs, fmt.Sprintf("%s %q", f.kind, f.name))
	}
	return kept
}

func (k *featureKind) build(bc *buildContext) part {
	p := &featurePart{}
	for _, d := range k.features {
		if ir := buildFeature(bc, d); ir != nil {
			p.features = append(p.features, ir)
		}
	}
	return p
}

// buildFeature names a feature, claiming its Go names, Handler methods and
// test client methods, and returns its IR, or nil when a name collides.
func buildFeature(bc *buildContext, d *featureDef) *featureIR {
	ir := &featureIR{typ: d.kind, name: d.name, key: d.key, goName: d.goName, description: docLinesOf(d.description),
		source: path.Base(d.at.src.path), definition: d.definition, complete: d.complete, list: d.list, scopes: d.scopes,
		ui: d.ui, order: inputOrder{d.at.src.path, d.at.node.Start}}
	if ir.goName == "" {
		ir.goName = goName(d.name)
	}
	for _, a := range d.args {
		ir.args = append(ir.args, argIR{name: a.name, goName: a.goName, description: docLinesOf(a.description), required: a.required, list: a.list})
	}
	if c := d.cache; c != nil {
		ir.cache = &cacheIR{ttlMs: c.ttlMs, private: c.private}
	}
	if f := d.file; f != nil {
		ir.embedded = &embeddedFile{embed: f.embed, text: f.text, sum: f.sum}
	}
	if mt := d.at.node.Get("mimeType"); mt != nil && mt.Kind == jsontree.String {
		ir.mimeType = mt.Str
	}
	at := place{d.at.src, d.at.node.Get("name")}
	if d.goNameAt != nil {
		at = place{d.at.src, d.goNameAt}
	}
	hint := fmt.Sprintf(`set _meta[%q] on one of them`, metaGoName)
	if ir.goName == "" {
		bc.rep.errorf(at, hint, "%s name %q makes no Go name", d.kind, d.name)
		return nil
	}
	ir.file = "mcpgen_" + snake(ir.goName) + "_" + snake(ir.suffix()) + ".go"
	handle := ir.callName()
	if !ir.hasMethod() {
		handle = ir.fileVar()
	}
	ok := bc.ns.claim(handle, at, hint)
	ok = ok && bc.ns.claim(ir.definitionName(), at, hint)
	ok = ok && bc.ns.claim(ir.funcName(), at, hint)
	if ok && ir.hasArgs() {
		ok = bc.ns.claim(ir.argsName(), at, hint)
	}
	if ok && d.kind == kindResource {
		ok = bc.ns.claim(ir.uriName(), at, hint)
	}
	if ok && d.kind == kindTemplate {
		ok = bc.ns.claim(ir.templateURIName(), at, hint)
	}
	if ok && d.kind != kindResource {
		ok = bc.ns.claim(ir.nameConst(), at, hint)
	}
	var methods []string
	if ir.hasMethod() {
		methods = append(methods, ir.method())
	}
	if d.list {
		methods = append(methods, ir.listMethod())
	}
	for _, c := range d.complete {
		methods = append(methods, ir.completeMethod(ir.arg(c)))
	}
	for _, m := range methods {
		if !ok {
			break
		}
		if first, free := bc.claimMethod(m, at.String()); !free {
			bc.rep.errorf(at, hint, "Handler method %s collides with the one made for %s", m, first)
			ok = false
		}
	}
	if !ok {
		return nil
	}
	var refs []string
	for _, r := range d.elicitRefs {
		refs = append(refs, r.Str)
	}
	ir.elicits = bc.elicitations(refs)
	nameAt := place{d.at.src, d.at.node.Get("name")}
	what := fmt.Sprintf("%s %q", d.kind, d.key)
	goNameHint := fmt.Sprintf(`set _meta[%q]`, metaGoName)
	bc.claimClientMethod(ir.method(), nameAt, goNameHint, what)
	for _, c := range d.complete {
		bc.claimClientMethod(ir.completeMethod(ir.arg(c)), nameAt, goNameHint, what)
	}
	return ir
}
