package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// legacyTasks are 2025-11-25's tasks: asked for with params.task, owned by
// the session, spelled with ttl and pollInterval.
type legacyTasks struct{}

func (legacyTasks) allowed(rq *request) *Error {
	if rq.era.sessionID() == "" || rq.era.version() != Version20251125 {
		return NewError(CodeMethodNotFound, "method %q needs protocol %s (tasks)", rq.method, Version20251125)
	}
	return nil
}

func (legacyTasks) owns(rq *request, r *TaskRecord) bool {
	return !r.Modern && rq.era.sessionID() != "" && r.Owner == rq.era.sessionID()
}

func (legacyTasks) admit(_ context.Context, rq *request, t *registeredTool, _ json.RawMessage, _ peer, _ []byte) (bool, string, time.Duration, outcome, bool) {
	if rq.era.sessionID() == "" || rq.era.version() != Version20251125 {
		return false, "", 0, outcome{}, false // tasks are 2025-11-25's; older sessions call as usual
	}
	task := rq.params.Task
	switch {
	case task == nil && t.tasks == taskRequired:
		return false, "", 0, failure(NewError(CodeMethodNotFound, "tool %q requires task augmentation (taskSupport: required)", t.Name)), true
	case task == nil:
		return false, "", 0, outcome{}, false
	case t.tasks == taskForbidden:
		return false, "", 0, failure(NewError(CodeMethodNotFound, "tool %q does not support task augmentation", t.Name)), true
	}
	var meta struct {
		TTL *float64 `json:"ttl"`
	}
	if !isObjectJSON(task) || json.Unmarshal(task, &meta) != nil || meta.TTL != nil && *meta.TTL < 0 {
		return false, "", 0, failure(NewError(CodeInvalidParams, "tools/call: params.task must be an object with an optional non-negative ttl (milliseconds)")), true
	}
	var ttl time.Duration
	if meta.TTL != nil {
		ttl = time.Duration(*meta.TTL) * time.Millisecond
	}
	return true, rq.era.sessionID(), ttl, outcome{}, false
}

func (legacyTasks) stateless() bool { return false }

func (legacyTasks) created(r *TaskRecord) outcome {
	return resultOf(struct {
		Task json.RawMessage `json:"task"`
	}{taskObject(r, false, false)})
}

func (legacyTasks) view(r *TaskRecord) outcome { return resultOf(taskObject(r, false, false)) }

// cancelled refuses a task that already ended (-32602) and answers with the
// cancelled task.
func (legacyTasks) cancelled(r *TaskRecord, ended string) outcome {
	if ended != "" {
		return failure(NewError(CodeInvalidParams, "Cannot cancel task: already in terminal status '%s'", ended))
	}
	return resultOf(taskObject(r, false, false))
}

// modernTasks are the 2026-07-28 extension's tasks: the server's choice
// for a client that declares the extension, owned by no session, spelled
// with ttlMs and pollIntervalMs, cancelled idempotently.
type modernTasks struct{ x *modernExchange }

func (m modernTasks) allowed(rq *request) *Error {
	if !declaresTasks(m.x.meta.Capabilities) {
		return errTasksExtension(rq.method)
	}
	return nil
}

func (modernTasks) owns(_ *request, r *TaskRecord) bool { return r.Modern }

func (m modernTasks) admit(ctx context.Context, rq *request, t *registeredTool, args json.RawMessage, p peer, state []byte) (bool, string, time.Duration, outcome, bool) {
	switch {
	case t.tasks == taskForbidden:
		return false, "", 0, outcome{}, false
	case !declaresTasks(p.capabilities()) && t.tasks == taskRequired:
		return false, "", 0, failure(errTasksExtension(fmt.Sprintf("tool %q runs only as a task; it", t.Name))), true
	case !declaresTasks(p.capabilities()):
		return false, "", 0, outcome{}, false
	}
	if m.x.round != nil && m.x.core.d.tasks.inputFirst(t.Name) {
		return false, "", 0, m.x.core.d.tasks.inputFirstTask(ctx, rq, t, args, m.x.round, state), true
	}
	return true, "", 0, outcome{}, false
}

func (modernTasks) stateless() bool { return true }

func (modernTasks) created(r *TaskRecord) outcome {
	return outcome{resultType: "task", result: taskObject(r, true, false)}
}

func (modernTasks) view(r *TaskRecord) outcome { return resultOf(taskObject(r, true, true)) }

// cancelled acknowledges, also for a task that already ended.
func (modernTasks) cancelled(*TaskRecord, string) outcome { return resultOf(struct{}{}) }
