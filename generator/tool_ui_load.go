package generator

import (
	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// A tool's side of MCP Apps (mcp_apps.go): the page that shows its results
// and who may call it, from its _meta.ui.

// toolUI is a tool's _meta.ui.
type toolUI struct {
	// resourceURI is the ui:// page showing the tool's results, or "".
	resourceURI string
	uriAt       *jsontree.Node // where it is written (nested or flat)
	// visibility is who may call the tool, as written; nil means the
	// default, ["model", "app"].
	visibility []string
}

// appOnly reports whether only the page may call the tool: hosts keep it
// out of the model's tool list. It is no access control: scopes are.
func (u *toolUI) appOnly() bool {
	return len(u.visibility) == 1 && u.visibility[0] == "app"
}

// loadToolUI reads a tool's _meta.ui (nested) and _meta["ui/resourceUri"]
// (flat) into t.ui.
func loadToolUI(at place, meta *jsontree.Node, t *toolDef, rep *reporter) bool {
	ui, flat := meta.Get("ui"), meta.Get(flatResourceURI)
	if ui == nil && flat == nil {
		return true
	}
	u := &toolUI{}
	ok := true
	var nested *jsontree.Node
	if ui != nil {
		if ui.Kind != jsontree.Object {
			rep.errorf(place{at.src, ui}, `write {"resourceUri": "ui://...", "visibility": ["model", "app"]}`, "_meta.ui must be an object, not a %s", ui.Kind)
			return false
		}
		for _, mem := range ui.Members {
			v := mem.Value
			switch mem.Key {
			case "resourceUri":
				nested = v
				ok = checkAppURI(place{at.src, v}, rep) && ok
			case "visibility":
				vis, good := loadVisibility(place{at.src, v}, rep)
				u.visibility, ok = vis, good && ok
			default:
				rep.warnf(place{at.src, v}, "MCP Apps 2026-01-26 knows resourceUri and visibility; hosts ignore other keys",
					"unknown key %q in _meta.ui", mem.Key)
			}
		}
	}
	if flat != nil {
		ok = checkAppURI(place{at.src, flat}, rep) && ok
		if nested == nil {
			rep.warnf(place{at.src, flat}, `write "_meta": {"ui": {"resourceUri": ...}}; mcpgen advertises both forms`,
				"%q is the deprecated flat form of _meta.ui.resourceUri", flatResourceURI)
		}
	}
	switch {
	case !ok:
	case nested != nil && flat != nil && nested.Str != flat.Str:
		rep.errorf(place{at.src, flat}, "write the same URI in both, or only _meta.ui.resourceUri",
			"%q names %s, but _meta.ui.resourceUri names %s", flatResourceURI, flat.Str, nested.Str)
		ok = false
	case nested != nil:
		u.resourceURI, u.uriAt = nested.Str, nested
	case flat != nil:
		u.resourceURI, u.uriAt = flat.Str, flat
	}
	t.ui = u
	return ok
}

// checkAppURI checks that a resourceUri is a ui:// URI.
func checkAppURI(at place, rep *reporter) bool {
	if at.node.Kind != jsontree.String || !isAppURI(at.node.Str) || len(at.node.Str) == len(appScheme) {
		rep.errorf(at, `name the page's resource, such as "ui://notes/view.html"`, "an MCP Apps resourceUri is a ui:// URI")
		return false
	}
	return true
}

// loadVisibility reads _meta.ui.visibility: "model", "app" or both.
func loadVisibility(at place, rep *reporter) ([]string, bool) {
	const hint = `write ["model"], ["app"] or ["model", "app"] (the default)`
	if at.node.Kind != jsontree.Array {
		rep.errorf(at, hint, "visibility must be an array, not a %s", at.node.Kind)
		return nil, false
	}
	if len(at.node.Elems) == 0 {
		rep.errorf(at, hint+"; leave visibility out for the default", "an empty visibility lets neither the model nor the page call the tool")
		return nil, false
	}
	ok := true
	var vis []string
	seen := map[string]bool{}
	for _, el := range at.node.Elems {
		switch {
		case el.Kind != jsontree.String || (el.Str != "model" && el.Str != "app"):
			rep.errorf(place{at.src, el}, hint, "visibility %s is not one MCP Apps knows", compactJSON(at.src.doc, el))
			ok = false
		case seen[el.Str]:
			rep.errorf(place{at.src, el}, "list each once", "visibility %q is listed twice", el.Str)
			ok = false
		default:
			seen[el.Str] = true
			vis = append(vis, el.Str)
		}
	}
	return vis, ok
}

// withResourceURIKeys returns a tool's advertised definition carrying the
// page's URI in both _meta.ui.resourceUri and the older flat
// _meta["ui/resourceUri"], adding whichever is missing (hosts read one or
// the other). The bytes as written are kept around the insertion.
func withResourceURIKeys(def []byte, u *toolUI) []byte {
	if u == nil || u.resourceURI == "" {
		return def
	}
	doc, err := jsontree.Parse(def)
	if err != nil {
		return def // the definition was checked when it was read
	}
	meta := doc.Root.Get("_meta")
	uri := jsonString(u.resourceURI)
	ui, flat := meta.Get("ui"), meta.Get(flatResourceURI)
	var at int
	var insert string
	switch {
	case ui != nil && flat != nil && ui.Has("resourceUri"):
		return def
	case ui != nil && ui.Has("resourceUri"):
		at, insert = ui.End, `, "`+flatResourceURI+`": `+uri
	case ui != nil && len(ui.Members) > 0: // flat only, next to the visibility
		at, insert = ui.Members[0].KeyStart, `"resourceUri": `+uri+`, `
	case ui != nil:
		at, insert = ui.Start+1, `"resourceUri": `+uri
	default:
		at, insert = flat.End, `, "ui": {"resourceUri": `+uri+`}`
	}
	out := append([]byte(nil), def[:at]...)
	return append(append(out, insert...), def[at:]...)
}
