package runtime

import (
	"context"
	"encoding/json"
	"errors"
)

// listTasks answers tasks/list (2025-11-25): the session's tasks, a page at
// a time (Options.PageSize), oldest first. An unknown cursor is -32602.
func (s *Server) listTasks(ctx context.Context, rq *request) outcome {
	if e := gateTasks(rq); e != nil {
		return failure(e)
	}
	cursor := ""
	if rq.params.Cursor != nil {
		cursor = *rq.params.Cursor
	}
	page, next, err := s.tasks.store.ListTasks(ctx, rq.sess.id, cursor, s.opts.PageSize)
	switch {
	case errors.Is(err, ErrInvalidTaskCursor):
		return failure(NewError(CodeInvalidParams, "tasks/list: invalid cursor"))
	case err != nil:
		return failure(NewError(CodeInternalError, "listing tasks: %v", err))
	}
	tasks := make([]json.RawMessage, 0, len(page))
	for _, r := range page {
		if !r.Modern {
			tasks = append(tasks, taskObject(r, false, false))
		}
	}
	return resultOf(struct {
		Tasks      []json.RawMessage `json:"tasks"`
		NextCursor string            `json:"nextCursor,omitempty"`
	}{tasks, next})
}
