package generator

import "strings"

// MCP Apps (extension io.modelcontextprotocol/ui, revision 2026-01-26): a
// tool names the ui:// resource that shows its results in _meta.ui
// (resourceUri, visibility); the resource is an HTML page served as
// text/html;profile=mcp-app, its _meta.ui carrying the Content Security
// Policy and permissions the page asks the host for. These keys belong to
// the extension, not to mcpgen, so they stay in what clients see; mcpgen
// checks them and links the tool to the page. The tools' side is in
// tool_ui_load.go and tool_emit.go, the pages' in page_*.go.

// The MCP Apps names the generator needs.
const (
	appScheme = "ui://"
	// appMIMEType is the MIME type of every ui:// page.
	appMIMEType = "text/html;profile=mcp-app"
	// flatResourceURI is the older flat form of _meta.ui.resourceUri, which
	// some hosts still read; tools advertise both.
	flatResourceURI = "ui/resourceUri"
	// appsPkg is the runtime package of MCP Apps.
	appsPkg = "github.com/mcpgen/mcpgen/ext/apps"
)

// isAppURI reports whether a resource URI names an MCP Apps page.
func isAppURI(uri string) bool { return strings.HasPrefix(uri, appScheme) }

// pageNamespace is the namespace of page URIs in the loadContext: the page
// kind declares them, tools refer to them.
const pageNamespace = "page"
