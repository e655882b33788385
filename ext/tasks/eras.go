package tasks

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// taskEra is the task protocol of an era: 2025-11-25's experimental tasks in
// legacy sessions, or the io.modelcontextprotocol/tasks extension of
// 2026-07-28. They differ in almost every detail (when a call becomes a
// task, who may see it, how a task is spelled, what cancelling a finished
// one answers), so the engine and the tasks methods reach them through
// eraOf and never ask which one they serve.
type taskEra interface {
	// allowed refuses a tasks method the request may not use.
	allowed(req *runtime.MethodRequest) error
	// owns reports whether the request may see task r.
	owns(req *runtime.MethodRequest, r *Record) bool
	// admit decides how a tools/call of a tool with support s runs, and
	// the origin of the task it becomes.
	admit(e *engine, tc *runtime.ToolCallRequest, s support) (origin, runMode, error)
	// created answers the tools/call that created task r.
	created(r *Record) *runtime.MethodResult
	// view is task r as tasks/get returns it.
	view(r *Record) *runtime.MethodResult
	// cancelled answers tasks/cancel of task r; ended is the status it
	// already had when it had ended before.
	cancelled(r *Record, ended string) (*runtime.MethodResult, error)
}

// runMode is how a tools/call runs.
type runMode uint8

const (
	runPlain        runMode = iota // as a plain call
	runAsTask                      // as a task, at once
	runAfterAnswers                // as a task once the round's answers are taken (InputBeforeTask)
)

func eraOf(req *runtime.MethodRequest) taskEra {
	if req.Stateless() {
		return modernTasks{}
	}
	return legacyTasks{}
}

// legacyTasks are 2025-11-25's tasks: asked for with params.task, owned by
// the session, spelled with ttl and pollInterval.
type legacyTasks struct{}

func (legacyTasks) allowed(req *runtime.MethodRequest) error {
	if req.SessionID == "" || req.ProtocolVersion != runtime.Version20251125 {
		return runtime.NewError(runtime.CodeMethodNotFound, "method %q needs protocol %s (tasks)", req.Method, runtime.Version20251125)
	}
	return nil
}

func (legacyTasks) owns(req *runtime.MethodRequest, r *Record) bool {
	return !r.Modern && req.SessionID != "" && r.Owner == req.SessionID
}

func (legacyTasks) admit(_ *engine, tc *runtime.ToolCallRequest, s support) (origin, runMode, error) {
	if tc.SessionID == "" || tc.ProtocolVersion != runtime.Version20251125 {
		return origin{}, runPlain, nil // tasks are 2025-11-25's; older sessions call as usual
	}
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	_ = json.Unmarshal(tc.Params, &p) // the params are an object; the runtime checked
	switch {
	case p.Task == nil && s == required:
		return origin{}, runPlain, runtime.NewError(runtime.CodeMethodNotFound, "tool %q requires task augmentation (taskSupport: required)", tc.Tool)
	case p.Task == nil:
		return origin{}, runPlain, nil
	case s == forbidden:
		return origin{}, runPlain, runtime.NewError(runtime.CodeMethodNotFound, "tool %q does not support task augmentation", tc.Tool)
	}
	var meta struct {
		TTL *float64 `json:"ttl"`
	}
	if !isObject(p.Task) || json.Unmarshal(p.Task, &meta) != nil || meta.TTL != nil && *meta.TTL < 0 {
		return origin{}, runPlain, runtime.NewError(runtime.CodeInvalidParams, "tools/call: params.task must be an object with an optional non-negative ttl (milliseconds)")
	}
	from := origin{owner: tc.SessionID}
	if meta.TTL != nil {
		from.ttl = time.Duration(*meta.TTL) * time.Millisecond
	}
	return from, runAsTask, nil
}

func (legacyTasks) created(r *Record) *runtime.MethodResult {
	return &runtime.MethodResult{Result: struct {
		Task json.RawMessage `json:"task"`
	}{taskObject(r, false, false)}}
}

func (legacyTasks) view(r *Record) *runtime.MethodResult {
	return &runtime.MethodResult{Result: taskObject(r, false, false)}
}

// cancelled refuses a task that already ended (-32602) and answers with the
// cancelled task.
func (legacyTasks) cancelled(r *Record, ended string) (*runtime.MethodResult, error) {
	if ended != "" {
		return nil, runtime.NewError(runtime.CodeInvalidParams, "Cannot cancel task: already in terminal status '%s'", ended)
	}
	return &runtime.MethodResult{Result: taskObject(r, false, false)}, nil
}

// modernTasks are the 2026-07-28 extension's tasks: the server's choice
// for a client that declares the extension, owned by no session, spelled
// with ttlMs and pollIntervalMs, cancelled idempotently.
type modernTasks struct{}

func (modernTasks) allowed(req *runtime.MethodRequest) error {
	if _, ok := req.ClientExtension(ExtensionID); !ok {
		return errTasksExtension(req.Method)
	}
	return nil
}

func (modernTasks) owns(_ *runtime.MethodRequest, r *Record) bool { return r.Modern }

func (modernTasks) admit(e *engine, tc *runtime.ToolCallRequest, s support) (origin, runMode, error) {
	_, declared := tc.ClientExtension(ExtensionID)
	switch {
	case s == forbidden:
		return origin{}, runPlain, nil
	case !declared && s == required:
		return origin{}, runPlain, errTasksExtension(fmt.Sprintf("tool %q runs only as a task; it", tc.Tool))
	case !declared:
		return origin{}, runPlain, nil
	case e.inputFirst(tc.Tool):
		return origin{modern: true}, runAfterAnswers, nil
	}
	return origin{modern: true}, runAsTask, nil
}

func (modernTasks) created(r *Record) *runtime.MethodResult {
	return &runtime.MethodResult{ResultType: "task", Result: taskObject(r, true, false)}
}

func (modernTasks) view(r *Record) *runtime.MethodResult {
	return &runtime.MethodResult{Result: taskObject(r, true, true)}
}

// cancelled acknowledges, also for a task that already ended.
func (modernTasks) cancelled(*Record, string) (*runtime.MethodResult, error) {
	return &runtime.MethodResult{Result: struct{}{}}, nil
}
