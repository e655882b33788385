package skills

import (
	"context"
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime"
)

// settings is the extension's value in capabilities.extensions.
type settings struct {
	DirectoryRead bool `json:"directoryRead,omitempty"`
}

// extension is the skills extension as the runtime's seam takes it. It is
// declared in every protocol version the server speaks: SEP-2133 and
// SEP-2640 declare extensions in the initialize result as well as in
// server/discover, and the cache hints, defined from 2026-07-28 on, go only
// to 2026-07-28 requests (the runtime's framing).
func (c *catalog) extension(opts Options) runtime.Extension {
	raw, _ := json.Marshal(settings{DirectoryRead: opts.DirectoryRead})
	methods := []runtime.Method{
		{Name: "skills/list", Authorize: runtime.NoScopes, Serve: c.serveList},
		{Name: "skills/get", Authorize: c.authorizeGet, Serve: c.serveGet},
	}
	if opts.DirectoryRead {
		methods = append(methods, runtime.Method{Name: "resources/directory/read", Authorize: c.authorizeDirectory, Serve: c.serveDirectory})
	}
	return runtime.Extension{ID: ExtensionID, Settings: raw, Methods: methods}
}

func (c *catalog) serveList(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	res, cache, err := c.list(req.Params, req.Filtered(), req.Allowed)
	if err != nil {
		return nil, err
	}
	return &runtime.MethodResult{Result: res, Cache: cache}, nil
}

// authorizeGet names the requested skill and its scopes; an unknown skill
// needs none, and Serve answers it with -32602.
func (c *catalog) authorizeGet(ctx context.Context, req *runtime.MethodRequest) (string, []string, error) {
	if e := c.skillFor(req.Params); e != nil {
		return e.uri, e.scopes, nil
	}
	return "", nil, nil
}

func (c *catalog) serveGet(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	res, cache, err := c.get(req.Params)
	if err != nil {
		return nil, err
	}
	return &runtime.MethodResult{Result: res, Cache: cache}, nil
}

// authorizeDirectory names the requested folder and its skill's scopes.
func (c *catalog) authorizeDirectory(ctx context.Context, req *runtime.MethodRequest) (string, []string, error) {
	var p getParams
	if d := c.dirFor(req.Params); d != nil && json.Unmarshal(req.Params, &p) == nil {
		return *p.URI, d.scopes, nil
	}
	return "", nil, nil
}

// serveDirectory answers resources/directory/read, whose result carries
// no cache hint (it is paginated, not cacheable, in the specification).
func (c *catalog) serveDirectory(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	res, err := c.readDirectory(req.Params)
	if err != nil {
		return nil, err
	}
	return &runtime.MethodResult{Result: res}, nil
}
