package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// A tool whose Definition says "execution": {"taskSupport": "optional"} or
// "required" may run as a task: tools/call answers at once with the task,
// and the handler runs on in a goroutine of its own, through a taskPeer.
// The client polls the task (tasks/get), answers its questions, fetches the
// result and may cancel it, through any replica that shares the TaskStore.
//
//   - 2025-11-25 (experimental tasks): the client asks for a task with
//     params.task; questions reach it on the stream of its tasks/result,
//     which blocks until the task ends and returns the tool's result.
//   - 2026-07-28 (extension io.modelcontextprotocol/tasks): a client that
//     declares the extension in the request's _meta gets a task
//     (resultType "task"); questions appear as inputRequests in tasks/get
//     and are answered with tasks/update; tasks/get carries the result.

// extTasks is the 2026-07-28 tasks extension's identifier.
const extTasks = "io.modelcontextprotocol/tasks"

// metaRelatedTask ties a 2025-11-25 message to its task.
const metaRelatedTask = "io.modelcontextprotocol/related-task"

// taskEngine runs this process's tasks and reads everyone's from the store.
type taskEngine struct {
	store   TaskStore
	replica string
	opts    taskOptions
	logger  *slog.Logger
	base    context.Context // the server's: a task's handler ends with it
	closing *atomic.Bool    // the server is shutting down
	// sessions is probed for the legacy session a task belongs to
	// (SessionProber); callSlots, icpt and announce are what a task's
	// handler runs with, as a plain call's does.
	sessions  SessionStore
	callSlots *callerShare
	icpt      *interceptors
	announce  announcer

	// held are the tasks this process created and keeps until their TTL
	// passes (Options.MaxTasks), bytes their results (MaxTaskBytes), each
	// with every caller's share (caller_share.go).
	held, bytes *callerShare

	mu         sync.Mutex
	live       map[string]*liveTask // tasks whose handler runs here
	kept       map[string]*keptTask // tasks this process created, until their TTL
	delivering map[string]bool      // taskID+"\x00"+key asked on a tasks/result stream here
	wg         sync.WaitGroup
}

// liveTask is a task whose handler runs in this process.
type liveTask struct {
	cancel context.CancelCauseFunc
	owner  string // the legacy session it belongs to; "" in 2026-07-28
	mu     sync.Mutex
	listen peer // 2025-11-25: the peer of a tasks/result waiting for the task, for its notifications
}

// keptTask is what a task this process created holds of the bounds until
// its TTL passes: a slot of MaxTasks and its result's bytes.
type keptTask struct {
	caller string
	bytes  int64
	expiry *time.Timer
}

// taskOrigin is the request that creates a task: the task is bound to its
// session (legacy) and principal, and charged to its caller.
type taskOrigin struct {
	owner     string // the legacy session; "" in 2026-07-28
	principal *Principal
	caller    string
	modern    bool
	ttl       time.Duration // 0: Options.TaskTTL; a longer one is cut to it
}

// taskOptions are the Options a task engine reads.
type taskOptions struct {
	TaskTTL, TaskPollInterval, TaskLease, RequestTimeout, ShutdownTimeout time.Duration
	InputBeforeTask                                                       []string
}

// taskParts are the parts of the server a task engine uses.
type taskParts struct {
	logger    *slog.Logger
	base      context.Context
	closing   *atomic.Bool
	sessions  SessionStore
	callSlots *callerShare
	icpt      *interceptors
	announce  announcer
}

func newTaskEngine(o Options, p taskParts) *taskEngine {
	e := &taskEngine{store: o.TaskStore, replica: o.ReplicaID,
		opts: taskOptions{TaskTTL: o.TaskTTL, TaskPollInterval: o.TaskPollInterval, TaskLease: o.TaskLease,
			RequestTimeout: o.RequestTimeout, ShutdownTimeout: o.ShutdownTimeout, InputBeforeTask: o.InputBeforeTask},
		logger: p.logger, base: p.base, closing: p.closing, sessions: p.sessions, callSlots: p.callSlots, icpt: p.icpt, announce: p.announce,
		held:  newCallerShare("Options.MaxTasks", "tasks", int64(o.MaxTasks), o.CallerShare),
		bytes: newCallerShare("Options.MaxTaskBytes", "bytes of task results", o.MaxTaskBytes, o.CallerShare),
		live:  map[string]*liveTask{}, kept: map[string]*keptTask{}, delivering: map[string]bool{}}
	if e.store == nil {
		e.store = &MemoryTaskStore{Limit: o.MaxTasks}
	}
	if e.replica == "" {
		e.replica = newTaskID()[:12]
	}
	return e
}

