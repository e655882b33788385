package runtime

import "context"

// getTask answers tasks/get: the task as its era spells it. 2025-11-25 gives
// the plain task; 2026-07-28 the DetailedTask, which carries every
// outstanding question (inputRequests), the result or the error. An unknown
// or expired task is -32602.
func (s *Server) getTask(ctx context.Context, rq *request) outcome {
	if e := gateTasks(rq); e != nil {
		return failure(e)
	}
	id, e := taskID(rq)
	if e != nil {
		return failure(e)
	}
	r, e := s.tasks.load(ctx, rq, id)
	if e != nil {
		return failure(e)
	}
	return rq.era.tasks().view(r)
}
