package generator

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// pageKind is the MCP Apps pages: resources whose URI is ui://, served as
// text/html;profile=mcp-app from their file or from a Handler method, with
// their _meta.ui. They are resources in every other way (feature_load.go),
// and resources/list shows them among the others, in input order.
type pageKind struct {
	pages []*featureDef
}

func (k *pageKind) claim(n *jsontree.Node, list string) claimStrength {
	if list != "" && list != "[]" && list != "resources" {
		return noClaim
	}
	if typ, ok := featureTypeOf(n); (ok || list == "resources") && typ != kindTemplate {
		if uri := n.Get("uri"); uri != nil && uri.Kind == jsontree.String && isAppURI(uri.Str) {
			return refinedClaim
		}
	}
	return noClaim
}

func (k *pageKind) lists() []listResult { return nil }
func (k *pageKind) shapes() string      { return "" } // a resource, as far as the files go
func (k *pageKind) fileKinds() []string { return []string{"resource"} }

func (k *pageKind) load(at place, _ string, lc *loadContext) {
	lc.declare(pageNamespace, at.node.Get("uri").Str) // even when the rest is bad: a tool naming it is not reported too
	hook := func(key string, v place, f *featureDef) (bool, bool) {
		if key != "ui" {
			return false, true
		}
		return true, loadResourceUI(v, f, lc.rep)
	}
	if f := loadFeature(kindResource, at, lc.rep, hook); f != nil {
		k.pages = append(k.pages, f)
	}
}

// finish keeps the first page of each URI, checks the MIME types pages
// declare and reads their files, which must be HTML5 documents. A page
// that tools name and no input declares (a tools/list dump cannot) is
// served by a Handler method (handlerPage).
func (k *pageKind) finish(lc *loadContext) {
	lc.supplyMissing(pageNamespace, func(uri string, first reference, known []string) {
		k.pages = append(k.pages, handlerPage(uri, first, known, lc.rep))
	})
	k.pages = uniqueFeatures(k.pages, lc)
	for _, f := range k.pages {
		switch mt := f.at.node.Get("mimeType"); {
		case mt == nil:
			lc.rep.warnf(place{f.at.src, f.keyAt}, fmt.Sprintf(`add "mimeType": %q; resources/read sends it either way`, appMIMEType),
				"MCP Apps page %s declares no mimeType", f.key)
		case mt.Kind == jsontree.String && mt.Str != appMIMEType:
			lc.rep.errorf(place{f.at.src, mt}, fmt.Sprintf("write %q", appMIMEType), "a ui:// page is served as %s, not %s", appMIMEType, mt.Str)
		}
		if data := readResourceFile(f, lc.cfg, lc.rep); data != nil {
			if why := notHTMLPage(data); why != "" {
				lc.rep.errorf(place{f.at.src, f.file.ref}, "start the page with <!DOCTYPE html>; data reaches it through tool results, not the file",
					"%s, the page of %s, %s", f.file.path, f.key, why)
			}
		}
	}
}

// handlerPage declares the page at uri that a tool names and no input
// declares, named after the first tool naming it (get_me_ui, as servers
// name their pages), with one warning saying so and how to serve a file
// instead (or, when inputs declare pages, which ones: the URI may be a
// typo). Its Handler method returns the HTML.
func handlerPage(uri string, first reference, known []string, rep *reporter) *featureDef {
	name := first.by + "_ui"
	def := fmt.Sprintf(`{"uri": %s, "name": %s, "mimeType": %s}`, jsonString(uri), jsonString(name), jsonString(appMIMEType))
	file := path.Base(strings.TrimPrefix(uri, appScheme))
	if path.Ext(file) == "" {
		file += ".html"
	}
	hint := fmt.Sprintf(`to serve a file instead, declare the page in an input: {"uri": %s, "name": %s, "mimeType": %s, "_meta": {%q: %s}}`,
		jsonString(uri), jsonString(name), jsonString(appMIMEType), metaFile, jsonString(file))
	if len(known) > 0 {
		hint += "; or name one of the pages the inputs declare: " + strings.Join(known, ", ")
	}
	rep.warnf(first.from, hint,
		"tool %q shows its results in %s, which no input declares: the Handler method Read%s returns its HTML", first.by, uri, goName(name))
	return &featureDef{kind: kindResource, at: first.from, name: name, key: uri, keyAt: first.from.node,
		mimeType: appMIMEType, definition: []byte(def), implied: fmt.Sprintf("tool %q", first.by)}
}

func (k *pageKind) build(bc *buildContext) part {
	p := &pagePart{}
	// Pages no input declares join the others where their tools name them.
	sort.SliceStable(k.pages, func(i, j int) bool { return before(k.pages[i].at, k.pages[j].at) })
	for _, d := range k.pages {
		if ir := buildFeature(bc, d); ir != nil {
			ir.page = true
			p.pages = append(p.pages, ir)
		}
	}
	return p
}