// close waits, bounded by ShutdownTimeout, for the task goroutines that the
// end of the server's base context stops.
func (e *taskEngine) close() {
	e.mu.Lock()
	for _, k := range e.kept {
		k.expiry.Stop()
	}
	e.mu.Unlock()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	t := time.NewTimer(e.opts.ShutdownTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		e.logger.Warn("task handlers still running after the shutdown timeout")
	}
}

// call runs a tools/call of t as a task when the request's era says
// so (taskEra.admit): false runs it as a plain call; true with an outcome
// ends the call there (an error, a round, or the created task). p is the
// call's peer, state its handler state.
func (e *taskEngine) call(ctx context.Context, rq *request, t *registeredTool, args json.RawMessage, p peer, state []byte) (outcome, bool) {
	te := rq.era.tasks()
	asTask, owner, ttl, o, done := te.admit(ctx, rq, t, args, p, state)
	if done || !asTask {
		return o, done
	}
	from := taskOrigin{owner: owner, principal: PrincipalFromContext(ctx), caller: callerOf(ctx, rq.era), modern: te.stateless(), ttl: ttl}
	rec, err := e.start(ctx, t, args, p, state, from)
	if err != nil {
		return failure(err), true
	}
	return te.created(rec), true
}

// start stores a new task and runs its handler in a goroutine, with the
// principal of the request that created it (in its context and its Call)
// and the request's interceptors.
func (e *taskEngine) start(ctx context.Context, t *registeredTool, args json.RawMessage, p peer, state []byte, from taskOrigin) (*TaskRecord, *Error) {
	hctx, cancel := context.WithCancelCause(withPrincipal(e.base, from.principal))
	rec, lt, err := e.create(ctx, t, from, cancel)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	call := newCall(e.announce, e.peerOf(rec, lt, p), state)
	call.principal = from.principal
	call.intercept(e.icpt, ctx)
	e.wg.Add(2)
	go e.watch(hctx, rec)
	go func() {
		defer e.wg.Done()
		res, err := t.run(hctx, e.logger, call, args)
		e.finish(hctx, cancel, rec, t, res, err)
	}()
	return rec, nil
}

// create stores a new working task that this replica runs; cancel stops
// its handler. The task takes a slot of MaxTasks until its TTL passes and
// one of MaxConcurrentCalls while its handler runs, both from its caller's
// share; finish gives the second back.
func (e *taskEngine) create(ctx context.Context, t *registeredTool, from taskOrigin, cancel context.CancelCauseFunc) (*TaskRecord, *liveTask, *Error) {
	o := e.opts
	ttl := from.ttl
	if ttl <= 0 || ttl > o.TaskTTL {
		ttl = o.TaskTTL
	}
	if err := e.held.take(from.caller, 1); err != nil {
		return nil, nil, err
	}
	if err := e.callSlots.take(from.caller, 1); err != nil {
		e.held.give(from.caller, 1)
		return nil, nil, err
	}
	now := time.Now().UTC()
	rec := &TaskRecord{
		ID: newTaskID(), Tool: t.Name, Owner: from.owner, Principal: from.principal.key(), Caller: from.caller, Modern: from.modern,
		Status: TaskWorking, CreatedAt: now, UpdatedAt: now,
		TTL: ttl, ExpiresAt: now.Add(ttl), PollInterval: o.TaskPollInterval,
		Replica: e.replica, LeaseUntil: now.Add(o.TaskLease),
	}
	if err := e.store.CreateTask(ctx, rec); err != nil {
		e.held.give(from.caller, 1)
		e.callSlots.give(from.caller, 1)
		return nil, nil, NewError(CodeInternalError, "creating the task: %v", err)
	}
	lt := &liveTask{cancel: cancel, owner: from.owner}
	k := &keptTask{caller: from.caller}
	e.mu.Lock()
	e.live[rec.ID] = lt
	e.kept[rec.ID] = k
	k.expiry = time.AfterFunc(ttl, func() { e.forget(rec.ID) })
	e.mu.Unlock()
	if l := e.logger; l.Enabled(ctx, slog.LevelDebug) {
		l.LogAttrs(ctx, slog.LevelDebug, "task created", slog.String("task", rec.ID), slog.String("tool", t.Name),
			slog.String("subject", subjectOf(from.principal)), slog.String("session", from.owner))
	}
	return rec, lt, nil
}

// forget gives back what a task this process created held, once its TTL
// passed (the store has dropped it).
func (e *taskEngine) forget(id string) {
	e.mu.Lock()
	k := e.kept[id]
	delete(e.kept, id)
	e.mu.Unlock()
	if k != nil {
		e.held.give(k.caller, 1)
		e.bytes.give(k.caller, k.bytes)
	}
}

