package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// A tools/call may go on after its request was answered: a ToolCallHook
// (an extension that runs long calls as jobs the client polls) detaches
// it, the request answers with whatever the hook says (the created job),
// and the handler runs on in a
// goroutine of its own, on the server's lifetime rather than the
// request's. Its Call talks through a Relay the hook provides, since the
// request's own stream is gone: the relay parks its questions where the
// client will find them (the job's pending questions) and carries or drops its
// notifications. The handler keeps the slot of Options.MaxConcurrentCalls
// it took, from its caller's share, until it returns; Server.Close waits
// for it (up to Options.ShutdownTimeout) once the server's end has ended
// its context.

// Relay carries what a detached call asks and tells its client once its
// request was answered.
type Relay interface {
	// Request asks the client (elicitation/create, sampling/createMessage,
	// roots/list; params as encoded) and returns its answer, which the
	// runtime checks is well formed for method. key names the question
	// within the call ("confirm", "confirm_2", ...), stable for its life. A
	// question the client will not answer fails with an error wrapping
	// ErrExpired.
	Request(ctx context.Context, key, method string, params json.RawMessage) (json.RawMessage, error)
	// Notify sends a notification related to the call (progress, a log
	// message), or drops it when nothing can carry it.
	Notify(ctx context.Context, method string, params any) error
}

// Detachment is how ToolCallRequest.Detach runs a call away from its
// request.
type Detachment struct {
	// AfterAnswers runs the handler in a 2026-07-28 request as that
	// round's plain call until it has taken every answer the round
	// carried, and detaches it only then (SEP-2663: a call resolves its
	// questions in input_required rounds before it runs on as a job). A
	// handler that asks what the round did not answer, or returns, first
	// ends the round as a plain call would. In a legacy session, or
	// without it, the handler detaches at once.
	AfterAnswers bool
	// Begin is called once the call detaches, on the request's goroutine,
	// before the handler runs on away from it (or, when a handler with
	// AfterAnswers finished within its round, before Finished): it stores
	// whatever the extension keeps of the detached call and returns the
	// Relay its questions and notifications go through from then on. The
	// handler holds its slot of MaxConcurrentCalls by then. An error ends
	// the call with it, and the handler is cancelled.
	Begin func(c *DetachedCall) (Relay, error)
	// Finished is called on the handler's goroutine once the detached
	// handler returned (and its slot came back).
	Finished func(r *DetachedResult)
}

// DetachedCall is a call running away from its request.
type DetachedCall struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// Context is the handler's context: it ends when Cancel is called or the
// server closes.
func (c *DetachedCall) Context() context.Context { return c.ctx }

// Cancel ends the handler's context with cause (context.Cause tells the
// handler, and DetachedResult.Cause the extension, why).
func (c *DetachedCall) Cancel(cause error) { c.cancel(cause) }

// DetachedResult is how a detached handler ended.
type DetachedResult struct {
	// Result is the tools/call result the handler's return stands for (a
	// CallToolResult object), nil when it ended with Error.
	Result json.RawMessage
	// IsError: the result is a tool error (isError), which the model reads.
	IsError bool
	// Error is the JSON-RPC error the call ended with instead of a result.
	Error *Error
	// ShutDown: the server closed before the handler finished; Error says
	// so.
	ShutDown bool
	// Cause is why the handler's context had ended before it returned (the
	// cause given to Cancel), or nil.
	Cause error
}

// errNotDetached: a question of a handler whose detachment failed.
var errNotDetached = errors.New("mcpgen: the call could not go on away from its request")

// Detach runs the call's handler away from its request (see Detachment):
// it returns the detached call, or, with AfterAnswers, the outcome of a
// round that ended as a plain call (the hook returns it as it is), or an
// error. A call detaches once.
func (tc *ToolCallRequest) Detach(dt Detachment) (*DetachedCall, *MethodResult, error) {
	if tc.detached {
		return nil, nil, errors.New("mcpgen: Detach: the call is detached already")
	}
	if dt.Begin == nil {
		return nil, nil, errors.New("mcpgen: Detach: Begin is required")
	}
	tc.detached = true
	d := tc.d
	hctx, cancel := context.WithCancelCause(withPrincipal(d.base, tc.Principal))
	dc := &DetachedCall{ctx: hctx, cancel: cancel}
	if rp, ok := tc.peer.(roundPeer); ok && dt.AfterAnswers {
		return tc.detachAfterAnswers(dt, dc, rp)
	}
	relay, e := tc.begin(dt, dc)
	if e != nil {
		return nil, nil, e
	}
	call := tc.newCall(tc.relayPeer(relay))
	d.detached.Add(1)
	go func() {
		defer d.detached.Done()
		res, err := tc.tool.run(hctx, d.logger, call, tc.Arguments)
		tc.finish(dc, res, err, dt.Finished)
	}()
	return dc, nil, nil
}

