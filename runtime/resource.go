package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// ResourceHandler reads one resource (resources/read of its URI). The Call
// asks the client as in tools/call.
type ResourceHandler func(ctx context.Context, call *Call, uri string) (*ResourceResult, error)

// TemplateHandler reads one resource of a template: uri is the requested
// URI, vars the template variables it matched, percent-decoded. Generated
// code decodes vars into the typed parameters.
type TemplateHandler func(ctx context.Context, call *Call, uri string, vars URIVars) (*ResourceResult, error)

// ResourceLister lists the resources of a template that exist right now,
// for resources/list (after the fixed resources). Each must match the
// template, so that resources/read finds it.
type ResourceLister func(ctx context.Context) ([]ResourceInfo, error)

// Resource is one resource with a fixed URI, as generated code registers it.
type Resource struct {
	// URI is the resource's URI, as in Definition.
	URI string
	// Definition is the Resource object resources/list advertises (uri,
	// name, title, description, mimeType, size, annotations, icons, _meta),
	// byte for byte as written.
	Definition json.RawMessage
	// Elicitations are the forms reading it may ask for.
	Elicitations []*Elicitation
	// Handler answers resources/read.
	Handler ResourceHandler
	// Scopes are the OAuth scopes a caller's token must grant to read (or
	// subscribe to) the resource; checked only when Options.Auth is set.
	Scopes []string
	// Cache is the 2026-07-28 cache hint of its reads; nil means
	// DefaultReadCache. A ResourceResult's own Cache wins.
	Cache *CacheHint
}

// ResourceTemplate is a family of resources whose URIs match an RFC 6570
// URI template, as generated code registers it.
type ResourceTemplate struct {
	// URITemplate is the template, as in Definition's uriTemplate.
	URITemplate string
	// Definition is the ResourceTemplate object resources/templates/list
	// advertises, byte for byte as written.
	Definition json.RawMessage
	// Elicitations are the forms reading one may ask for.
	Elicitations []*Elicitation
	// Handler answers resources/read of a matching URI.
	Handler TemplateHandler
	// Scopes are the OAuth scopes a caller's token must grant to read (or
	// subscribe to) a resource of the template; checked only when
	// Options.Auth is set.
	Scopes []string
	// List, when set, lists the template's resources that exist at run
	// time in resources/list.
	List ResourceLister
	// Complete suggests values for the template's variables
	// (completion/complete with a ref/resource naming the template), per
	// variable name.
	Complete map[string]CompletionHandler
	// Cache is the 2026-07-28 cache hint of its reads; nil means
	// DefaultReadCache.
	Cache *CacheHint
	// AllowAnyValue lets every decoded variable value reach the handler:
	// control characters, "." and ".." segments, and "/" or "\" in
	// single-segment variables, which are otherwise refused as an unknown
	// resource (see URIVars). Set it only for a handler that treats values
	// as opaque data, never as part of a path or key.
	AllowAnyValue bool
}

// ResourceResult is the result of one resources/read: one or more contents
// (several for, say, the files of a directory).
type ResourceResult struct {
	Contents []ResourceContents
	// Cache overrides the resource's cache hint for this read (2026-07-28).
	Cache *CacheHint
}

// CacheHint is a 2026-07-28 caching hint: how long a client may reuse a
// result (ttlMs; 0 means it is stale at once) and whether caches may share it
// across users ("public") or only within one authorization ("private").
type CacheHint struct {
	TTL   time.Duration
	Scope CacheScope
}

// CacheScope is a cache hint's cacheScope.
type CacheScope string

// The cache scopes.
const (
	CachePublic  CacheScope = "public"
	CachePrivate CacheScope = "private"
)

// DefaultReadCache is the cache hint of a resources/read result whose
// resource sets none: private and stale at once, since contents may differ
// per user and change at any time.
var DefaultReadCache = CacheHint{TTL: 0, Scope: CachePrivate}

func (h *CacheHint) hint() (*cacheHint, error) {
	if h.Scope != CachePublic && h.Scope != CachePrivate {
		return nil, fmt.Errorf("cache scope %q is neither %q nor %q", h.Scope, CachePublic, CachePrivate)
	}
	if h.TTL < 0 {
		return nil, fmt.Errorf("cache TTL %v is negative", h.TTL)
	}
	return &cacheHint{ttlMs: h.TTL.Milliseconds(), scope: string(h.Scope)}, nil
}

// registeredResource is a Resource with its cache hint checked.
type registeredResource struct {
	Resource
	cache *cacheHint
}

// registeredTemplate is a ResourceTemplate with its template parsed.
type registeredTemplate struct {
	ResourceTemplate
	tmpl  *resourceuri.Template
	cache *cacheHint
}

func readCache(h *CacheHint) (*cacheHint, error) {
	if h == nil {
		h = &DefaultReadCache
	}
	return h.hint()
}

