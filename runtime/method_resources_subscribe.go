package runtime

import (
	"context"
	"slices"
)

// maxSubscriptions bounds the resource URIs one legacy session may
// subscribe to.
const maxSubscriptions = 1024

// subscribeResource answers resources/subscribe (legacy sessions): the
// session hears notifications/resources/updated for the URI (on its GET
// stream, or the stdio connection) from then on. The URI need not be
// listed: it may name a resource that exists later. Subscribing twice is
// one subscription; more than maxSubscriptions is -32602.
func (s *Server) subscribeResource(ctx context.Context, rq *request) outcome {
	if !s.features.hasResources() {
		return failure(notSupported("resources"))
	}
	uri := rq.params.URI
	if uri == nil || *uri == "" {
		return failure(NewError(CodeInvalidParams, "resources/subscribe: params.uri is required"))
	}
	var full bool
	err := rq.sess.update(ctx, func(st *SessionState) {
		switch {
		case slices.Contains(st.Subscriptions, *uri):
		case len(st.Subscriptions) >= maxSubscriptions:
			full = true
		default:
			st.Subscriptions = append(st.Subscriptions, *uri)
		}
	})
	switch {
	case full:
		return failure(NewError(CodeInvalidParams, "resources/subscribe: the session already has %d subscriptions", maxSubscriptions))
	case err != nil:
		return failure(NewError(CodeInternalError, "resources/subscribe: saving the session: %v", err))
	}
	return resultOf(struct{}{})
}
