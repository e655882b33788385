package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

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
func (r *registry) extension(opts Options) runtime.Extension {
	raw, _ := json.Marshal(settings{DirectoryRead: opts.DirectoryRead})
	methods := []runtime.Method{
		{Name: "skills/list", Cheap: true, Authorize: runtime.NoScopes, Serve: r.serveList},
		{Name: "skills/get", Cheap: true, Authorize: r.authorizeGet, Serve: r.serveGet},
	}
	if opts.DirectoryRead {
		methods = append(methods, runtime.Method{Name: "resources/directory/read", Cheap: true, Authorize: r.authorizeDirectory, Serve: r.serveDirectory})
	}
	return runtime.Extension{ID: ExtensionID, Settings: raw, Methods: methods, State: r}
}

func (r *registry) serveList(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	c := r.current()
	res, cache, err := c.list(req.Params, req.Filtered(), req.Allowed)
	if err != nil {
		return nil, err
	}
	return &runtime.MethodResult{Result: res, Cache: cache}, nil
}

// authorizeGet names the requested skill and its scopes; an unknown skill
// needs none, and Serve answers it with -32602.
func (r *registry) authorizeGet(ctx context.Context, req *runtime.MethodRequest) (string, []string, error) {
	c := r.current()
	if e := c.skillFor(req.Params); e != nil {
		return e.uri, e.scopes, nil
	}
	return "", nil, nil
}

func (r *registry) serveGet(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	c := r.current()
	res, cache, err := c.get(req.Params)
	if err != nil {
		return nil, err
	}
	return &runtime.MethodResult{Result: res, Cache: cache}, nil
}

// authorizeDirectory names the requested folder and its skill's scopes.
func (r *registry) authorizeDirectory(ctx context.Context, req *runtime.MethodRequest) (string, []string, error) {
	c := r.current()
	var p getParams
	if d := c.dirFor(req.Params); d != nil && json.Unmarshal(req.Params, &p) == nil {
		return *p.URI, d.scopes, nil
	}
	return "", nil, nil
}

// serveDirectory answers resources/directory/read, whose result carries
// no cache hint (it is paginated, not cacheable, in the specification).
func (r *registry) serveDirectory(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	c := r.current()
	res, err := c.readDirectory(req.Params)
	if err != nil {
		return nil, err
	}
	return &runtime.MethodResult{Result: res}, nil
}

// registry is the extension on a server: the catalog of every Register so
// far, swapped whole when a later Register adds skills, so that requests
// read it without a lock.
type registry struct {
	opts options
	cat  atomic.Pointer[catalog]
}

func (r *registry) current() *catalog { return r.cat.Load() }

// options are Options as two Register calls must agree on them.
type options struct {
	directoryRead bool
	pageSize      int
	cache         runtime.CacheHint
}

func optionsKey(o Options) options {
	k := options{directoryRead: o.DirectoryRead, pageSize: o.PageSize, cache: DefaultCache}
	if k.pageSize <= 0 {
		k.pageSize = defaultPageSize
	}
	if o.Cache != nil {
		k.cache = *o.Cache
	}
	return k
}

// registered is the extension a Register of another package added to s,
// or nil; an error when it cannot be extended with opts.
func registered(s *runtime.Server, opts Options) (*registry, error) {
	have, ok := s.Extension(ExtensionID)
	if !ok {
		return nil, nil
	}
	r, mine := have.State.(*registry)
	switch {
	case !mine:
		return nil, fmt.Errorf("skills: %s was added by another package: %w", ExtensionID, runtime.ErrExtensionAdded)
	case r.opts != optionsKey(opts):
		return nil, fmt.Errorf("skills: Register was called before with other Options (%+v, now %+v); every package's skills are served with the same; nothing of these skills was added", r.opts, optionsKey(opts))
	}
	return r, nil
}
