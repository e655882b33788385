package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// methods are the tasks methods of both eras: one each, serving both
// where both have it, every taskEra difference behind eraOf. None runs
// application code (a task's handler runs in the detached call), so they
// take no slot of MaxConcurrentCalls; a task is bound to its creator
// (engine.load), so they need no scope.
func (e *engine) methods() []runtime.Method {
	legacy := []string{runtime.Version20250326, runtime.Version20250618, runtime.Version20251125}
	modern := []string{runtime.Version20260728}
	return []runtime.Method{
		{Name: "tasks/get", NameParam: "taskId", Cheap: true, Authorize: runtime.NoScopes, Serve: e.getTask},
		{Name: "tasks/cancel", NameParam: "taskId", Cheap: true, Authorize: runtime.NoScopes, Serve: e.cancelTask},
		{Name: "tasks/result", Versions: legacy, Cheap: true, Authorize: runtime.NoScopes, Serve: e.taskResult},
		{Name: "tasks/list", Versions: legacy, Cheap: true, Authorize: runtime.NoScopes, Serve: e.listTasks},
		{Name: "tasks/update", Versions: modern, NameParam: "taskId", Cheap: true, Authorize: runtime.NoScopes, Serve: e.updateTask},
	}
}

// getTask answers tasks/get: the task as its era spells it. 2025-11-25 gives
// the plain task; 2026-07-28 the DetailedTask, which carries every
// outstanding question (inputRequests), the result or the error. An unknown
// or expired task is -32602.
func (e *engine) getTask(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	_, r, err := e.requestedTask(ctx, req)
	if err != nil {
		return nil, err
	}
	return eraOf(req).view(r), nil
}

// requestedTask is the task a tasks/* request names, once the era allows
// tasks for the request: another caller's task is answered as an unknown
// one (engine.load).
func (e *engine) requestedTask(ctx context.Context, req *runtime.MethodRequest) (string, *Record, error) {
	if err := eraOf(req).allowed(req); err != nil {
		return "", nil, err
	}
	id, err := taskID(req)
	if err != nil {
		return "", nil, err
	}
	r, err := e.load(ctx, req, id)
	return id, r, err
}

// cancelTask answers tasks/cancel. A running task is cancelled before the
// answer is sent and its handler's context ends (cooperative: the task stays
// cancelled whatever the handler does next). 2025-11-25 returns the
// cancelled task and refuses a task that already ended (-32602); 2026-07-28
// acknowledges with an empty result, also for a task that already ended
// (idempotent).
func (e *engine) cancelTask(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	id, _, err := e.requestedTask(ctx, req)
	if err != nil {
		return nil, err
	}
	r, ended, err := e.cancel(ctx, id, "cancelled by the client")
	switch {
	case errors.Is(err, errTaskEnded):
		return eraOf(req).cancelled(r, ended)
	case errors.Is(err, ErrNotFound):
		return nil, errUnknownTask(id)
	case err != nil:
		return nil, e.storeFailed(ctx, "cancelling the task", id, err)
	}
	return eraOf(req).cancelled(r, "")
}

// updateTask answers tasks/update (2026-07-28): inputResponses answer the
// task's outstanding questions by key. Keys that are not outstanding are
// ignored; a partial set leaves the task input_required until the rest
// arrive. The answered keys leave inputRequests before the (empty)
// acknowledgement is sent.
func (e *engine) updateTask(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	if err := eraOf(req).allowed(req); err != nil {
		return nil, err
	}
	id, err := taskID(req)
	if err != nil {
		return nil, err
	}
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := runtime.DecodeParams(req.Params, &p); err != nil {
		return nil, err
	}
	answers := p.InputResponses
	if answers == nil {
		return nil, runtime.NewError(runtime.CodeInvalidParams, "tasks/update: params.inputResponses must be an object mapping input request keys to results")
	}
	r, err := e.load(ctx, req, id)
	if err != nil {
		return nil, err
	}
	for k, v := range answers {
		if in, open := r.Inputs[k]; open {
			if err := runtime.CheckAnswer(in.Method, v); err != nil {
				return nil, runtime.NewError(runtime.CodeInvalidParams, "tasks/update: inputResponses[%q] is not a valid %s result: %v", k, in.Method, err)
			}
		}
	}
	_, err = e.answerTask(ctx, id, answers)
	switch {
	case errors.Is(err, errTaskEnded):
		return nil, runtime.NewError(runtime.CodeInvalidParams, "tasks/update: task %s is in terminal status %s", id, r.Status)
	case errors.Is(err, ErrNotFound):
		return nil, errUnknownTask(id)
	case err != nil:
		return nil, e.storeFailed(ctx, "updating the task", id, err)
	}
	return &runtime.MethodResult{Result: struct{}{}}, nil
}

