package runtime

import (
	"context"
	"encoding/json"
	"time"
)

// listTools answers tools/list: one page of the tools in registration order.
// The cursor is the opaque, base64-encoded index of the page's first tool;
// pages are encoded once. The list does not vary per client, so any cache
// may share it.
func (s *Server) listTools(ctx context.Context, rq *request) outcome {
	page, e := pageIndex(rq.method, rq.params.Cursor, s.opts.PageSize)
	if e != nil {
		return failure(e)
	}
	pages, cache := rq.era.toolPages(s), s.listCacheOf(rq.method)
	if p := PrincipalFromContext(ctx); p != nil && s.auth != nil && s.auth.cfg.FilterLists {
		pages, cache = s.filteredToolPages(p, rq.era.toolDefinition), &privateListCache
	}
	if page >= len(pages) {
		return failure(NewError(CodeInvalidParams, "tools/list: invalid cursor"))
	}
	return outcome{result: json.RawMessage(pages[page]), cache: cache}
}

// listCacheTTL is the ttlMs of list results: a subscriptions/listen stream
// hears of changes sooner.
const listCacheTTL = time.Minute

// listCache is the cache hint of results that are the same for every client.
func (s *Server) listCache() *cacheHint { return &publicListCache }

var publicListCache = cacheHint{ttlMs: listCacheTTL.Milliseconds(), scope: "public"}

func (s *Server) buildListPages() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listPages != nil {
		return s.listPages
	}
	defs := make([][]byte, len(s.tools))
	for i, t := range s.tools {
		defs[i] = t.Definition
	}
	s.listPages = encodePages("tools", defs, s.opts.PageSize)
	return s.listPages
}

// toolListPages are the pages of tools/list, built once.
func (s *Server) toolListPages() [][]byte {
	s.mu.RLock()
	pages := s.listPages
	s.mu.RUnlock()
	if pages == nil {
		pages = s.buildListPages()
	}
	return pages
}

// legacyToolListPages are the pages 2025-era sessions see.
func (s *Server) legacyToolListPages() [][]byte {
	s.mu.RLock()
	pages := s.legacyPages
	s.mu.RUnlock()
	if pages == nil {
		pages = s.legacyListPages(s.toolListPages())
	}
	return pages
}

// legacyListPages returns the pages 2025-era sessions see: modern itself
// when no tool's definition differs there, else pages built from the
// legacy definitions (wrapped non-object outputSchemas, output_root.go).
func (s *Server) legacyListPages(modern [][]byte) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.legacyPages != nil {
		return s.legacyPages
	}
	differs := false
	defs := make([][]byte, len(s.tools))
	for i, t := range s.tools {
		defs[i] = t.Definition
		if t.legacyDef != nil {
			defs[i], differs = t.legacyDef, true
		}
	}
	if !differs {
		return modern
	}
	s.legacyPages = encodePages("tools", defs, s.opts.PageSize)
	return s.legacyPages
}
