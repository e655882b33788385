package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// engine runs this process's tasks and reads everyone's from the store. It
// reaches the runtime only through the extension seam: its tool-call hook
// detaches the calls that become tasks, and the runtime runs their
// handlers with a relay of the engine's (relay.go) as the way back to the
// client.
type engine struct {
	given Options // as Add was given them, to compare a second Add
	opts  Options // with the defaults
	store Store

	host    *runtime.Host
	logger  *slog.Logger
	replica string
	// held are the tasks this process created and keeps until their TTL
	// passes (MaxTasks), bytes their results (MaxResultBytes), each with
	// every caller's share.
	held, bytes *runtime.Share

	// support caches each tool's execution.taskSupport, by name (a name is
	// one tool for the server's life).
	support sync.Map
	// offer is whether some tool may run as a task (what the capabilities
	// declare); stale says a feature was added since it was computed.
	offer     atomic.Bool
	stale     atomic.Bool
	computing atomic.Bool

	mu         sync.Mutex
	live       map[string]*liveTask // tasks whose handler runs here
	kept       map[string]*keptTask // tasks this process created, until their TTL
	delivering map[string]bool      // taskID+"\x00"+key asked on a tasks/result stream here
}

// liveTask is a task whose handler runs in this process.
type liveTask struct {
	call  *runtime.DetachedCall
	owner string // the legacy session it belongs to; "" in 2026-07-28
	mu    sync.Mutex
	// listen is the Call of a 2025-11-25 tasks/result waiting for the task
	// here: its notifications ride that request's stream.
	listen *runtime.Call
}

// keptTask is what a task this process created holds of the bounds until
// its TTL passes: a slot of MaxTasks and its result's bytes.
type keptTask struct {
	caller string
	bytes  int64
	expiry *time.Timer
}

// origin is the request that creates a task: the task is bound to its
// session (legacy) and principal, and charged to its caller.
type origin struct {
	owner     string // the legacy session; "" in 2026-07-28
	principal string // runtime.Principal.Key
	caller    string
	modern    bool
	ttl       time.Duration // 0: Options.TTL; a longer one is cut to it
}

func newEngine(opts Options) *engine {
	o := opts.withDefaults()
	e := &engine{given: opts, opts: o, store: o.Store,
		live: map[string]*liveTask{}, kept: map[string]*keptTask{}, delivering: map[string]bool{}}
	e.stale.Store(true)
	return e
}

// extension is the engine as the runtime's seam takes it.
func (e *engine) extension() runtime.Extension {
	return runtime.Extension{
		ID:               ExtensionID,
		Methods:          e.methods(),
		Declared:         e.declared,
		LegacyCapability: e.legacyCapability,
		ToolCalls:        e.admit,
		ListenFilter:     e.listenFilter,
		SessionEnded:     e.endSession,
		Init:             e.init,
		State:            e,
	}
}

// init takes what the engine needs of the server.
func (e *engine) init(h *runtime.Host) error {
	e.host, e.logger = h, h.Logger()
	if e.replica = h.ReplicaID(); e.replica == "" {
		e.replica = newTaskID()[:12]
	}
	e.held = h.NewShare("tasks.Options.MaxTasks", "tasks", int64(e.opts.MaxTasks))
	e.bytes = h.NewShare("tasks.Options.MaxResultBytes", "bytes of task results", e.opts.MaxResultBytes)
	h.OnChange(func() { e.stale.Store(true) })
	h.Go(func() {
		<-h.Context().Done()
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, k := range e.kept {
			k.expiry.Stop()
		}
	})
	return nil
}

// offered reports whether some tool may run as a task. It is computed from
// the server's description after a change, once; a description being
// computed (which asks the capabilities, and so this) sees the last value.
func (e *engine) offered() bool {
	if e.stale.Load() && e.computing.CompareAndSwap(false, true) {
		e.stale.Store(false)
		any := false
		for _, def := range e.host.Describe().Tools {
			if s, err := parseSupport(def); err == nil && s != forbidden {
				any = true
				break
			}
		}
		e.offer.Store(any)
		e.computing.Store(false)
	}
	return e.offer.Load()
}

// declared: io.modelcontextprotocol/tasks is a 2026-07-28 extension,
// declared once a tool may run as a task.
func (e *engine) declared(version string) bool {
	return version == runtime.Version20260728 && e.offered()
}