// taskResult answers tasks/result (2025-11-25): it waits until the task
// ends and returns exactly what the tools/call would have returned (its
// result, with the related-task _meta, or its JSON-RPC error). While it
// waits, the task's questions are asked on this request's own stream, each
// carrying the related-task _meta, and the client's answers resume the
// handler; the task's progress and log notifications ride the same stream.
// The wait ends with the task, its TTL, or the request's context (session
// end, notifications/cancelled).
func (e *engine) taskResult(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	id, _, err := e.requestedTask(ctx, req)
	if err != nil {
		return nil, err
	}
	live := req.Call()
	e.mu.Lock()
	lt := e.live[id]
	e.mu.Unlock()
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
		ch, done := e.store.TaskChanged(ctx, id)
		r, err := e.load(ctx, req, id)
		if err != nil {
			done()
			return nil, err
		}
		if r.Terminal() {
			done()
			return taskPayload(r)
		}
		if key, in, ok := e.claim(id, r.Inputs); ok {
			done()
			e.deliver(ctx, live, id, key, in)
			continue
		}
		wake := time.NewTimer(time.Until(r.LeaseUntil) + time.Millisecond)
		select {
		case <-ch:
		case <-wake.C: // re-check the lease of the replica running it
		case <-ctx.Done():
			wake.Stop()
			done()
			return nil, runtime.NewError(runtime.CodeInternalError, "tasks/result: %v", context.Cause(ctx))
		}
		wake.Stop()
		done()
	}
}

// claim picks an outstanding question of task id that no tasks/result of
// this process is asking yet.
func (e *engine) claim(id string, inputs map[string]Input) (string, Input, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, in := range inputs {
		if !e.delivering[id+"\x00"+k] {
			e.delivering[id+"\x00"+k] = true
			return k, in, true
		}
	}
	return "", Input{}, false
}

// deliver asks the client one question of the task on a tasks/result stream
// and stores its answer (a JSON-RPC error from the client is stored as
// answerRefused, which fails the handler's question).
func (e *engine) deliver(ctx context.Context, live *runtime.Call, id, key string, in Input) {
	defer func() {
		e.mu.Lock()
		delete(e.delivering, id+"\x00"+key)
		e.mu.Unlock()
	}()
	ans, err := live.Request(ctx, key, in.Method, in.Params)
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
func taskPayload(r *Record) (*runtime.MethodResult, error) {
	switch {
	case r.Result != nil:
		return &runtime.MethodResult{Result: withMetaKey(r.Result, metaRelatedTask, relatedTask(r.ID))}, nil
	case r.Error != nil:
		return nil, r.Error
	case r.Status == Cancelled:
		return nil, runtime.NewError(runtime.CodeInternalError, "task %s was cancelled", r.ID)
	}
	return nil, runtime.NewError(runtime.CodeInternalError, "task %s ended without a result", r.ID)
}

// listTasks answers tasks/list (2025-11-25): the session's tasks, a page at
// a time (runtime.Options.PageSize), oldest first. An unknown cursor is
// -32602.
func (e *engine) listTasks(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	if err := eraOf(req).allowed(req); err != nil {
		return nil, err
	}
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := runtime.DecodeParams(req.Params, &p); err != nil {
		return nil, err
	}
	cursor := ""
	if p.Cursor != nil {
		cursor = *p.Cursor
	}
	page, next, err := e.store.ListTasks(ctx, req.SessionID, cursor, e.host.PageSize())
	switch {
	case errors.Is(err, ErrInvalidCursor):
		return nil, runtime.NewError(runtime.CodeInvalidParams, "tasks/list: invalid cursor")
	case err != nil:
		return nil, e.storeFailed(ctx, "listing tasks", "", err)
	}
	tasks := make([]json.RawMessage, 0, len(page))
	for _, r := range page {
		if !r.Modern {
			tasks = append(tasks, taskObject(r, false, false))
		}
	}
	return &runtime.MethodResult{Result: struct {
		Tasks      []json.RawMessage `json:"tasks"`
		NextCursor string            `json:"nextCursor,omitempty"`
	}{tasks, next}}, nil
}
