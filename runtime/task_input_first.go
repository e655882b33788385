package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"
)

// A tool named in Options.InputBeforeTask asks its first questions in
// 2026-07-28 input_required rounds and becomes a task only afterwards, as
// SEP-2663 recommends for a tool that composes multi round-trip requests
// with a task: each round runs the handler as a plain call until it has
// taken every answer the round carried; from then on it runs on as a task
// (later questions are the task's, in tasks/get). A round that carries no
// answers runs until the handler asks (input_required) or returns (a task
// that is born finished), so list only tools that ask before they work.

// inputFirst reports whether tool name asks before it becomes a task.
func (e *taskEngine) inputFirst(name string) bool {
	return slices.Contains(e.opts.InputBeforeTask, name)
}

// switchPeer is the peer of such a handler: the round's mrtrPeer until the
// handler has taken every answer the round carried, then the task's peer.
type switchPeer struct {
	round   *mrtrPeer
	carried int

	mu       sync.Mutex
	detached bool
	detach   chan struct{} // closed when the handler took the last carried answer
	ready    chan struct{} // closed once task is set (or the task could not be created)
	task     *taskPeer
}

func (p *switchPeer) current(ctx context.Context) (peer, error) {
	p.mu.Lock()
	d := p.detached
	p.mu.Unlock()
	if !d {
		return p.round, nil
	}
	select {
	case <-p.ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if p.task == nil {
		return nil, errTaskEnded
	}
	return p.task, nil
}

func (p *switchPeer) request(ctx context.Context, key, method string, params any) (json.RawMessage, error) {
	cur, err := p.current(ctx)
	if err != nil {
		return nil, err
	}
	ans, err := cur.request(ctx, key, method, params)
	if cur == peer(p.round) && err == nil && p.carried > 0 && len(p.round.consumed()) >= p.carried {
		p.mu.Lock()
		if !p.detached {
			p.detached = true
			close(p.detach)
		}
		p.mu.Unlock()
	}
	return ans, err
}

func (p *switchPeer) notify(ctx context.Context, method string, params any) error {
	cur, err := p.current(ctx)
	if err != nil {
		return nil
	}
	return cur.notify(ctx, method, params)
}

func (p *switchPeer) capabilities() ClientCapabilities { return p.round.capabilities() }
func (p *switchPeer) logLevel() LogLevel               { return p.round.logLevel() }
func (p *switchPeer) progressToken() json.RawMessage   { return p.round.progressToken() }
func (p *switchPeer) urlMode() urlMode                 { return urlMode{supported: true} }

// requireURL ends the round with the URL elicitations while the handler
// runs as a plain call; once it runs on as a task, the task's peer decides.
func (p *switchPeer) requireURL(keys []string, list []urlParams) error {
	p.mu.Lock()
	d := p.detached
	p.mu.Unlock()
	if !d {
		return p.round.requireURL(keys, list)
	}
	return urlRequiredError(list)
}
func (p *switchPeer) carriesMeta() bool               { return false }
func (p *switchPeer) waited(key string) time.Duration { return p.round.waited(key) }

type handlerReturn struct {
	res *ToolResult
	err error
}

// inputFirstTask runs one 2026-07-28 round of such a tool for a client that
// declared the extension: the round's input_required, or the task.
func (e *taskEngine) inputFirstTask(ctx context.Context, rq *request, t *registeredTool, args json.RawMessage, round *mrtrPeer, state []byte) outcome {
	round.mu.Lock()
	carried := len(round.answers)
	round.mu.Unlock()
	sp := &switchPeer{round: round, carried: carried, detach: make(chan struct{}), ready: make(chan struct{})}
	from := taskOrigin{principal: PrincipalFromContext(ctx), caller: callerOf(ctx, rq.era), modern: true}
	hctx, cancel := context.WithCancelCause(withPrincipal(e.base, from.principal))
	// Until it is a task, the handler ends with the request.
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	call := newCall(e.announce, sp, state)
	call.principal = from.principal
	call.intercept(e.icpt, ctx)
	done := make(chan handlerReturn, 1)
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		res, err := t.run(hctx, e.logger, call, args)
		done <- handlerReturn{res, err}
	}()
	select {
	case r := <-done:
		stop()
		if o, ended := rq.era.closeRound(rq, t.Name, args, call, r.err); ended {
			cancel(nil)
			return o
		}
		// Every question was answered and the handler finished: a task that
		// is born finished.
		rec, _, err := e.create(ctx, t, from, cancel)
		if err != nil {
			cancel(nil)
			return failure(err)
		}
		e.finish(hctx, cancel, rec, t, r.res, r.err)
		if got, gerr := e.store.GetTask(ctx, rec.ID); gerr == nil {
			rec = got
		}
		return outcome{resultType: "task", result: taskObject(rec, true, false)}
	case <-sp.detach:
	}
	stop()
	rec, lt, err := e.create(ctx, t, from, cancel)
	if err != nil {
		close(sp.ready)
		cancel(nil)
		return failure(err)
	}
	sp.task = e.peerOf(rec, lt, round)
	close(sp.ready)
	e.wg.Add(2)
	go e.watch(hctx, rec)
	go func() {
		defer e.wg.Done()
		r := <-done
		e.finish(hctx, cancel, rec, t, r.res, r.err)
	}()
	return outcome{resultType: "task", result: taskObject(rec, true, false)}
}