// legacyCapability is 2025-11-25's tasks capability, once a tool may run
// as a task.
func (e *engine) legacyCapability(version string) (string, json.RawMessage, bool) {
	if version != runtime.Version20251125 || !e.offered() {
		return "", nil, false
	}
	return "tasks", json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`), true
}

// supportOf is the tool's execution.taskSupport (a malformed one is
// forbidden: AddTool refuses no definition for it, and the call runs
// plain).
func (e *engine) supportOf(tool string, def json.RawMessage) support {
	if s, ok := e.support.Load(tool); ok {
		return s.(support)
	}
	s, err := parseSupport(def)
	if err != nil {
		e.logger.Warn("a tool's execution.taskSupport is malformed; it runs as a plain call", slog.String("tool", tool), slog.String("error", err.Error()))
	}
	e.support.Store(tool, s)
	return s
}

// admit is the tool-call hook: it runs a tools/call as a task when the
// request's era says so (eras.go), and lets every other call run plain.
func (e *engine) admit(ctx context.Context, tc *runtime.ToolCallRequest) (*runtime.MethodResult, error) {
	s := e.supportOf(tc.Tool, tc.Definition)
	era := eraOf(tc.MethodRequest)
	from, mode, err := era.admit(e, tc, s)
	switch {
	case err != nil:
		return nil, err
	case mode == runPlain:
		return nil, nil
	}
	from.principal, from.caller = tc.Principal.Key(), tc.Caller
	var rec *Record
	var finishedEarly atomic.Bool
	_, round, err := tc.Detach(runtime.Detachment{
		AfterAnswers: mode == runAfterAnswers,
		Begin: func(dc *runtime.DetachedCall) (runtime.Relay, error) {
			r, lt, err := e.create(ctx, tc.Tool, from, dc)
			if err != nil {
				return nil, err
			}
			rec = r
			e.host.Go(func() { e.watch(dc.Context(), r, lt) })
			return &relay{e: e, id: r.ID, modern: r.Modern, lt: lt}, nil
		},
		Finished: func(res *runtime.DetachedResult) {
			finishedEarly.Store(true)
			e.finish(rec, res)
		},
	})
	switch {
	case err != nil:
		return nil, err
	case round != nil:
		return round, nil // a round before the task
	}
	if mode == runAfterAnswers && finishedEarly.Load() {
		// Every question was answered and the handler finished within its
		// round: a task that is born finished.
		if got, gerr := e.store.GetTask(ctx, rec.ID); gerr == nil {
			rec = got
		}
	}
	return era.created(rec), nil
}

// create stores a new working task that this replica runs; its handler has
// its slot of MaxConcurrentCalls already. The task takes a slot of
// MaxTasks until its TTL passes, from its caller's share.
func (e *engine) create(ctx context.Context, tool string, from origin, dc *runtime.DetachedCall) (*Record, *liveTask, error) {
	o := e.opts
	ttl := from.ttl
	if ttl <= 0 || ttl > o.TTL {
		ttl = o.TTL
	}
	if err := e.held.Take(from.caller, 1); err != nil {
		return nil, nil, err
	}
	now := time.Now().UTC()
	rec := &Record{
		ID: newTaskID(), Tool: tool, Owner: from.owner, Principal: from.principal, Caller: from.caller, Modern: from.modern,
		Status: Working, CreatedAt: now, UpdatedAt: now,
		TTL: ttl, ExpiresAt: now.Add(ttl), PollInterval: o.PollInterval,
		Replica: e.replica, LeaseUntil: now.Add(o.Lease),
	}
	if err := e.store.CreateTask(ctx, rec); err != nil {
		e.held.Give(from.caller, 1)
		return nil, nil, e.storeFailed(ctx, "creating the task", rec.ID, err)
	}
	lt := &liveTask{call: dc, owner: from.owner}
	k := &keptTask{caller: from.caller}
	e.mu.Lock()
	e.live[rec.ID] = lt
	e.kept[rec.ID] = k
	k.expiry = time.AfterFunc(ttl, func() { e.forget(rec.ID) })
	e.mu.Unlock()
	if l := e.logger; l.Enabled(ctx, slog.LevelDebug) {
		l.LogAttrs(ctx, slog.LevelDebug, "task created", slog.String("task", rec.ID), slog.String("tool", tool),
			slog.String("session", from.owner))
	}
	return rec, lt, nil
}

// forget gives back what a task this process created held, once its TTL
// passed (the store has dropped it).
func (e *engine) forget(id string) {
	e.mu.Lock()
	k := e.kept[id]
	delete(e.kept, id)
	e.mu.Unlock()
	if k != nil {
		e.held.Give(k.caller, 1)
		e.bytes.Give(k.caller, k.bytes)
	}
}

// keepResult charges a finished task's result to its caller's share of
// MaxResultBytes, or returns the error that fails the task instead.
func (e *engine) keepResult(rec *Record, result json.RawMessage) *runtime.Error {
	n := int64(len(result))
	if err := e.bytes.Take(rec.Caller, n); err != nil {
		var re *runtime.Error
		if errors.As(err, &re) {
			c := *re
			c.Message = fmt.Sprintf("the task's result (%d bytes) is not kept: %s", n, re.Message)
			return &c
		}
		return runtime.NewError(runtime.CodeInternalError, "the task's result (%d bytes) is not kept: %v", n, err)
	}
	e.mu.Lock()
	k := e.kept[rec.ID]
	if k != nil {
		k.bytes += n
	}
	e.mu.Unlock()
	if k == nil { // expired meanwhile
		e.bytes.Give(rec.Caller, n)
	}
	return nil
}

// endSession cancels the tasks of a legacy session that ended (DELETE,
// idle expiry, deleted on another replica): nobody can reach them any
// more, and they must not hold their slots until their TTL.
func (e *engine) endSession(id string) {
	e.mu.Lock()
	var ended []string
	for tid, lt := range e.live {
		if lt.owner == id {
			ended = append(ended, tid)
		}
	}
	e.mu.Unlock()
	for _, tid := range ended {
		ctx, cancel := e.storeContext(context.Background())
		_, _, _ = e.cancel(ctx, tid, "the session ended")
		cancel()
	}
}

// storeContext bounds a store operation that outlives its request by the
// Lease: a write that takes longer is moot, the task is reported failed
// by then.
func (e *engine) storeContext(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(parent), e.opts.Lease)
}

// cancel marks task id cancelled (unless it already ended) and stops its
// handler if it runs here. It returns the stored task and, for a task that
// had already ended, its status.
func (e *engine) cancel(ctx context.Context, id, why string) (*Record, string, error) {
	var ended string
	r, err := e.store.UpdateTask(ctx, id, func(t *Record) error {
		if t.Terminal() {
			ended = t.Status
			return errTaskEnded
		}
		t.Status, t.StatusMessage, t.Inputs = Cancelled, why, nil
		t.UpdatedAt = time.Now().UTC()
		return nil
	})
	if err != nil {
		return r, ended, err
	}
	e.mu.Lock()
	if lt := e.live[id]; lt != nil {
		lt.call.Cancel(errTaskCancelled)
	}
	e.mu.Unlock()
	return r, "", nil
}

// errTaskCancelled ends the handler of a cancelled task; errTaskExpired one
// whose TTL passed or that the store no longer has.
var (
	errTaskCancelled = errors.New("mcpgen: the task was cancelled")
	errTaskExpired   = errors.New("mcpgen: the task's TTL elapsed")
	errTaskEnded     = errors.New("mcpgen: the task already ended")
)

// finish stores how the task's handler ended, unless the task already
// ended (cancelled).
func (e *engine) finish(rec *Record, res *runtime.DetachedResult) {
	e.mu.Lock()
	delete(e.live, rec.ID)
	e.mu.Unlock()
	fail, result := res.Error, res.Result
	if res.ShutDown {
		fail, result = runtime.NewError(runtime.CodeInternalError, "the server running the task shut down before it finished"), nil
	}
	if result != nil && !errors.Is(res.Cause, errTaskCancelled) {
		if kerr := e.keepResult(rec, result); kerr != nil {
			fail, result = kerr, nil
		}
	}
	now := time.Now().UTC()
	ctx, cancel := e.storeContext(context.Background())
	defer cancel()
	_, uerr := e.store.UpdateTask(ctx, rec.ID, func(r *Record) error {
		if r.Terminal() {
			return errTaskEnded
		}
		r.UpdatedAt, r.Inputs = now, nil
		switch {
		case fail != nil:
			r.Status, r.Error, r.StatusMessage = Failed, fail, fail.Message
		case !r.Modern && res.IsError:
			// 2025-11-25: a tool error is a failed task whose result is
			// the isError result; 2026-07-28 calls it completed.
			r.Status, r.Result, r.StatusMessage = Failed, result, "the tool reported an error (isError)"
		default:
			r.Status, r.Result = Completed, result
		}
		return nil
	})
	if uerr != nil && !errors.Is(uerr, errTaskEnded) && !errors.Is(uerr, ErrNotFound) {
		e.logger.Error("storing a task's result", slog.String("task", rec.ID), slog.String("error", uerr.Error()))
	}
}

// watch renews the task's lease while its handler runs and stops the
// handler when the task is cancelled (on any replica), expires, or is gone.
// ctx is the handler's: it ends with the handler.
func (e *engine) watch(ctx context.Context, rec *Record, lt *liveTask) {
	lease := e.opts.Lease
	renew := time.NewTicker(max(lease/3, time.Millisecond))
	defer renew.Stop()
	expiry := time.NewTimer(time.Until(rec.ExpiresAt))
	defer expiry.Stop()
	for {
		ch, done := e.store.TaskChanged(ctx, rec.ID)
		r, err := e.store.GetTask(ctx, rec.ID)
		switch {
		case ctx.Err() != nil:
		case errors.Is(err, ErrNotFound):
			lt.call.Cancel(errTaskExpired)
		case err == nil && r.Status == Cancelled:
			lt.call.Cancel(errTaskCancelled)
		}
		if ctx.Err() != nil {
			done()
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
		case <-expiry.C:
			lt.call.Cancel(errTaskExpired)
		case <-renew.C:
			_, err := e.store.UpdateTask(ctx, rec.ID, func(r *Record) error {
				if r.Terminal() {
					return errTaskEnded
				}
				r.LeaseUntil = time.Now().UTC().Add(lease)
				return nil
			})
			if err != nil && ctx.Err() == nil && !errors.Is(err, errTaskEnded) && !errors.Is(err, ErrNotFound) {
				e.logger.Warn("renewing a task's lease", slog.String("task", rec.ID), slog.String("error", err.Error()))
			}
			// A session that ends on this replica, or is deleted on any,
			// ends its tasks at once (endSession); one that a shared store
			// expired for idleness ends them here, at the next renewal.
			if rec.Owner != "" && !e.host.SessionLives(ctx, rec.Owner) {
				_, _, _ = e.cancel(context.WithoutCancel(ctx), rec.ID, "the session ended")
			}
		}
		done()
	}
}

// load returns the task id as the request's caller may see it: a task of
// another principal, another session, or the other era, is not found,
// exactly as an unknown ID, so that holding an ID reveals nothing. A task
// whose replica stopped renewing its lease is marked failed first.
func (e *engine) load(ctx context.Context, req *runtime.MethodRequest, id string) (*Record, error) {
	r, err := e.store.GetTask(ctx, id)
	if err == nil && (!eraOf(req).owns(req, r) || r.Principal != req.Principal.Key()) {
		err = ErrNotFound // another caller's task is answered as one that never existed
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, errUnknownTask(id)
	case err != nil:
		return nil, e.storeFailed(ctx, "reading the task", id, err)
	}
	if !r.Terminal() && time.Now().After(r.LeaseUntil) {
		r2, err := e.store.UpdateTask(ctx, id, func(t *Record) error {
			if t.Terminal() || !time.Now().After(t.LeaseUntil) {
				return errTaskEnded
			}
			msg := fmt.Sprintf("the replica %q running this task stopped (its lease lapsed at %s)", t.Replica, t.LeaseUntil.Format(time.RFC3339))
			t.Status, t.StatusMessage, t.Inputs = Failed, msg, nil
			t.Error = &runtime.Error{Code: runtime.CodeInternalError, Message: msg}
			t.UpdatedAt = time.Now().UTC()
			return nil
		})
		switch {
		case err == nil:
			r = r2
		case errors.Is(err, errTaskEnded):
			if r, err = e.store.GetTask(ctx, id); err != nil {
				return nil, errUnknownTask(id)
			}
		default:
			return nil, e.storeFailed(ctx, "reading the task", id, err)
		}
	}
	return r, nil
}

// inputFirst reports whether tool name asks before it becomes a task.
func (e *engine) inputFirst(name string) bool {
	return slices.Contains(e.opts.InputBeforeTask, name)
}

// listenFilter refuses a subscriptions/listen for task notifications from
// a client that did not declare the extension (-32021). None are sent, so
// the acknowledgement never lists taskIds.
func (e *engine) listenFilter(req *runtime.MethodRequest, raw json.RawMessage) error {
	var f struct {
		TaskIDs []string `json:"taskIds"`
	}
	if json.Unmarshal(raw, &f) != nil || len(f.TaskIDs) == 0 {
		return nil
	}
	if _, ok := req.ClientExtension(ExtensionID); !ok {
		return errTasksExtension(req.Method)
	}
	return nil
}
