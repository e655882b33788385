package apps

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/mcpgen/mcpgen/runtime"
)

// Enable declares MCP Apps on s: "io.modelcontextprotocol/ui": {} in
// capabilities.extensions, in the initialize result of every session and in
// server/discover. The core schema has capabilities.extensions from
// 2026-07-28 on; the extensions framework and MCP Apps declare it in
// initialize of the earlier versions too, where today's hosts look for it.
// The generated Register calls it for a package with pages; enabling it
// again (a second package with pages) does nothing.
func Enable(s *runtime.Server) error {
	err := s.AddExtension(runtime.Extension{ID: ExtensionID})
	if errors.Is(err, runtime.ErrExtensionAdded) {
		return nil // another package's pages enabled it first
	}
	return err
}

// HostRendersPages reports whether the call's client declared MCP Apps with
// text/html;profile=mcp-app among its mimeTypes: a host that renders a
// tool's page. Other hosts show the result's text instead, which a handler
// may then write for a reader.
func HostRendersPages(call *runtime.Call) bool {
	raw, ok := call.ClientExtension(ExtensionID)
	if !ok {
		return false
	}
	var settings struct {
		MIMETypes []string `json:"mimeTypes"`
	}
	return json.Unmarshal(raw, &settings) == nil && slices.Contains(settings.MIMETypes, MIMEType)
}
