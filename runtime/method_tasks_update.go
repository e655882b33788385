package runtime

import (
	"context"
	"encoding/json"
	"errors"
)

// updateTask answers tasks/update (2026-07-28): inputResponses answer the
// task's outstanding questions by key. Keys that are not outstanding are
// ignored; a partial set leaves the task input_required until the rest
// arrive. The answered keys leave inputRequests before the (empty)
// acknowledgement is sent.
func (s *Server) updateTask(ctx context.Context, rq *request) outcome {
	if e := gateTasks(rq); e != nil {
		return failure(e)
	}
	id, e := taskID(rq)
	if e != nil {
		return failure(e)
	}
	var answers map[string]json.RawMessage
	raw := trimSpace(rq.params.InputResponses)
	if len(raw) == 0 || !isObjectJSON(raw) || json.Unmarshal(raw, &answers) != nil {
		return failure(NewError(CodeInvalidParams, "tasks/update: params.inputResponses must be an object mapping input request keys to results"))
	}
	r, e := s.tasks.load(ctx, rq, id)
	if e != nil {
		return failure(e)
	}
	for k, v := range answers {
		if in, open := r.Inputs[k]; open {
			if err := checkAnswerShape(in.Method, v); err != nil {
				return failure(NewError(CodeInvalidParams, "tasks/update: inputResponses[%q] is not a valid %s result: %v", k, in.Method, err))
			}
		}
	}
	_, err := s.tasks.answerTask(ctx, id, answers)
	switch {
	case errors.Is(err, errTaskEnded):
		return failure(NewError(CodeInvalidParams, "tasks/update: task %s is in terminal status %s", id, r.Status))
	case errors.Is(err, ErrTaskNotFound):
		return failure(NewError(CodeInvalidParams, "Failed to retrieve task: Task not found: %s", id))
	case err != nil:
		return failure(NewError(CodeInternalError, "updating task %s: %v", id, err))
	}
	return resultOf(struct{}{})
}
