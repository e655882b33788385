package runtime

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// ErrResourceNotFound is what a resource handler returns when the resource
// does not exist (a template matched, but nothing has that ID): the client
// gets the era's resource-not-found error, as for an unknown URI.
var ErrResourceNotFound = errors.New("mcpgen: resource not found")

// readResource answers resources/read: the fixed resource with this URI,
// else the first template that matches it (in registration order), whose
// handler gets the decoded variables. An unknown URI, a handler returning
// ErrResourceNotFound and a handler returning no contents are the era's
// resource-not-found error: -32002 in legacy sessions, -32602 in 2026-07-28,
// both with data.uri. The URI is matched, authorized and handed to the
// handler normalized (resource_uri.go): every spelling of it reads one
// resource. Contents without a uri get the requested one. Like
// tools/call, in 2026-07-28 a read may take several rounds when the
// handler elicits.
func (s *Server) readResource(ctx context.Context, rq *request) outcome {
	if !s.features.hasResources() {
		return failure(notSupported("resources"))
	}
	p := rq.params
	if p.URI == nil || *p.URI == "" {
		return failure(NewError(CodeInvalidParams, "resources/read: params.uri is required"))
	}
	requested := *p.URI
	uri := resourceuri.Normalize(requested) // the handler sees one spelling of each resource
	fixed, tmpl, vars := s.features.findResource(uri)
	if fixed == nil && tmpl == nil {
		return failure(rq.era.resourceNotFound(requested))
	}
	args := json.RawMessage("{}")
	peer, state, e := rq.era.openRound(ctx, rq, uri, args)
	if e != nil {
		return failure(e)
	}
	call := newCall(s, peer, state)
	call.principal = PrincipalFromContext(ctx)
	var res *ResourceResult
	var err error
	var cache *cacheHint
	if fixed != nil {
		cache = fixed.cache
		res, err = runFeatureHandler(s, "resource", uri, func() (*ResourceResult, error) { return fixed.Handler(ctx, call, uri) })
	} else {
		cache = tmpl.cache
		res, err = runFeatureHandler(s, "resource", uri, func() (*ResourceResult, error) { return tmpl.Handler(ctx, call, uri, vars) })
	}
	if o, done := rq.era.closeRound(rq, uri, args, call, err); done {
		return o
	}
	switch {
	case errors.Is(err, ErrResourceNotFound), err == nil && (res == nil || len(res.Contents) == 0):
		return failure(rq.era.resourceNotFound(requested))
	case err != nil:
		return failure(featureError("resource", uri, err))
	}
	if res.Cache != nil {
		c, herr := res.Cache.hint()
		if herr != nil {
			return failure(NewError(CodeInternalError, "resource %q: %v", uri, herr))
		}
		cache = c
	}
	contents := make([]ResourceContents, len(res.Contents))
	for i, c := range res.Contents {
		if c.URI == "" {
			c.URI = requested
		}
		contents[i] = c
	}
	return outcome{cache: cache, result: struct {
		Contents []ResourceContents `json:"contents"`
	}{contents}}
}
