package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// MCP Apps (extension io.modelcontextprotocol/ui, revision 2026-01-26): a
// tool names the ui:// resource that shows its results in _meta.ui
// (resourceUri, visibility); the resource is an HTML page served as
// text/html;profile=mcp-app, its _meta.ui carrying the Content Security
// Policy and permissions the page asks the host for. These keys belong to
// the extension, not to mcpgen, so they stay in what clients see; mcpgen
// checks them and links the tool to the page.

// The MCP Apps names the generator needs.
const (
	appScheme = "ui://"
	// appMIMEType is the MIME type of every ui:// page.
	appMIMEType = "text/html;profile=mcp-app"
	// flatResourceURI is the older flat form of _meta.ui.resourceUri, which
	// some hosts still read; tools advertise both.
	flatResourceURI = "ui/resourceUri"
)

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

// isAppURI reports whether a resource URI names an MCP Apps page.
func isAppURI(uri string) bool { return strings.HasPrefix(uri, appScheme) }

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

// The keys of a ui:// resource's _meta.ui and of its csp and permissions.
var (
	cspKeys        = keySet("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
	permissionKeys = keySet("camera", "microphone", "geolocation", "clipboardWrite")
)

// loadResourceUI checks a ui:// resource's _meta.ui (csp, permissions,
// domain, prefersBorder) and keeps its bytes, which resources/read sends
// with the page.
func loadResourceUI(at place, f *featureDef, rep *reporter) bool {
	ui := at.node
	if ui.Kind != jsontree.Object {
		rep.errorf(at, `write {"csp": {"connectDomains": [...]}, "prefersBorder": true}`, "_meta.ui must be an object, not a %s", ui.Kind)
		return false
	}
	ok := true
	for _, mem := range ui.Members {
		v := mem.Value
		vp := place{at.src, v}
		switch mem.Key {
		case "csp":
			ok = loadCSP(vp, rep) && ok
		case "permissions":
			ok = loadPermissions(vp, rep) && ok
		case "domain":
			if v.Kind != jsontree.String || v.Str == "" {
				rep.errorf(vp, "the format depends on the host; see its documentation", "domain must be a non-empty string")
				ok = false
			}
		case "prefersBorder":
			if v.Kind != jsontree.Bool {
				rep.errorf(vp, "write true or false", "prefersBorder must be a boolean")
				ok = false
			}
		default:
			rep.warnf(vp, "MCP Apps 2026-01-26 knows csp, permissions, domain and prefersBorder; hosts ignore other keys",
				"unknown key %q in a page's _meta.ui", mem.Key)
		}
	}
	f.ui = []byte(compactJSON(at.src.doc, ui))
	return ok
}

func loadCSP(at place, rep *reporter) bool {
	const hint = `write {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://cdn.example.com"]}`
	if at.node.Kind != jsontree.Object {
		rep.errorf(at, hint, "csp must be an object, not a %s", at.node.Kind)
		return false
	}
	ok := true
	for _, mem := range at.node.Members {
		v := mem.Value
		if !cspKeys[mem.Key] {
			rep.warnf(place{at.src, v}, "MCP Apps 2026-01-26 knows connectDomains, resourceDomains, frameDomains and baseUriDomains; hosts ignore other keys",
				"unknown key %q in csp", mem.Key)
			continue
		}
		if v.Kind != jsontree.Array {
			rep.errorf(place{at.src, v}, hint, "%s must be an array of origins, not a %s", mem.Key, v.Kind)
			ok = false
			continue
		}
		for _, el := range v.Elems {
			if el.Kind != jsontree.String {
				rep.errorf(place{at.src, el}, "write an origin such as \"https://api.example.com\"", "origins are strings, not a %s", el.Kind)
				ok = false
				continue
			}
			if why := notOrigin(el.Str); why != "" {
				rep.errorf(place{at.src, el}, "write scheme://host[:port], such as \"https://api.example.com\" or \"https://*.example.com\"",
					"%q is not an origin: %s", el.Str, why)
				ok = false
			}
		}
	}
	return ok
}

// notOrigin says why s is not an origin a page's CSP may name (http, https,
// ws or wss, a host or a *. wildcard subdomain, an optional port, nothing
// after), or "" when it is one.
func notOrigin(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "it does not parse as a URL"
	case u.Scheme == "" || u.Opaque != "" || u.Host == "":
		return "it has no scheme://host"
	case u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "wss" && u.Scheme != "ws":
		return fmt.Sprintf("the scheme %s is not http, https, ws or wss", u.Scheme)
	case u.User != nil:
		return "it carries user information"
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.HasSuffix(s, "#"):
		return "an origin ends after the host and port"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("port %s is not a number from 1 to 65535", p)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "the port is empty"
	}
	host := u.Hostname()
	if net.ParseIP(host) != nil {
		return ""
	}
	host = strings.TrimPrefix(host, "*.")
	for _, label := range strings.Split(host, ".") {
		if !dnsLabel(label) {
			return fmt.Sprintf("%q is not a host name", u.Hostname())
		}
	}
	return ""
}

