package runtime

import (
	"context"
	"encoding/json"
	"fmt"
)

// The lists of a server's features are paged (Options.PageSize per page,
// in registration order) and encoded once per change: tools/list,
// prompts/list and resources/templates/list serve bytes, not structs. A
// cursor is the opaque, base64-encoded index of its page's first entry.
// resources/list is built per request, since template listers report what
// exists now.

// listKind names one of the lists; a list method's row says which.
type listKind uint8

const (
	listNone listKind = iota
	listTools
	listPrompts
	listResources
	listTemplates
)

// pageKey is what a cached set of pages holds: a list, as legacy sessions
// or as 2026-07-28 sees it (only tools differ, output_root: a 2025 client
// knows only object structured output).
type pageKey struct {
	kind   listKind
	legacy bool
}

// listCacheTTL is the ttlMs of list results: a subscriptions/listen stream
// hears of changes sooner.
const listCacheTTL = 60_000

var (
	publicListCache  = cacheHint{ttlMs: listCacheTTL, scope: "public"}
	privateListCache = cacheHint{ttlMs: listCacheTTL, scope: "private"}
)

// pages are the encoded pages of a list, for legacy shapes or not; allow,
// when set (Auth.FilterLists), keeps the entries whose scopes it allows,
// and such pages are built for the request, never cached.
func (f *featureRegistry) pages(kind listKind, legacy bool, allow func(scopes []string) bool) [][]byte {
	key := pageKey{kind, legacy && kind == listTools}
	if allow == nil {
		f.mu.RLock()
		pages := f.cached[key]
		f.mu.RUnlock()
		if pages != nil {
			return pages
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if allow == nil {
		if pages := f.cached[key]; pages != nil {
			return pages
		}
	}
	var defs [][]byte
	differs := false
	switch kind {
	case listTools:
		for _, t := range f.tools.items {
			if allow != nil && !allow(t.Scopes) {
				continue
			}
			def := t.Definition
			if key.legacy && t.legacyDef != nil {
				def, differs = t.legacyDef, true
			}
			defs = append(defs, def)
		}
	case listPrompts:
		for _, p := range f.prompts.items {
			if allow == nil || allow(p.Scopes) {
				defs = append(defs, p.Definition)
			}
		}
	case listTemplates:
		for _, t := range f.templates.items {
			if allow == nil || allow(t.Scopes) {
				defs = append(defs, t.Definition)
			}
		}
	}
	if key.legacy && !differs && allow == nil {
		if pages := f.cached[pageKey{kind, false}]; pages != nil {
			return pages // no tool looks different to a 2025 client
		}
	}
	pages := encodePages(listProperty[kind], defs, f.pageSize)
	if allow == nil {
		if f.cached == nil {
			f.cached = map[pageKey][][]byte{}
		}
		f.cached[key] = pages
	}
	return pages
}

// listProperty is the member of a list result that holds its entries.
var listProperty = map[listKind]string{listTools: "tools", listPrompts: "prompts", listResources: "resources", listTemplates: "resourceTemplates"}

// forget drops the pages a change of kind makes stale.
func (f *featureRegistry) forget(kind listKind) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forgetLocked(kind)
}

func (f *featureRegistry) forgetLocked(kind listKind) {
	delete(f.cached, pageKey{kind, false})
	delete(f.cached, pageKey{kind, true})
}

// setListCache sets the cache hint of a list's results.
func (f *featureRegistry) setListCache(kind listKind, c *cacheHint) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listCache == nil {
		f.listCache = map[listKind]*cacheHint{}
	}
	f.listCache[kind] = c
}

// listCacheOf is the cache hint of a list's results: private when the
// list was filtered for its caller, else what SetListCache set, else public
// for a minute.
func (f *featureRegistry) listCacheOf(kind listKind, filtered bool) *cacheHint {
	if filtered {
		return &privateListCache
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	if c := f.listCache[kind]; c != nil {
		return c
	}
	return &publicListCache
}

// page answers one page of a list: the page the cursor names (-32602 for
// a cursor the server did not issue), with its cache hint.
func (f *featureRegistry) page(ctx context.Context, method string, kind listKind, legacy bool, cursor *string, allow func(scopes []string) bool) outcome {
	n, e := pageIndex(method, cursor, f.pageSize)
	if e != nil {
		return failure(e)
	}
	var pages [][]byte
	if kind == listResources {
		defs, err := f.resourceDefinitions(ctx, allow)
		if err != nil {
			return failure(NewError(CodeInternalError, "%s: %v", method, err))
		}
		if start := n * f.pageSize; start > 0 && start >= len(defs) {
			return failure(NewError(CodeInvalidParams, "%s: invalid cursor", method))
		}
		pages = encodePages(listProperty[kind], defs, f.pageSize)
	} else {
		pages = f.pages(kind, legacy, allow)
	}
	if n >= len(pages) {
		return failure(NewError(CodeInvalidParams, "%s: invalid cursor", method))
	}
	return outcome{result: json.RawMessage(pages[n]), cache: f.listCacheOf(kind, allow != nil)}
}

// resourceDefinitions are the entries of resources/list: the fixed
// resources, then what each template's lister reports; with allow, only
// those whose scopes (a listed resource's are its template's) it allows.
func (f *featureRegistry) resourceDefinitions(ctx context.Context, allow func(scopes []string) bool) ([][]byte, error) {
	if allow == nil {
		allow = func([]string) bool { return true }
	}
	f.mu.RLock()
	defs := make([][]byte, 0, len(f.resources.items))
	for _, r := range f.resources.items {
		if allow(r.Scopes) {
			defs = append(defs, r.Definition)
		}
	}
	var listers []*registeredTemplate
	for _, t := range f.templates.items {
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

// pageIndex decodes a list cursor into the index of its page.
func pageIndex(method string, cursor *string, size int) (int, *Error) {
	n, e := pageStart(method, cursor, size)
	return n / size, e
}
