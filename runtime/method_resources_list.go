package runtime

import (
	"context"
	"encoding/json"
)

// listResources answers resources/list: one page of the fixed resources in
// registration order, then the resources the templates' listers report
// (asked on every request, so the pages follow what exists; a cursor is an
// offset into that list). -32601 when the server has no resources.
func (s *Server) listResources(ctx context.Context, rq *request) outcome {
	if !s.features.hasResources() {
		return failure(notSupported("resources"))
	}
	page, e := pageIndex(rq.method, rq.params.Cursor, s.opts.PageSize)
	if e != nil {
		return failure(e)
	}
	allow := s.listFilter(ctx)
	defs, err := s.resourceDefinitions(ctx, allow)
	if err != nil {
		return failure(NewError(CodeInternalError, "resources/list: %v", err))
	}
	if start := page * s.opts.PageSize; start > 0 && start >= len(defs) {
		return failure(NewError(CodeInvalidParams, "resources/list: invalid cursor"))
	}
	pages, cache := encodePages("resources", defs, s.opts.PageSize), s.listCacheOf(rq.method)
	if allow != nil {
		cache = &privateListCache // the list depends on who asks
	}
	return outcome{result: json.RawMessage(pages[page]), cache: cache}
}