// keepResult charges a finished task's result to its caller's share of
// MaxTaskBytes, or returns the error that fails the task instead.
func (e *taskEngine) keepResult(rec *TaskRecord, result json.RawMessage) *Error {
	n := int64(len(result))
	if err := e.bytes.take(rec.Caller, n); err != nil {
		err.Message = fmt.Sprintf("the task's result (%d bytes) is not kept: %s", n, err.Message)
		return err
	}
	e.mu.Lock()
	k := e.kept[rec.ID]
	if k != nil {
		k.bytes += n
	}
	e.mu.Unlock()
	if k == nil { // expired meanwhile
		e.bytes.give(rec.Caller, n)
	}
	return nil
}

// endSession cancels the tasks of a legacy session that ended (DELETE,
// idle expiry, deleted on another replica): nobody can reach them any
// more, and they must not hold their slots until their TTL.
func (e *taskEngine) endSession(id string) {
	e.mu.Lock()
	var ended []string
	for tid, lt := range e.live {
		if lt.owner == id {
			ended = append(ended, tid)
		}
	}
	e.mu.Unlock()
	for _, tid := range ended {
		e.cancel(context.Background(), tid, "the session ended")
	}
}

// cancel marks task id cancelled (unless it already ended) and stops its
// handler if it runs here. It returns the stored task and, for a task that
// had already ended, its status.
func (e *taskEngine) cancel(ctx context.Context, id, why string) (*TaskRecord, string, error) {
	var ended string
	r, err := e.store.UpdateTask(ctx, id, func(t *TaskRecord) error {
		if t.Terminal() {
			ended = t.Status
			return errTaskEnded
		}
		t.Status, t.StatusMessage, t.Inputs = TaskCancelled, why, nil
		t.UpdatedAt = time.Now().UTC()
		return nil
	})
	if err != nil {
		return r, ended, err
	}
	e.mu.Lock()
	if lt := e.live[id]; lt != nil {
		lt.cancel(errTaskCancelled)
	}
	e.mu.Unlock()
	return r, "", nil
}

// peerOf is the taskPeer of rec, with the client's facts from the peer of
// the call that created it.
func (e *taskEngine) peerOf(rec *TaskRecord, lt *liveTask, p peer) *taskPeer {
	return &taskPeer{e: e, id: rec.ID, modern: rec.Modern, lt: lt,
		caps: p.capabilities(), level: p.logLevel(), progress: p.progressToken()}
}

// errTaskCancelled ends the handler of a cancelled task; errTaskExpired one
// whose TTL passed or that the store no longer has.
var (
	errTaskCancelled = errors.New("mcpgen: the task was cancelled")
	errTaskExpired   = errors.New("mcpgen: the task's TTL elapsed")
)

// finish stores how the task's handler ended, unless the task already
// ended (cancelled), and stops its watch.
func (e *taskEngine) finish(ctx context.Context, cancel context.CancelCauseFunc, rec *TaskRecord, t *registeredTool, res *ToolResult, err error) {
	cause := context.Cause(ctx)
	cancel(nil) // stops watch
	e.mu.Lock()
	delete(e.live, rec.ID)
	e.mu.Unlock()
	e.callSlots.give(rec.Caller, 1)
	o := toolOutcome(t.Name, res, err)
	now := time.Now().UTC()
	var result json.RawMessage
	if o.err == nil {
		b, encErr := appendResult(nil, o.result)
		if encErr != nil {
			o.err = NewError(CodeInternalError, "encoding the result: %v", encErr)
		}
		result = b
	}
	if cause == errShuttingDown || (cause == context.Canceled && e.closing.Load()) {
		o.err, result = NewError(CodeInternalError, "the server running the task shut down before it finished"), nil
	}
	if result != nil && cause != errTaskCancelled {
		if kerr := e.keepResult(rec, result); kerr != nil {
			o.err, result = kerr, nil
		}
	}
	_, uerr := e.store.UpdateTask(context.Background(), rec.ID, func(r *TaskRecord) error {
		if r.Terminal() {
			return errTaskEnded
		}
		r.UpdatedAt, r.Inputs = now, nil
		switch {
		case o.err != nil:
			r.Status, r.Error, r.StatusMessage = TaskFailed, o.err, o.err.Message
		case !r.Modern && isToolError(o.result):
			// 2025-11-25: a tool error is a failed task whose result is
			// the isError result; 2026-07-28 calls it completed.
			r.Status, r.Result, r.StatusMessage = TaskFailed, result, "the tool reported an error (isError)"
		default:
			r.Status, r.Result = TaskCompleted, result
		}
		return nil
	})
	if uerr != nil && !errors.Is(uerr, errTaskEnded) && !errors.Is(uerr, ErrTaskNotFound) {
		e.logger.Error("storing a task's result", slog.String("task", rec.ID), slog.String("error", uerr.Error()))
	}
}

