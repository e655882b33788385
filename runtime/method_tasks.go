package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// getTask answers tasks/get: the task as its era spells it. 2025-11-25 gives
// the plain task; 2026-07-28 the DetailedTask, which carries every
// outstanding question (inputRequests), the result or the error. An unknown
// or expired task is -32602.
func (d *dispatcher) getTask(ctx context.Context, rq *request) outcome {
	_, r, e := d.requestedTask(ctx, rq)
	if e != nil {
		return failure(e)
	}
	return rq.era.tasks().view(r)
}

// requestedTask is the task a tasks/* request names, once the era allows
// tasks for the request: another caller's task is answered as an unknown
// one (taskEngine.load).
func (d *dispatcher) requestedTask(ctx context.Context, rq *request) (string, *TaskRecord, *Error) {
	if e := gateTasks(rq); e != nil {
		return "", nil, e
	}
	id, e := taskID(rq)
	if e != nil {
		return "", nil, e
	}
	r, e := d.tasks.load(ctx, rq, id)
	return id, r, e
}

// cancelTask answers tasks/cancel. A running task is cancelled before the
// answer is sent and its handler's context ends (cooperative: the task stays
// cancelled whatever the handler does next). 2025-11-25 returns the
// cancelled task and refuses a task that already ended (-32602); 2026-07-28
// acknowledges with an empty result, also for a task that already ended
// (idempotent).
func (d *dispatcher) cancelTask(ctx context.Context, rq *request) outcome {
	id, _, e := d.requestedTask(ctx, rq)
	if e != nil {
		return failure(e)
	}
	r, ended, err := d.tasks.cancel(ctx, id, "cancelled by the client")
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

// updateTask answers tasks/update (2026-07-28): inputResponses answer the
// task's outstanding questions by key. Keys that are not outstanding are
// ignored; a partial set leaves the task input_required until the rest
// arrive. The answered keys leave inputRequests before the (empty)
// acknowledgement is sent.
func (d *dispatcher) updateTask(ctx context.Context, rq *request) outcome {
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
	r, e := d.tasks.load(ctx, rq, id)
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
	_, err := d.tasks.answerTask(ctx, id, answers)
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

// taskResult answers tasks/result (2025-11-25): it waits until the task
// ends and returns exactly what the tools/call would have returned (its
// result, with the related-task _meta, or its JSON-RPC error). While it
// waits, the task's questions are asked on this request's own stream, each
// carrying the related-task _meta, and the client's answers resume the
// handler; the task's progress and log notifications ride the same stream.
// The wait ends with the task, its TTL, or the request's context (session
// end, notifications/cancelled).
func (d *dispatcher) taskResult(ctx context.Context, rq *request) outcome {
	id, _, e := d.requestedTask(ctx, rq)
	if e != nil {
		return failure(e)
	}
	live, _, e := rq.era.openRound(ctx, rq, "", nil, nil)
	if e != nil {
		return failure(e)
	}
	d.tasks.mu.Lock()
	lt := d.tasks.live[id]
	d.tasks.mu.Unlock()
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
		ch, done := d.tasks.store.TaskChanged(ctx, id)
		r, e := d.tasks.load(ctx, rq, id)
		if e != nil {
			done()
			return failure(e)
		}
		if r.Terminal() {
			done()
			return taskPayload(r)
		}
		if key, in, ok := d.tasks.claim(id, r.Inputs); ok {
			done()
			d.tasks.deliver(ctx, live, id, key, in)
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

// listTasks answers tasks/list (2025-11-25): the session's tasks, a page at
// a time (Options.PageSize), oldest first. An unknown cursor is -32602.
func (d *dispatcher) listTasks(ctx context.Context, rq *request) outcome {
	if e := gateTasks(rq); e != nil {
		return failure(e)
	}
	cursor := ""
	if rq.params.Cursor != nil {
		cursor = *rq.params.Cursor
	}
	page, next, err := d.tasks.store.ListTasks(ctx, rq.era.sessionID(), cursor, d.features.pageSize)
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

// taskMethods are the methods of the tasks extension (2026-07-28) and of
// 2025-11-25's experimental tasks: one row each, serving both where both
// have it, and every taskEra difference behind rq.era.tasks().
var taskMethods = []methodRow{
	{name: methodTasksGet, eras: everyEra, params: pTaskID, nameParam: pTaskID, auth: noScopes, serve: (*dispatcher).getTask},
	{name: methodTasksCancel, eras: everyEra, params: pTaskID, nameParam: pTaskID, auth: noScopes, serve: (*dispatcher).cancelTask},
	{name: methodTasksResult, eras: legacyEra, params: pTaskID, auth: noScopes, serve: (*dispatcher).taskResult},
	{name: methodTasksList, eras: legacyEra, params: pCursor, auth: noScopes, serve: (*dispatcher).listTasks},
	{name: methodTasksUpdate, eras: modernEra, params: pTaskID | pInputResponses, nameParam: pTaskID, auth: noScopes, serve: (*dispatcher).updateTask},
}

// extension is the tasks extension as the method table and the
// capabilities see it: declared (io.modelcontextprotocol/tasks in
// 2026-07-28, capabilities.tasks in a 2025-11-25 session) once a tool may
// run as a task.
func taskExtension(f *featureRegistry) *extension {
	offered := func() bool { _, _, _, _, tasks := f.offers(); return tasks }
	return &extension{
		Extension: Extension{ID: extTasks, Versions: modernVersions,
			Declared: func(string) bool { return offered() },
			LegacyCapability: func(version string) (string, json.RawMessage, bool) {
				if version != Version20251125 || !offered() {
					return "", nil, false
				}
				return "tasks", json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`), true
			}},
		settings: json.RawMessage("{}"),
		rows:     taskMethods,
	}
}