// begin takes the detached call's slot and asks the hook for its relay; on
// failure the slot goes back and the handler's context ends.
func (tc *ToolCallRequest) begin(dt Detachment, dc *DetachedCall) (Relay, error) {
	if e := tc.d.callSlots.take(tc.Caller, 1); e != nil {
		dc.cancel(nil)
		return nil, e
	}
	relay, err := dt.Begin(dc)
	if err == nil && relay == nil {
		err = NewError(CodeInternalError, "tools/call: the extension detached %q without a relay", tc.Tool)
	}
	if err != nil {
		tc.d.callSlots.give(tc.Caller, 1)
		dc.cancel(nil)
		return nil, err
	}
	return relay, nil
}

// newCall is the Call of the detached handler, talking through p, with the
// request's principal, interceptors and handler state.
func (tc *ToolCallRequest) newCall(p peer) *Call {
	call := newCall(tc.d.announce, p, tc.state)
	call.principal = tc.Principal
	call.intercept(tc.d.icpt, tc.ctx)
	return call
}

// finish gives the slot back and tells Finished how the handler ended.
func (tc *ToolCallRequest) finish(dc *DetachedCall, res *ToolResult, err error, finished func(*DetachedResult)) {
	cause := context.Cause(dc.ctx)
	dc.cancel(nil)
	tc.d.callSlots.give(tc.Caller, 1)
	r := &DetachedResult{}
	if dc.ctx.Err() != nil && cause != context.Canceled {
		r.Cause = cause
	}
	o := toolOutcome(tc.Tool, res, err)
	if o.err == nil {
		b, encErr := appendResult(nil, o.result)
		if encErr != nil {
			o.err = NewError(CodeInternalError, "encoding the result: %v", encErr)
		} else {
			r.Result, r.IsError = b, isToolErrorResult(o.result)
		}
	}
	r.Error = o.err
	if cause == errShuttingDown || cause == context.Canceled && tc.d.closing.Load() {
		r.ShutDown, r.Result, r.IsError = true, nil, false
		r.Error = NewError(CodeInternalError, "the server shut down before the call finished")
	}
	if finished != nil {
		finished(r)
	}
}

func isToolErrorResult(result any) bool {
	r, ok := result.(*ToolResult)
	return ok && r.IsError
}

// relayPeer is the peer of a detached handler: the client's facts of the
// request that started it, its questions and notifications through the
// relay.
func (tc *ToolCallRequest) relayPeer(r Relay) *relayPeer {
	return &relayPeer{relay: r, legacy: tc.rq.era.kind() == legacyEra,
		caps: tc.peer.capabilities(), level: tc.peer.logLevel(), progress: tc.peer.progressToken(),
		facts: tc.peer.client(), roots: tc.peer.sessionRoots()}
}

type relayPeer struct {
	relay    Relay
	legacy   bool
	caps     ClientCapabilities
	level    LogLevel
	progress json.RawMessage
	facts    clientFacts // of the request that started the call
	roots    rootsSource // the legacy session's roots, nil in 2026-07-28
}

func (p *relayPeer) client() clientFacts       { return p.facts }
func (p *relayPeer) sessionRoots() rootsSource { return p.roots }

func (p *relayPeer) capabilities() ClientCapabilities { return p.caps }
func (p *relayPeer) logLevel() LogLevel               { return p.level }
func (p *relayPeer) progressToken() json.RawMessage   { return p.progress }
func (p *relayPeer) carriesMeta() bool                { return false }
func (p *relayPeer) waited(string) time.Duration      { return 0 }

func (p *relayPeer) request(ctx context.Context, key, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", method, err)
	}
	ans, err := p.relay.Request(ctx, key, method, raw)
	if err != nil {
		return nil, err
	}
	if err := checkAnswerShape(method, ans); err != nil {
		return nil, fmt.Errorf("%w: %s result: %v", ErrInvalidAnswer, method, err)
	}
	return ans, nil
}

func (p *relayPeer) notify(ctx context.Context, method string, params any) error {
	return p.relay.Notify(ctx, method, params)
}

