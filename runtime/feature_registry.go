package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// featureRegistry holds the prompts, resources and resource templates of a
// Server, in registration order, and the encoded pages of their lists.
type featureRegistry struct {
	mu         sync.RWMutex
	prompts    []*registeredPrompt
	promptBy   map[string]*registeredPrompt
	resources  []*registeredResource
	resourceBy map[string]*registeredResource
	templates  []*registeredTemplate
	templateBy map[string]*registeredTemplate
	completes  bool                  // some prompt or template has a completion handler
	pages      map[string][][]byte   // encoded pages of fixed lists, by method, built lazily
	listCache  map[string]*cacheHint // cache hints of lists set with SetListCache, by method
}

func (f *featureRegistry) addPrompt(p *registeredPrompt) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.promptBy == nil {
		f.promptBy = map[string]*registeredPrompt{}
	}
	if f.promptBy[p.Name] != nil {
		return fmt.Errorf("prompt %q is already registered", p.Name)
	}
	f.prompts = append(f.prompts, p)
	f.promptBy[p.Name] = p
	f.completes = f.completes || len(p.Complete) > 0
	f.pages = nil
	return nil
}

func (f *featureRegistry) addResource(r *registeredResource) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.resourceBy == nil {
		f.resourceBy = map[string]*registeredResource{}
	}
	key := resourceuri.Normalize(r.URI)
	if have := f.resourceBy[key]; have != nil {
		if have.URI != r.URI {
			return fmt.Errorf("resource %q is already registered, as %q (the same URI, spelled differently)", r.URI, have.URI)
		}
		return fmt.Errorf("resource %q is already registered", r.URI)
	}
	f.resources = append(f.resources, r)
	f.resourceBy[key] = r
	f.pages = nil
	return nil
}

func (f *featureRegistry) addTemplate(t *registeredTemplate) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.templateBy == nil {
		f.templateBy = map[string]*registeredTemplate{}
	}
	if f.templateBy[t.URITemplate] != nil {
		return fmt.Errorf("resource template %q is already registered", t.URITemplate)
	}
	f.templates = append(f.templates, t)
	f.templateBy[t.URITemplate] = t
	f.completes = f.completes || len(t.Complete) > 0
	f.pages = nil
	return nil
}

func (f *featureRegistry) hasPrompts() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return len(f.prompts) > 0
}

func (f *featureRegistry) hasResources() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return len(f.resources) > 0 || len(f.templates) > 0
}

func (f *featureRegistry) hasCompletions() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.completes
}

func (f *featureRegistry) prompt(name string) *registeredPrompt {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.promptBy[name]
}

// findResource returns the fixed resource with this URI or else the first
// template, in registration order, that matches it and whose variables are
// safe (uri_template.go), with its variables. uri is normalized first
// (resource_uri.go), so that every spelling of a URI finds one resource.
func (f *featureRegistry) findResource(uri string) (*registeredResource, *registeredTemplate, URIVars) {
	uri = resourceuri.Normalize(uri)
	f.mu.RLock()
	defer f.mu.RUnlock()
	if r := f.resourceBy[uri]; r != nil {
		return r, nil, nil
	}
	for _, t := range f.templates {
		if vars, ok := t.tmpl.Match(uri); ok && (t.AllowAnyValue || t.tmpl.Safe(vars)) {
			return nil, t, vars
		}
	}
	return nil, nil, nil
}

// scopesOf names the resource uri (the fixed one, else of the template
// that matches it) and its scopes; nothing for a URI no resource has.
func (f *featureRegistry) scopesOf(uri string) (string, []string, *Error) {
	fixed, tmpl, _ := f.findResource(uri)
	switch {
	case fixed != nil:
		return "resource " + strconv.Quote(resourceuri.Normalize(uri)), fixed.Scopes, nil
	case tmpl != nil:
		return "resource " + strconv.Quote(resourceuri.Normalize(uri)), tmpl.Scopes, nil
	}
	return "", nil, nil
}

// SetListCache sets the 2026-07-28 cache hint of one list's results:
// method is "tools/list", "prompts/list", "resources/list" or
// "resources/templates/list". The default is public for one minute (a
// subscriptions/listen stream hears of changes sooner).
func (s *Server) SetListCache(method string, h CacheHint) error {
	switch method {
	case methodToolsList, methodPromptsList, methodResourcesList, methodTemplatesList:
	default:
		return fmt.Errorf("SetListCache: %q is not a list method", method)
	}
	c, err := h.hint()
	if err != nil {
		return fmt.Errorf("SetListCache %s: %w", method, err)
	}
	f := &s.features
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listCache == nil {
		f.listCache = map[string]*cacheHint{}
	}
	f.listCache[method] = c
	return nil
}

// listCacheOf is the cache hint of a list method's results.
func (s *Server) listCacheOf(method string) *cacheHint {
	f := &s.features
	f.mu.RLock()
	defer f.mu.RUnlock()
	if c := f.listCache[method]; c != nil {
		return c
	}
	return &publicListCache
}