// dnsLabel reports whether s is one label of a host name.
func dnsLabel(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func loadPermissions(at place, rep *reporter) bool {
	const hint = `write {"camera": {}, "clipboardWrite": {}}`
	if at.node.Kind != jsontree.Object {
		rep.errorf(at, hint, "permissions must be an object, not a %s", at.node.Kind)
		return false
	}
	ok := true
	for _, mem := range at.node.Members {
		v := mem.Value
		switch {
		case !permissionKeys[mem.Key]:
			rep.warnf(place{at.src, v}, "MCP Apps 2026-01-26 knows camera, microphone, geolocation and clipboardWrite; hosts ignore other keys",
				"unknown permission %q", mem.Key)
		case v.Kind != jsontree.Object:
			rep.errorf(place{at.src, v}, hint, "permission %s is asked for with {}, not a %s", mem.Key, v.Kind)
			ok = false
		}
	}
	return ok
}

// declarePage records a ui:// resource, even one whose other parts are bad,
// so that a tool naming it is not also reported.
func (m *model) declarePage(uri string) {
	if m.pages == nil {
		m.pages = map[string]bool{}
	}
	m.pages[uri] = true
}

// checkAppPages reports ui:// pages a tool names that no input declares, and
// checks the MIME type pages declare.
func checkAppPages(m *model, rep *reporter) {
	var names []string
	for uri := range m.pages {
		names = append(names, uri)
	}
	for _, f := range m.features {
		if f.kind != kindResource || !isAppURI(f.key) {
			continue
		}
		switch mt := f.at.node.Get("mimeType"); {
		case mt == nil:
			rep.warnf(place{f.at.src, f.keyAt}, fmt.Sprintf(`add "mimeType": %q; resources/read sends it either way`, appMIMEType),
				"MCP Apps page %s declares no mimeType", f.key)
		case mt.Kind == jsontree.String && mt.Str != appMIMEType:
			rep.errorf(place{f.at.src, mt}, fmt.Sprintf("write %q", appMIMEType), "a ui:// page is served as %s, not %s", appMIMEType, mt.Str)
		}
	}
	sort.Strings(names)
	for _, t := range m.tools {
		if t.ui == nil || t.ui.resourceURI == "" || m.pages[t.ui.resourceURI] {
			continue
		}
		hint := `declare a resource with this "uri" and "mimeType": "` + appMIMEType + `"`
		if len(names) > 0 {
			hint += ", or use one of: " + strings.Join(names, ", ")
		}
		rep.errorf(place{t.at.src, t.ui.uriAt}, hint, "tool %q shows its results in %s, which no input declares", t.name, t.ui.resourceURI)
	}
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

// jsonString is s as a JSON string, with <, > and & as written.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
