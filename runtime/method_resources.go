package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// listResources answers resources/list: one page of the fixed resources in
// registration order, then the resources the templates' listers report
// (asked on every request, so the pages follow what exists; a cursor is an
// offset into that list). -32601 when the server has no resources.
func (d *dispatcher) listResources(ctx context.Context, rq *request) outcome {
	if !d.features.hasResources() {
		return failure(notSupported("resources"))
	}
	return d.features.page(ctx, rq.method, listResources, false, rq.params.Cursor, d.listFilter(ctx))
}

// listResourceTemplates answers resources/templates/list: one page of the
// templates in registration order; -32601 when the server has no
// resources.
func (d *dispatcher) listResourceTemplates(ctx context.Context, rq *request) outcome {
	if !d.features.hasResources() {
		return failure(notSupported("resources"))
	}
	return d.features.page(ctx, rq.method, listTemplates, false, rq.params.Cursor, d.listFilter(ctx))
}

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
// handler normalized (internal/resourceuri): every spelling of it reads one
// resource. Contents without a uri get the requested one. Like
// tools/call, in 2026-07-28 a read may take several rounds when the
// handler elicits.
func (d *dispatcher) readResource(ctx context.Context, rq *request) outcome {
	if !d.features.hasResources() {
		return failure(notSupported("resources"))
	}
	p := rq.params
	if p.URI == nil || *p.URI == "" {
		return failure(NewError(CodeInvalidParams, "resources/read: params.uri is required"))
	}
	requested := *p.URI
	uri := resourceuri.Normalize(requested) // the handler sees one spelling of each resource
	fixed, tmpl, vars := d.features.findResource(uri)
	if fixed == nil && tmpl == nil {
		return failure(rq.era.resourceNotFound(requested))
	}
	args := json.RawMessage("{}")
	peer, state, e := rq.era.openRound(ctx, rq, uri, nil, args)
	if e != nil {
		return failure(e)
	}
	call := newCall(d.announce, peer, state)
	call.principal = PrincipalFromContext(ctx)
	var res *ResourceResult
	var err error
	var cache *cacheHint
	if fixed != nil {
		cache = fixed.cache
		res, err = runFeatureHandler(d.logger, "resource", uri, func() (*ResourceResult, error) { return fixed.Handler(ctx, call, uri) })
	} else {
		cache = tmpl.cache
		res, err = runFeatureHandler(d.logger, "resource", uri, func() (*ResourceResult, error) { return tmpl.Handler(ctx, call, uri, vars) })
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

// maxSubscriptions bounds the resource URIs one legacy session may
// subscribe to.
const maxSubscriptions = 1024

// subscribeResource answers resources/subscribe (legacy sessions): the
// session hears notifications/resources/updated for the URI (on its GET
// stream, or the stdio connection) from then on. The URI need not be
// listed: it may name a resource that exists later; it is kept normalized
// (internal/resourceuri), so every spelling of it is one subscription. More than
// maxSubscriptions URIs, or more than Options.MaxSubscriptionBytes of them,
// is -32602.
func (d *dispatcher) subscribeResource(ctx context.Context, rq *request) outcome {
	if !d.features.hasResources() {
		return failure(notSupported("resources"))
	}
	if rq.params.URI == nil || *rq.params.URI == "" {
		return failure(NewError(CodeInvalidParams, "resources/subscribe: params.uri is required"))
	}
	uri := resourceuri.Normalize(*rq.params.URI)
	var e *Error
	err := rq.era.updateSession(ctx, func(st *SessionState) {
		e = nil
		if !slices.Contains(st.Subscriptions, uri) {
			if e = d.subscriptionBound("resources/subscribe", append(st.Subscriptions, uri)); e == nil {
				st.Subscriptions = append(st.Subscriptions, uri)
			}
		}
	})
	switch {
	case err != nil:
		return failure(NewError(CodeInternalError, "resources/subscribe: saving the session: %v", err))
	case e != nil:
		return failure(e)
	}
	return resultOf(struct{}{})
}

// subscriptionBound is the -32602 of a set of subscribed URIs (a legacy
// session's, or a listen stream's) past maxSubscriptions or
// Options.MaxSubscriptionBytes; nil within both.
func (d *dispatcher) subscriptionBound(method string, uris []string) *Error {
	if len(uris) > maxSubscriptions {
		return NewError(CodeInvalidParams, "%s: more than %d resource subscriptions", method, maxSubscriptions)
	}
	n := 0
	for _, u := range uris {
		n += len(u)
	}
	if max := d.maxSubscriptionBytes; n > max {
		e := limitExceeded("Options.MaxSubscriptionBytes", int64(max), fmt.Sprintf(
			"%s: the subscribed resource URIs would take %d bytes, more than Options.MaxSubscriptionBytes (%d)", method, n, max))
		e.Code = CodeInvalidParams
		return e
	}
	return nil
}

// unsubscribeResource answers resources/unsubscribe (legacy sessions): no
// more notifications/resources/updated for the URI. A URI the session never
// subscribed to is not an error.
func (d *dispatcher) unsubscribeResource(ctx context.Context, rq *request) outcome {
	if !d.features.hasResources() {
		return failure(notSupported("resources"))
	}
	uri := rq.params.URI
	if uri == nil || *uri == "" {
		return failure(NewError(CodeInvalidParams, "resources/unsubscribe: params.uri is required"))
	}
	norm := resourceuri.Normalize(*uri)
	if err := rq.era.updateSession(ctx, func(st *SessionState) {
		st.Subscriptions = slices.DeleteFunc(st.Subscriptions, func(u string) bool { return u == norm })
	}); err != nil {
		return failure(NewError(CodeInternalError, "resources/unsubscribe: saving the session: %v", err))
	}
	return resultOf(struct{}{})
}
