package runtime

import (
	"context"
	"encoding/json"
	"time"
)

// taskResult answers tasks/result (2025-11-25): it waits until the task
// ends and returns exactly what the tools/call would have returned (its
// result, with the related-task _meta, or its JSON-RPC error). While it
// waits, the task's questions are asked on this request's own stream, each
// carrying the related-task _meta, and the client's answers resume the
// handler; the task's progress and log notifications ride the same stream.
// The wait ends with the task, its TTL, or the request's context (session
// end, notifications/cancelled).
func (s *Server) taskResult(ctx context.Context, rq *request) outcome {
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
	live, _, e := rq.era.openRound(ctx, rq, "", nil)
	if e != nil {
		return failure(e)
	}
	s.tasks.mu.Lock()
	lt := s.tasks.live[id]
	s.tasks.mu.Unlock()
	if lt != nil {
		lt.mu.Lock()
		lt.listen = live
		lt.mu.Unlock()
		defer func() {
			lt.mu.Lock()
			if lt.listen == live {
				lt.listen = nil
			}
			lt.mu.Unlock()
		}()
	}
	for {
		ch, done := s.tasks.store.TaskChanged(ctx, id)
		r, e := s.tasks.load(ctx, rq, id)
		if e != nil {
			done()
			return failure(e)
		}
		if r.Terminal() {
			done()
			return taskPayload(r)
		}
		if key, in, ok := s.tasks.claim(id, r.Inputs); ok {
			done()
			s.tasks.deliver(ctx, live, id, key, in)
			continue
		}
		wake := time.NewTimer(time.Until(r.LeaseUntil) + time.Millisecond)
		select {
		case <-ch:
		case <-wake.C: // re-check the lease of the replica running it
		case <-ctx.Done():
			wake.Stop()
			done()
			return failure(NewError(CodeInternalError, "tasks/result: %v", context.Cause(ctx)))
		}
		wake.Stop()
		done()
	}
}

// claim picks an outstanding question of task id that no tasks/result of
// this process is asking yet.
func (e *taskEngine) claim(id string, inputs map[string]TaskInput) (string, TaskInput, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, in := range inputs {
		if !e.delivering[id+"\x00"+k] {
			e.delivering[id+"\x00"+k] = true
			return k, in, true
		}
	}
	return "", TaskInput{}, false
}

// deliver asks the client one question of the task on a tasks/result stream
// and stores its answer (a JSON-RPC error from the client is stored as
// answerRefused, which fails the handler's question).
func (e *taskEngine) deliver(ctx context.Context, live peer, id, key string, in TaskInput) {
	defer func() {
		e.mu.Lock()
		delete(e.delivering, id+"\x00"+key)
		e.mu.Unlock()
	}()
	ans, err := live.request(ctx, key, in.Method, in.Params)
	if err != nil {
		if ctx.Err() != nil {
			return // the question stays outstanding for the next tasks/result
		}
		ans = answerRefused
	}
	_, _ = e.answerTask(context.WithoutCancel(ctx), id, map[string]json.RawMessage{key: ans})
}

// taskPayload is the tools/call response a finished task stands for, with
// the related-task _meta on a result.
func taskPayload(r *TaskRecord) outcome {
	switch {
	case r.Result != nil:
		return resultOf(withMetaKey(r.Result, metaRelatedTask, relatedTask(r.ID)))
	case r.Error != nil:
		return failure(r.Error)
	case r.Status == TaskCancelled:
		return failure(NewError(CodeInternalError, "task %s was cancelled", r.ID))
	}
	return failure(NewError(CodeInternalError, "task %s ended without a result", r.ID))
}
