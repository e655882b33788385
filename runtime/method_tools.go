package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
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

// callTool answers tools/call. The arguments must be an object (else
// -32602) and are validated against the tool's inputSchema before the
// handler runs (a failure is an isError result the model can read); handler
// panics are recovered. In 2026-07-28 this is one round of a possibly multi
// round-trip call: the era's openRound hands the handler the answers of
// earlier rounds, and closeRound turns unanswered questions into an
// input_required result.
func (s *Server) callTool(ctx context.Context, rq *request) outcome {
	p := rq.params
	if p.Name == nil {
		return failure(NewError(CodeInvalidParams, "tools/call: params.name is required"))
	}
	s.mu.RLock()
	t := s.byName[string(p.Name)]
	s.mu.RUnlock()
	if t == nil {
		return failure(NewError(CodeInvalidParams, "tools/call: unknown tool %q", p.Name))
	}
	args, e := t.checkArguments(p.Arguments)
	if e != nil {
		return failure(e)
	}
	peer, state, e := rq.era.openRound(ctx, rq, t.Name, args)
	if e != nil {
		return failure(e)
	}
	args, res := t.validate(args)
	if res != nil {
		return resultOf(res)
	}
	if o, done := s.taskCall(ctx, rq, t, args, peer, state); done {
		return o
	}
	call := newCall(s, peer, state)
	call.intercept(s, ctx)
	call.principal = PrincipalFromContext(ctx)
	res, err := s.runHandler(ctx, t, call, args)
	if o, done := rq.era.closeRound(rq, t.Name, args, call, err); done {
		return o
	}
	if err == nil {
		res = s.checkOutput(t, res)
	}
	res, err = rq.era.toolResult(t, res, err)
	return toolOutcome(t.Name, res, err)
}

// checkArguments returns the arguments object ({} when absent); anything but
// an object is invalid params.
func (t *registeredTool) checkArguments(raw json.RawMessage) (json.RawMessage, *Error) {
	raw = trimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] != '{' {
		return nil, NewError(CodeInvalidParams, "tools/call: arguments of %q must be an object", t.Name)
	}
	return raw, nil
}

// validate checks args against the compiled inputSchema and returns them
// as the handler decodes them (without keys that are declared names in
// another case, see schema.KeyShape), or the isError result that tells the model
// what was wrong.
func (t *registeredTool) validate(args json.RawMessage) (json.RawMessage, *ToolResult) {
	if t.flat != nil && t.flat.Accepts(args) {
		return args, nil
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, toolErrorResult(fmt.Errorf("invalid arguments for tool %q: %v", t.Name, err))
	}
	err := t.input.Validate(v)
	if err == nil {
		if t.keys.Strip(v) {
			if args, err = json.Marshal(v); err != nil {
				return nil, toolErrorResult(fmt.Errorf("invalid arguments for tool %q: %v", t.Name, err))
			}
		}
		return args, nil
	}
	return nil, toolErrorResult(fmt.Errorf("invalid arguments for tool %q: %s", t.Name, schemaViolations(err, t.schemaDoc("inputSchema"))))
}

// schemaDoc is one of the tool's schemas decoded, for error messages.
func (t *registeredTool) schemaDoc(key string) any {
	var def map[string]any
	_ = json.Unmarshal(t.Definition, &def)
	return def[key]
}

// runHandler calls the tool's handler, turning a panic into an error.
func (s *Server) runHandler(ctx context.Context, t *registeredTool, call *Call, args json.RawMessage) (res *ToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.logger.Error("tool handler panicked", slog.String("tool", t.Name),
				slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
			res, err = nil, errHandlerPanic
		}
	}()
	return t.Handler(ctx, call, args)
}

var errHandlerPanic = &Error{Code: CodeInternalError, Message: "internal error: the tool handler panicked"}

// toolOutcome maps a handler's return to the tools/call response: an *Error
// is that JSON-RPC error, a missing client capability is -32021 naming it,
// any other error is an isError result the model reads.
func toolOutcome(name string, res *ToolResult, err error) outcome {
	if err == nil {
		if res == nil {
			res = &ToolResult{}
		}
		return resultOf(res)
	}
	var rpcErr *Error
	switch {
	case errors.As(err, &rpcErr):
		return failure(rpcErr)
	case errors.Is(err, ErrCapabilityMissing):
		return failure(missingCapability(err))
	case errors.Is(err, ErrInputRequired):
		return failure(NewError(CodeInternalError, "tool %q returned ErrInputRequired without asking the client anything", name))
	}
	return resultOf(toolErrorResult(err))
}