// urlMode mints an elicitationId in a legacy session (2025-11-25); no
// session can be told that a detached call's elicitation completed.
func (p *relayPeer) urlMode() urlMode {
	if !p.legacy {
		return urlMode{supported: true}
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return urlMode{supported: true, id: hex.EncodeToString(b[:])}
}

// requireURL fails the call with -32042, which the detached call's
// result carries.
func (p *relayPeer) requireURL(_ []string, list []urlParams) error { return urlRequiredError(list) }

// detachAfterAnswers runs the handler as the round's call until it has
// taken every answer the round carried, then detaches it (Detachment).
func (tc *ToolCallRequest) detachAfterAnswers(dt Detachment, dc *DetachedCall, rp roundPeer) (*DetachedCall, *MethodResult, error) {
	d, rq := tc.d, tc.rq
	sp := &detachingPeer{round: rp, carried: rp.carried(), detach: make(chan struct{}), ready: make(chan struct{})}
	// Until it detaches, the handler ends with the request.
	stop := context.AfterFunc(tc.ctx, func() { dc.cancel(context.Cause(tc.ctx)) })
	call := tc.newCall(sp)
	done := make(chan handlerReturned, 1)
	d.detached.Add(1)
	go func() {
		defer d.detached.Done()
		res, err := tc.tool.run(dc.ctx, d.logger, call, tc.Arguments)
		done <- handlerReturned{res, err}
	}()
	select {
	case r := <-done:
		stop()
		if o, ended := rq.era.closeRound(rq, tc.Tool, tc.Arguments, call, r.err); ended {
			dc.cancel(nil)
			return nil, &MethodResult{o: &o}, nil
		}
		// Every question was answered and the handler finished within its
		// round: a detached call that is born finished.
		if _, e := tc.begin(dt, dc); e != nil {
			return nil, nil, e
		}
		tc.finish(dc, r.res, r.err, dt.Finished)
		return dc, nil, nil
	case <-sp.detach:
	}
	stop()
	relay, e := tc.begin(dt, dc)
	if e != nil {
		close(sp.ready)
		return nil, nil, e
	}
	sp.detached = tc.relayPeer(relay)
	close(sp.ready)
	d.detached.Add(1)
	go func() {
		defer d.detached.Done()
		r := <-done
		tc.finish(dc, r.res, r.err, dt.Finished)
	}()
	return dc, nil, nil
}

type handlerReturned struct {
	res *ToolResult
	err error
}

// detachingPeer is the peer of a handler that detaches after its round's
// answers: the round's peer until the handler has taken every answer the
// round carried, then the detached call's.
type detachingPeer struct {
	round   roundPeer
	carried int

	mu        sync.Mutex
	switching bool
	detach    chan struct{} // closed when the handler took the last carried answer
	ready     chan struct{} // closed once detached is set (or detaching failed)
	detached  *relayPeer
}

func (p *detachingPeer) current(ctx context.Context) (peer, error) {
	p.mu.Lock()
	s := p.switching
	p.mu.Unlock()
	if !s {
		return p.round, nil
	}
	select {
	case <-p.ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if p.detached == nil {
		return nil, errNotDetached
	}
	return p.detached, nil
}

func (p *detachingPeer) request(ctx context.Context, key, method string, params any) (json.RawMessage, error) {
	cur, err := p.current(ctx)
	if err != nil {
		return nil, err
	}
	ans, err := cur.request(ctx, key, method, params)
	if cur == peer(p.round) && err == nil && p.carried > 0 && p.round.consumedCount() >= p.carried {
		p.mu.Lock()
		if !p.switching {
			p.switching = true
			close(p.detach)
		}
		p.mu.Unlock()
	}
	return ans, err
}

func (p *detachingPeer) notify(ctx context.Context, method string, params any) error {
	cur, err := p.current(ctx)
	if err != nil {
		return nil
	}
	return cur.notify(ctx, method, params)
}

func (p *detachingPeer) capabilities() ClientCapabilities { return p.round.capabilities() }
func (p *detachingPeer) client() clientFacts              { return p.round.client() }
func (p *detachingPeer) sessionRoots() rootsSource        { return p.round.sessionRoots() }
func (p *detachingPeer) logLevel() LogLevel               { return p.round.logLevel() }
func (p *detachingPeer) progressToken() json.RawMessage   { return p.round.progressToken() }
func (p *detachingPeer) urlMode() urlMode                 { return urlMode{supported: true} }
func (p *detachingPeer) carriesMeta() bool                { return false }
func (p *detachingPeer) waited(key string) time.Duration  { return p.round.waited(key) }

// requireURL ends the round with the URL elicitations while the handler
// runs as the round's call; once detached, the detached call's peer
// decides.
func (p *detachingPeer) requireURL(keys []string, list []urlParams) error {
	p.mu.Lock()
	s := p.switching
	p.mu.Unlock()
	if !s {
		return p.round.requireURL(keys, list)
	}
	return urlRequiredError(list)
}