// URIVars are the variables a resource template's URI template matched in
// a resources/read URI, percent-decoded: one value for a plain variable,
// one per element for an exploded list ({/path*}). A query variable the URI
// leaves out is absent.
//
// What a handler may assume of a value, unless its template sets
// AllowAnyValue: it holds no control character (NUL included), it is not
// "." or "..", and none of its "/"- or "\"-separated segments is; and the
// value of a single-segment variable ({name}, {/name}, {.name}, and each
// element of their exploded forms) holds no "/" or "\" at all, even when
// the client percent-encoded them. A URI whose values break these rules
// matches no template (an unknown resource). The values of {+path},
// {#frag} and query variables may hold "/". Values are still the client's
// words: check them against what the handler serves.
type URIVars map[string][]string

// Get returns the first value of name, or "".
func (v URIVars) Get(name string) string {
	if vs := v[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// NormalizeURI is the form in which the runtime identifies a resource,
// however its URI is spelled (RFC 3986 section 6.2.2): the scheme and host
// lowercased, percent-encoded unreserved characters decoded, the hex
// digits of other percent-encodings uppercased. An extension that looks
// resources up by URI (skills/get, say) looks them up by this form, as
// resources/read, scopes and subscriptions do.
func NormalizeURI(u string) string { return resourceuri.Normalize(u) }

// URITemplateVar is one variable of a URI template, as a handler receives
// it in URIVars.
type URITemplateVar = resourceuri.Var

// URITemplateVariables parses template with the rules resources/read
// matches by and returns its variables in template order, or the error
// AddResourceTemplate would return.
func URITemplateVariables(template string) ([]URITemplateVar, error) {
	return resourceuri.Variables(template)
}

// ExpandURITemplate expands an RFC 6570 URI template with vars: the URI of
// the resource those variables name, which resources/read matches back to
// the same variables. It is how a handler builds the URI to announce with
// NotifyResourceUpdated; generated code wraps it in a typed function per
// template. A variable absent from vars, or with no values, expands to
// nothing (a query parameter is left out); values are percent-encoded as
// their expression's operator requires.
func ExpandURITemplate(template string, vars URIVars) string {
	return resourceuri.Expand(template, vars)
}

// compileResource checks and compiles r for the registry.
func compileResource(r Resource) (*registeredResource, error) {
	var def struct {
		URI  string `json:"uri"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(r.Definition, &def); err != nil {
		return nil, fmt.Errorf("resource %q: definition: %w", r.URI, err)
	}
	if def.URI != r.URI || r.URI == "" {
		return nil, fmt.Errorf("resource %q: definition has uri %q", r.URI, def.URI)
	}
	if def.Name == "" {
		return nil, fmt.Errorf("resource %q: definition has no name", r.URI)
	}
	if err := checkScopes("resource", r.URI, r.Scopes); err != nil {
		return nil, err
	}
	if r.Handler == nil {
		return nil, fmt.Errorf("resource %q: no handler", r.URI)
	}
	cache, err := readCache(r.Cache)
	if err != nil {
		return nil, fmt.Errorf("resource %q: %w", r.URI, err)
	}
	if err := checkElicitations(r.Elicitations); err != nil {
		return nil, fmt.Errorf("resource %q: %w", r.URI, err)
	}
	if r.Definition, err = compactJSON(r.Definition); err != nil {
		return nil, fmt.Errorf("resource %q: definition: %w", r.URI, err)
	}
	return &registeredResource{Resource: r, cache: cache}, nil
}

// compileTemplate checks and compiles rt for the registry.
func compileTemplate(rt ResourceTemplate) (*registeredTemplate, error) {
	var def struct {
		URITemplate string `json:"uriTemplate"`
		Name        string `json:"name"`
	}
	if err := json.Unmarshal(rt.Definition, &def); err != nil {
		return nil, fmt.Errorf("resource template %q: definition: %w", rt.URITemplate, err)
	}
	if def.URITemplate != rt.URITemplate || rt.URITemplate == "" {
		return nil, fmt.Errorf("resource template %q: definition has uriTemplate %q", rt.URITemplate, def.URITemplate)
	}
	if def.Name == "" {
		return nil, fmt.Errorf("resource template %q: definition has no name", rt.URITemplate)
	}
	if err := checkScopes("resource template", rt.URITemplate, rt.Scopes); err != nil {
		return nil, err
	}
	if rt.Handler == nil {
		return nil, fmt.Errorf("resource template %q: no handler", rt.URITemplate)
	}
	tmpl, err := resourceuri.Parse(rt.URITemplate)
	if err != nil {
		return nil, err
	}
	for name := range rt.Complete {
		found := false
		for _, n := range tmpl.Names() {
			found = found || n == name
		}
		if !found {
			return nil, fmt.Errorf("resource template %q: a completion handler for %q, which is not one of its variables", rt.URITemplate, name)
		}
	}
	cache, err := readCache(rt.Cache)
	if err != nil {
		return nil, fmt.Errorf("resource template %q: %w", rt.URITemplate, err)
	}
	if err := checkElicitations(rt.Elicitations); err != nil {
		return nil, fmt.Errorf("resource template %q: %w", rt.URITemplate, err)
	}
	if rt.Definition, err = compactJSON(rt.Definition); err != nil {
		return nil, fmt.Errorf("resource template %q: definition: %w", rt.URITemplate, err)
	}
	return &registeredTemplate{ResourceTemplate: rt, tmpl: tmpl, cache: cache}, nil
}
