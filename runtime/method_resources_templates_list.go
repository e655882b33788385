package runtime

import "context"

// listResourceTemplates answers resources/templates/list: one page of the
// templates in registration order; -32601 when the server has no
// resources.
func (s *Server) listResourceTemplates(ctx context.Context, rq *request) outcome {
	if !s.features.hasResources() {
		return failure(notSupported("resources"))
	}
	return s.fixedListOutcome(ctx, rq, "resourceTemplates")
}
