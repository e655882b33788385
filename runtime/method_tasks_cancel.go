package runtime

import (
	"context"
	"errors"
)

// cancelTask answers tasks/cancel. A running task is cancelled before the
// answer is sent and its handler's context ends (cooperative: the task stays
// cancelled whatever the handler does next). 2025-11-25 returns the
// cancelled task and refuses a task that already ended (-32602); 2026-07-28
// acknowledges with an empty result, also for a task that already ended
// (idempotent).
func (s *Server) cancelTask(ctx context.Context, rq *request) outcome {
	if e := gateTasks(rq); e != nil {
		return failure(e)
	}
	id, e := taskID(rq)
	if e != nil {
		return failure(e)
	}
	if _, e := s.tasks.load(ctx, rq, id); e != nil {
		return failure(e)
	}
	r, ended, err := s.tasks.cancel(ctx, id, "cancelled by the client")
	switch {
	case errors.Is(err, errTaskEnded):
		return rq.era.tasks().cancelled(r, ended)
	case errors.Is(err, ErrTaskNotFound):
		return failure(NewError(CodeInvalidParams, "Failed to retrieve task: Task not found: %s", id))
	case err != nil:
		return failure(NewError(CodeInternalError, "cancelling task %s: %v", id, err))
	}
	return rq.era.tasks().cancelled(r, "")
}
