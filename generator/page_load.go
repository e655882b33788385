package generator

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// An MCP Apps page's side (mcp_apps.go): the ui:// resource's _meta.ui (its
// Content Security Policy, permissions, domain, border), its MIME type, and
// its file, which must be an HTML5 document.

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

// doctypeRE is the start of an HTML5 document: a doctype, after optional
// white space and comments.
var doctypeRE = regexp.MustCompile(`(?is)^\x{FEFF}?\s*(?:<!--.*?-->\s*)*<!doctype\s+html\s*>`)

// notHTMLPage says why data is not an HTML5 document, or "".
func notHTMLPage(data []byte) string {
	switch {
	case !utf8.Valid(data):
		return "is not UTF-8 text"
	case !doctypeRE.Match(data):
		return "is not an HTML5 document (no <!DOCTYPE html> at the start)"
	}
	return ""
}
