package servercard

import (
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime"
)

// DefaultMCPPath is where runtime.Server.Serve and ListenAndServe answer
// MCP, and so where Enable puts the card beside: /mcp/server-card.
const DefaultMCPPath = "/mcp"

// Enable serves the card of s beside its MCP endpoint and declares the
// extension (capabilities.extensions["io.modelcontextprotocol/server-card"],
// in every protocol version s speaks). The card is built from what s
// serves (runtime.Host.Describe) and rebuilt after every change
// (runtime.Host.OnChange): a tool added later shows in the enumerating
// document, with a new ETag. When s filters its lists by principal
// (runtime.AuthDescription.ListsVaryByPrincipal), no public document
// lists them.
//
// The routes are the runtime's own (runtime.Extension.Routes): Serve and
// ListenAndServe mount them; a Server on a mux of the user's needs
// Server.Routes mounted too, and the card assumes the MCP endpoint is at
// /mcp (use New and Routes directly for another path). Options are checked
// first; enabling it a second time is an error wrapping
// runtime.ErrExtensionAdded.
func Enable(s *runtime.Server, opts Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	// The runtime takes the patterns before Init, while the Cards need
	// the Host Init gives: each route forwards to the Cards Init builds,
	// and answers 404 until then (no request reaches it before).
	var routes atomic.Pointer[map[string]http.Handler]
	mounted := map[string]http.Handler{}
	for _, p := range Paths(opts, DefaultMCPPath) {
		mounted[p] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if m := routes.Load(); m != nil {
				(*m)[p].ServeHTTP(w, r)
				return
			}
			http.NotFound(w, r)
		})
	}
	err := s.AddExtension(runtime.Extension{
		ID:     ExtensionID,
		Routes: mounted,
		Init: func(h *runtime.Host) error {
			c, err := New(hostSource{h}, opts, DefaultMCPPath)
			if err != nil {
				return err
			}
			m := c.Routes()
			routes.Store(&m)
			return nil
		},
	})
	if err != nil {
		return fmt.Errorf("servercard: %w", err)
	}
	return nil
}

// hostSource is the runtime's description of a server as a Source.
type hostSource struct{ h *runtime.Host }

func (s hostSource) OnChange(f func()) { s.h.OnChange(f) }

func (s hostSource) Describe() Description {
	d := s.h.Describe()
	out := Description{
		Name: d.Name, Title: d.Title, Version: d.Version,
		Versions: d.Versions, Capabilities: d.Capabilities,
		Tools: d.Tools, Prompts: d.Prompts, Resources: d.Resources, ResourceTemplates: d.ResourceTemplates,
	}
	if a := d.Auth; a != nil {
		out.Auth = &Auth{
			Resource: a.Resource, AuthorizationServers: a.AuthorizationServers, ScopesSupported: a.ScopesSupported,
			MetadataPath: a.MetadataPath, ListsVaryByPrincipal: a.ListsVaryByPrincipal,
		}
	}
	return out
}
