package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"
)

// listTools answers tools/list: one page of the tools in registration order.
// The cursor is the opaque, base64-encoded index of the page's first tool;
// pages are encoded once. The list does not vary per client, so any cache
// may share it.
func (s *Server) listTools(ctx context.Context, rq *request) outcome {
	if p := PrincipalFromContext(ctx); p != nil && s.auth != nil && s.auth.cfg.FilterLists {
		return s.filteredToolList(p, rq.params.Cursor, rq.era.toolDefinition)
	}
	page := 0
	if c := rq.params.Cursor; c != nil {
		b, err := base64.RawURLEncoding.DecodeString(*c)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n <= 0 || n%s.opts.PageSize != 0 {
			return failure(NewError(CodeInvalidParams, "tools/list: invalid cursor"))
		}
		page = n / s.opts.PageSize
	}
	pages := rq.era.toolPages(s)
	if page >= len(pages) {
		return failure(NewError(CodeInvalidParams, "tools/list: invalid cursor"))
	}
	return outcome{result: json.RawMessage(pages[page]), cache: s.listCacheOf("tools/list")}
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
	size := s.opts.PageSize
	pages := [][]byte{}
	for start := 0; start == 0 || start < len(s.tools); start += size {
		end := min(start+size, len(s.tools))
		b := []byte(`{"tools":[`)
		for i, t := range s.tools[start:end] {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, t.Definition...)
		}
		b = append(b, ']')
		if end < len(s.tools) {
			b = append(b, `,"nextCursor":"`...)
			b = append(b, base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))...)
			b = append(b, '"')
		}
		pages = append(pages, append(b, '}'))
	}
	s.listPages = pages
	return pages
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
	for _, t := range s.tools {
		differs = differs || t.legacyDef != nil
	}
	if !differs {
		return modern
	}
	size := s.opts.PageSize
	pages := [][]byte{}
	for start := 0; start == 0 || start < len(s.tools); start += size {
		end := min(start+size, len(s.tools))
		b := []byte(`{"tools":[`)
		for i, t := range s.tools[start:end] {
			if i > 0 {
				b = append(b, ',')
			}
			if t.legacyDef != nil {
				b = append(b, t.legacyDef...)
			} else {
				b = append(b, t.Definition...)
			}
		}
		b = append(b, ']')
		if end < len(s.tools) {
			b = append(b, `,"nextCursor":"`...)
			b = append(b, base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))...)
			b = append(b, '"')
		}
		pages = append(pages, append(b, '}'))
	}
	s.legacyPages = pages
	return pages
}
