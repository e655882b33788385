package apps

import (
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime"
)

// Page is the resources/read result of a ui:// page: html served as
// text/html;profile=mcp-app, with the page's _meta.ui (its Content Security
// Policy, permissions, domain and border preference) when ui is not nil.
//
// The host renders html in a sandboxed iframe under the policy ui declares,
// and hosts may cache it: keep it a template, the same for every user, and
// send data through tool results, never by writing it into the HTML.
func Page(uri, html string, ui json.RawMessage) *runtime.ResourceResult {
	c := runtime.ResourceContents{URI: uri, MIMEType: MIMEType, Text: html}
	if ui != nil {
		c.Meta = append(append([]byte(`{"ui":`), ui...), '}')
	}
	return &runtime.ResourceResult{Contents: []runtime.ResourceContents{c}}
}
