package runtime

import (
	"context"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// maxSubscriptions bounds the resource URIs one legacy session may
// subscribe to.
const maxSubscriptions = 1024

// subscribeResource answers resources/subscribe (legacy sessions): the
// session hears notifications/resources/updated for the URI (on its GET
// stream, or the stdio connection) from then on. The URI need not be
// listed: it may name a resource that exists later; it is kept normalized
// (resource_uri.go), so every spelling of it is one subscription. More than
// maxSubscriptions URIs, or more than Options.MaxSubscriptionBytes of them,
// is -32602.
func (s *Server) subscribeResource(ctx context.Context, rq *request) outcome {
	if !s.features.hasResources() {
		return failure(notSupported("resources"))
	}
	if rq.params.URI == nil || *rq.params.URI == "" {
		return failure(NewError(CodeInvalidParams, "resources/subscribe: params.uri is required"))
	}
	uri := resourceuri.Normalize(*rq.params.URI)
	var e *Error
	err := rq.sess.update(ctx, func(st *SessionState) {
		e = nil
		if !slices.Contains(st.Subscriptions, uri) {
			if e = s.subscriptionBound("resources/subscribe", append(st.Subscriptions, uri)); e == nil {
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
func (s *Server) subscriptionBound(method string, uris []string) *Error {
	if len(uris) > maxSubscriptions {
		return NewError(CodeInvalidParams, "%s: more than %d resource subscriptions", method, maxSubscriptions)
	}
	n := 0
	for _, u := range uris {
		n += len(u)
	}
	if max := s.opts.MaxSubscriptionBytes; n > max {
		e := limitExceeded("MaxSubscriptionBytes", int64(max), fmt.Sprintf(
			"%s: the subscribed resource URIs would take %d bytes, more than Options.MaxSubscriptionBytes (%d)", method, n, max))
		e.Code = CodeInvalidParams
		return e
	}
	return nil
}
