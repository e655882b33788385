package generator

import (
	"fmt"

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
// declare and reads their files, which must be HTML5 documents.
func (k *pageKind) finish(lc *loadContext) {
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

func (k *pageKind) build(bc *buildContext) part {
	p := &pagePart{}
	for _, d := range k.pages {
		if ir := buildFeature(bc, d); ir != nil {
			ir.page = true
			p.pages = append(p.pages, ir)
		}
	}
	return p
}
