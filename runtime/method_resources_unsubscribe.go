package runtime

import (
	"context"
	"slices"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// unsubscribeResource answers resources/unsubscribe (legacy sessions): no
// more notifications/resources/updated for the URI. A URI the session never
// subscribed to is not an error.
func (s *Server) unsubscribeResource(ctx context.Context, rq *request) outcome {
	if !s.features.hasResources() {
		return failure(notSupported("resources"))
	}
	uri := rq.params.URI
	if uri == nil || *uri == "" {
		return failure(NewError(CodeInvalidParams, "resources/unsubscribe: params.uri is required"))
	}
	norm := resourceuri.Normalize(*uri)
	if err := rq.sess.update(ctx, func(st *SessionState) {
		st.Subscriptions = slices.DeleteFunc(st.Subscriptions, func(u string) bool { return u == norm })
	}); err != nil {
		return failure(NewError(CodeInternalError, "resources/unsubscribe: saving the session: %v", err))
	}
	return resultOf(struct{}{})
}
