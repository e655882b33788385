// Package apps serves MCP Apps (the io.modelcontextprotocol/ui extension,
// specification revision 2026-01-26) on an mcpgen server: tools that show
// their results in an interactive HTML page the host renders.
//
// A tool names its page in _meta.ui.resourceUri; the page is a ui://
// resource that resources/read answers as text/html;profile=mcp-app, with
// the page's Content Security Policy and permissions in _meta.ui. The host
// renders the page in a sandboxed iframe, sends it the tool's input and
// result over postMessage, and lets it call the server's tools back through
// the host. Generated code does all of this from the tool and resource JSON
// (see docs/apps.md); this package holds what it calls at run time.
//
// Visibility (_meta.ui.visibility ["app"]) only asks hosts to keep a tool
// out of the model's tool list: any client may still call it. Restrict who
// may call a tool with scopes, never with visibility.
package apps

// ExtensionID identifies MCP Apps in capabilities.extensions.
const ExtensionID = "io.modelcontextprotocol/ui"

// MIMEType is the MIME type of every ui:// page.
const MIMEType = "text/html;profile=mcp-app"