var errTaskEnded = errors.New("mcpgen: the task already ended")

// watch renews the task's lease while its handler runs and stops the
// handler when the task is cancelled (on any replica), expires, or is gone.
func (e *taskEngine) watch(ctx context.Context, rec *TaskRecord) {
	defer e.wg.Done()
	lease := e.opts.TaskLease
	renew := time.NewTicker(max(lease/3, time.Millisecond))
	defer renew.Stop()
	expiry := time.NewTimer(time.Until(rec.ExpiresAt))
	defer expiry.Stop()
	e.mu.Lock()
	lt := e.live[rec.ID]
	e.mu.Unlock()
	if lt == nil {
		return
	}
	for {
		ch, done := e.store.TaskChanged(ctx, rec.ID)
		r, err := e.store.GetTask(ctx, rec.ID)
		switch {
		case ctx.Err() != nil:
		case errors.Is(err, ErrTaskNotFound):
			lt.cancel(errTaskExpired)
		case err == nil && r.Status == TaskCancelled:
			lt.cancel(errTaskCancelled)
		}
		if ctx.Err() != nil {
			done()
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
		case <-expiry.C:
			lt.cancel(errTaskExpired)
		case <-renew.C:
			_, err := e.store.UpdateTask(ctx, rec.ID, func(r *TaskRecord) error {
				if r.Terminal() {
					return errTaskEnded
				}
				r.LeaseUntil = time.Now().UTC().Add(lease)
				return nil
			})
			if err != nil && ctx.Err() == nil && !errors.Is(err, errTaskEnded) && !errors.Is(err, ErrTaskNotFound) {
				e.logger.Warn("renewing a task's lease", slog.String("task", rec.ID), slog.String("error", err.Error()))
			}
			if rec.Owner != "" && !e.sessionLives(ctx, rec.Owner) {
				e.cancel(context.WithoutCancel(ctx), rec.ID, "the session ended")
			}
		}
		done()
	}
}

// sessionLives reports whether the legacy session id still exists. A
// session that ends on this replica, or is deleted on any, ends its tasks
// at once (endSession); one that a shared store expired for idleness ends
// them here, at the next lease renewal, when the store can tell
// (SessionProber) without refreshing the session's expiry.
func (e *taskEngine) sessionLives(ctx context.Context, id string) bool {
	p, ok := e.sessions.(SessionProber)
	if !ok {
		return true
	}
	exists, err := p.Exists(ctx, id)
	return err != nil || exists // a store that cannot tell ends nothing
}

// load returns the task id as its owner may see it: a task of another
// principal, another session, or the other era, is not found, exactly as an
// unknown ID, so that holding an ID reveals nothing. A task whose replica stopped
// renewing its lease is marked failed first.
func (e *taskEngine) load(ctx context.Context, rq *request, id string) (*TaskRecord, *Error) {
	r, err := e.store.GetTask(ctx, id)
	if err == nil && (!rq.era.tasks().owns(rq, r) || r.Principal != principalKeyOf(ctx)) {
		err = ErrTaskNotFound // another caller's task is answered as one that never existed
	}
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return nil, NewError(CodeInvalidParams, "Failed to retrieve task: Task not found: %s", id)
	case err != nil:
		return nil, NewError(CodeInternalError, "reading task %s: %v", id, err)
	}
	if !r.Terminal() && time.Now().After(r.LeaseUntil) {
		r2, err := e.store.UpdateTask(ctx, id, func(t *TaskRecord) error {
			if t.Terminal() || !time.Now().After(t.LeaseUntil) {
				return errTaskEnded
			}
			msg := fmt.Sprintf("the replica %q running this task stopped (its lease lapsed at %s)", t.Replica, t.LeaseUntil.Format(time.RFC3339))
			t.Status, t.StatusMessage, t.Inputs = TaskFailed, msg, nil
			t.Error = &Error{Code: CodeInternalError, Message: msg}
			t.UpdatedAt = time.Now().UTC()
			return nil
		})
		switch {
		case err == nil:
			r = r2
		case errors.Is(err, errTaskEnded):
			if r, err = e.store.GetTask(ctx, id); err != nil {
				return nil, NewError(CodeInvalidParams, "Failed to retrieve task: Task not found: %s", id)
			}
		default:
			return nil, NewError(CodeInternalError, "reading task %s: %v", id, err)
		}
	}
	return r, nil
}
