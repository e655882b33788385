package runtime

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
)

// An extension may serve HTTP beside the MCP endpoint (Extension.Routes):
// a document at a well-known path, a webhook, a page. The Server serves
// them itself, before anything of MCP (Origin, Host, bearer token), so a
// Server used as an http.Handler on a user's mux serves them wherever that
// mux sends them (Server.Routes lists the patterns to mount), and Serve
// and ListenAndServe mount them beside /mcp.

// routeTable is the extensions' routes: a mux of their patterns, replaced,
// never changed, when an extension adds some.
type routeTable struct {
	mux      *http.ServeMux
	patterns []string                // in the order they were added
	handlers map[string]http.Handler // by pattern
}

// withRoutes returns a table with x's routes added, or an error naming a
// pattern that is malformed, conflicts with another, or would take the MCP
// endpoint or the metadata document (reserved: paths the Server answers
// as MCP).
func (t *routeTable) withRoutes(x *extension, reserved []string) (next *routeTable, err error) {
	if len(x.Routes) == 0 {
		return t, nil
	}
	next = &routeTable{mux: http.NewServeMux(), handlers: map[string]http.Handler{}}
	defer func() {
		if v := recover(); v != nil { // ServeMux.Handle panics on a bad or conflicting pattern
			next, err = nil, fmt.Errorf("extension %q: route: %v", x.ID, v)
		}
	}()
	add := func(pattern string, h http.Handler) {
		next.mux.Handle(pattern, h)
		next.patterns = append(next.patterns, pattern)
		next.handlers[pattern] = h
	}
	if t != nil {
		for _, p := range t.patterns {
			add(p, t.handlers[p])
		}
	}
	mine := http.NewServeMux()
	for _, p := range slices.Sorted(maps.Keys(x.Routes)) {
		if x.Routes[p] == nil {
			return nil, fmt.Errorf("extension %q: route %q has no handler", x.ID, p)
		}
		add(p, x.Routes[p])
		mine.Handle(p, x.Routes[p])
	}
	for _, path := range reserved {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			probe := &http.Request{Method: method, URL: &url.URL{Path: path}, Host: "localhost", Header: http.Header{}}
			if _, p := mine.Handler(probe); p != "" {
				return nil, fmt.Errorf("extension %q: route %q would take %s %s, which the Server answers as MCP", x.ID, p, method, path)
			}
		}
	}
	return next, nil
}

// route is the extension handler that serves r, or nil.
func (d *dispatcher) route(r *http.Request) http.Handler {
	t := d.routes.Load()
	if t == nil {
		return nil
	}
	h, pattern := t.mux.Handler(r)
	if pattern == "" {
		return nil
	}
	return h
}

// routePatterns are the patterns of the extensions' routes.
func (d *dispatcher) routePatterns() []string {
	if t := d.routes.Load(); t != nil {
		return slices.Clone(t.patterns)
	}
	return nil
}