// fixedPages returns the encoded pages of one of the fixed lists (prompts,
// templates), built on first use after a change.
func (s *Server) fixedPages(method, key string) [][]byte {
	f := &s.features
	f.mu.RLock()
	pages := f.pages[method]
	f.mu.RUnlock()
	if pages != nil {
		return pages
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if pages := f.pages[method]; pages != nil {
		return pages
	}
	var defs [][]byte
	switch method {
	case methodPromptsList:
		for _, p := range f.prompts {
			defs = append(defs, p.Definition)
		}
	case methodTemplatesList:
		for _, t := range f.templates {
			defs = append(defs, t.Definition)
		}
	}
	pages = encodePages(key, defs, s.opts.PageSize)
	if f.pages == nil {
		f.pages = map[string][][]byte{}
	}
	f.pages[method] = pages
	return pages
}

// encodePages encodes definitions as list results of size entries each
// under key, every page but the last with the nextCursor of the next.
func encodePages(key string, defs [][]byte, size int) [][]byte {
	pages := [][]byte{}
	for start := 0; start == 0 || start < len(defs); start += size {
		end := min(start+size, len(defs))
		b := append([]byte(`{"`), key...)
		b = append(b, `":[`...)
		for i, d := range defs[start:end] {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, d...)
		}
		b = append(b, ']')
		if end < len(defs) {
			b = append(b, `,"nextCursor":"`...)
			b = append(b, encodeCursor(end)...)
			b = append(b, '"')
		}
		pages = append(pages, append(b, '}'))
	}
	return pages
}

func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset)))
}

// pageIndex decodes a list cursor into the index of its page.
func pageIndex(method string, cursor *string, size int) (int, *Error) {
	if cursor == nil {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(*cursor)
	n, err2 := strconv.Atoi(string(b))
	if err != nil || err2 != nil || n <= 0 || n%size != 0 {
		return 0, NewError(CodeInvalidParams, "%s: invalid cursor", method)
	}
	return n / size, nil
}

// fixedListOutcome answers one page of a fixed list.
func (s *Server) fixedListOutcome(ctx context.Context, rq *request, key string) outcome {
	page, e := pageIndex(rq.method, rq.params.Cursor, s.opts.PageSize)
	if e != nil {
		return failure(e)
	}
	pages, cache := s.fixedPages(rq.method, key), s.listCacheOf(rq.method)
	if allow := s.listFilter(ctx); allow != nil {
		pages, cache = encodePages(key, s.allowedFixedDefs(rq.method, allow), s.opts.PageSize), &privateListCache
	}
	if page >= len(pages) {
		return failure(NewError(CodeInvalidParams, "%s: invalid cursor", rq.method))
	}
	return outcome{result: json.RawMessage(pages[page]), cache: cache}
}

// allowedFixedDefs are the prompts or templates whose scopes allow grants.
func (s *Server) allowedFixedDefs(method string, allow func(scopes []string) bool) [][]byte {
	f := &s.features
	f.mu.RLock()
	defer f.mu.RUnlock()
	var defs [][]byte
	switch method {
	case methodPromptsList:
		for _, p := range f.prompts {
			if allow(p.Scopes) {
				defs = append(defs, p.Definition)
			}
		}
	case methodTemplatesList:
		for _, t := range f.templates {
			if allow(t.Scopes) {
				defs = append(defs, t.Definition)
			}
		}
	}
	return defs
}

// resourceDefinitions are the entries of resources/list: the fixed
// resources, then what each template's lister reports; with allow, only
// those whose scopes (a listed resource's are its template's) it allows.
func (s *Server) resourceDefinitions(ctx context.Context, allow func(scopes []string) bool) ([][]byte, error) {
	if allow == nil {
		allow = func([]string) bool { return true }
	}
	f := &s.features
	f.mu.RLock()
	defs := make([][]byte, 0, len(f.resources))
	for _, r := range f.resources {
		if allow(r.Scopes) {
			defs = append(defs, r.Definition)
		}
	}
	var listers []*registeredTemplate
	for _, t := range f.templates {
		if t.List != nil && allow(t.Scopes) {
			listers = append(listers, t)
		}
	}
	f.mu.RUnlock()
	for _, t := range listers {
		infos, err := t.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing the resources of %q: %w", t.URITemplate, err)
		}
		for _, info := range infos {
			if info.URI == "" || info.Name == "" {
				return nil, fmt.Errorf("listing the resources of %q: a resource without uri or name", t.URITemplate)
			}
			b, err := json.Marshal(info)
			if err != nil {
				return nil, fmt.Errorf("listing the resources of %q: %w", t.URITemplate, err)
			}
			defs = append(defs, b)
		}
	}
	return defs, nil
}

// notSupported is the -32601 of a feature the server has nothing
// registered for (and so does not advertise).
func notSupported(feature string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: feature + " not supported",
		Data: map[string]string{"reason": "the server does not support the " + feature + " capability"}}
}
