package runtime

import "context"

// listPrompts answers prompts/list: one page of the prompts in registration
// order, their definitions as registered; -32601 when the server has none
// (it then does not advertise prompts).
func (s *Server) listPrompts(ctx context.Context, rq *request) outcome {
	if !s.features.hasPrompts() {
		return failure(notSupported("prompts"))
	}
	return s.fixedListOutcome(ctx, rq, "prompts")
}
