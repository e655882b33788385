package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
)

// legacyExchange is the legacy era (2025-03-26 to 2025-11-25) side of one
// request: the client's facts come from its session, the server asks the
// client with a live request on the stream that carries the response
// (through the requestScopedSender and the session's sharedIDAllocator),
// and results are plain JSON-RPC results.
type legacyExchange struct {
	sess *session // nil for an initialize over HTTP, which has no session yet
	// requested is the version an initialize asks for ("" for the other
	// methods, whose params carry none).
	requested string
	sender    requestScopedSender
	// establish starts the session an initialize result negotiated: over
	// HTTP a new session in the store, over stdio the connection's own.
	establish func(ctx context.Context, st SessionState) (*session, error)

	rq request // the request, allocated with its exchange
}

func (x *legacyExchange) kind() eraKind { return legacyEra }

// version is the session's version; for an initialize, the version the
// client asks for (negotiation comes after).
func (x *legacyExchange) version() string {
	switch {
	case x.requested != "":
		return x.requested
	case x.sess == nil:
		return ""
	}
	return x.sess.version()
}

func (x *legacyExchange) sessionID() string {
	if x.sess == nil {
		return ""
	}
	return x.sess.id
}

func (x *legacyExchange) initialized() bool { return x.sess != nil && x.sess.established }

func (x *legacyExchange) updateSession(ctx context.Context, change func(*SessionState)) error {
	if x.sess == nil {
		return errNoSession
	}
	return x.sess.update(ctx, change)
}

// errNoSession: a session method ran where there is no session (the method
// table keeps them to the legacy era, whose requests other than an
// initialize over HTTP have one).
var errNoSession = errors.New("the request has no session")

func (x *legacyExchange) caller() string {
	if x.sess == nil {
		return ""
	}
	return x.sess.caller()
}

func (x *legacyExchange) clientCapabilities() ClientCapabilities {
	if x.sess == nil {
		return ClientCapabilities{}
	}
	_, caps := x.sess.snapshot()
	return caps
}

// openRound returns the live peer: a question waits for its answer on the
// call's own stream. There are no rounds to carry state across.
func (x *legacyExchange) openRound(_ context.Context, rq *request, _ string, _ *registeredTool, _ json.RawMessage) (peer, []byte, *Error) {
	_, caps := x.sess.snapshot()
	return &legacyPeer{x: x, parent: rq.id, caps: caps, progress: rq.params.ProgressToken}, nil, nil
}

// closeRound lets the handler's return stand: every question was answered
// (or failed) while the handler waited.
func (x *legacyExchange) closeRound(*request, string, json.RawMessage, *Call, error) (outcome, bool) {
	return outcome{}, false
}

// resourceNotFound is -32002, the code of 2025-03-26 to 2025-11-25, with the
// URI in data as their example shows.
func (x *legacyExchange) resourceNotFound(uri string) *Error {
	return &Error{Code: CodeResourceNotFound, Message: "Resource not found", Data: map[string]string{"uri": uri}}
}

// legacyShapes: the 2025 revisions define structuredContent as an object.
func (x *legacyExchange) legacyShapes() bool { return true }

func (x *legacyExchange) tasks() taskEra { return legacyTasks{} }

// toolResult wraps structured output that is not an object: the 2025
// revisions define structuredContent as "an optional JSON object".
func (x *legacyExchange) toolResult(t *registeredTool, res *ToolResult, err error) (*ToolResult, error) {
	if err == nil && res != nil && (t.legacyDef != nil || !isObjectJSON(res.StructuredContent)) {
		res = legacyResult(res)
	}
	return res, err
}

// notify sends a notification related to the request through the
// requestScopedSender.
func (x *legacyExchange) notify(ctx context.Context, method string, params any) error {
	data, err := encodeRequest(nil, method, params)
	if err != nil {
		return err
	}
	return x.sender.notify(ctx, data)
}

// sessionCore serves the legacy era (2025-03-26 to 2025-11-25): each
// request within its session, questions asked live on the call's own
// stream, responses framed as plain JSON-RPC.
type sessionCore struct {
	d                  *dispatcher
	logger             *slog.Logger
	closing            *atomic.Bool // the server is shutting down
	maxCallsPerSession int          // Options.MaxCallsPerSession
}

// serve runs one request of a legacy session and queues its response
// on st, the stream of the POST (or stdio connection) that carried it. The
// handler's context ends with the session or a client
// notifications/cancelled, never with the connection (a disconnect is not a
// cancellation); it carries the request's values. A request the client
// cancelled gets no response; one past Options.MaxCallsPerSession is
// refused.
func (c *sessionCore) serve(ctx context.Context, sess *session, msg *message, st *stream,
	establish func(context.Context, SessionState) (*session, error)) {
	hctx, cancel := context.WithCancelCause(valuesFrom{sess.ctx, ctx})
	if e := sess.addInflight(msg.ID, cancel); e != nil {
		cancel(nil)
		st.respond(c.frame(msg.ID, failure(e)))
		return
	}
	c.serveInflight(hctx, cancel, sess, msg, st, establish)
}

// serveBatch runs the requests of a 2025-03-26 batch, each taking its turn
// for a place among the session's requests in flight, so that a batch never
// runs more than Options.MaxCallsPerSession calls at once.
func (c *sessionCore) serveBatch(ctx context.Context, sess *session, msgs []*message, st *stream) {
	for _, m := range msgs {
		hctx, cancel := context.WithCancelCause(valuesFrom{sess.ctx, ctx})
		if e := sess.addInflightWait(ctx, m.ID, cancel); e != nil {
			cancel(nil)
			st.respond(c.frame(m.ID, failure(e)))
			continue
		}
		go c.serveInflight(hctx, cancel, sess, m, st, nil)
	}
}

// errSessionBusy refuses a request past Options.MaxCallsPerSession.
func errSessionBusy(max int) *Error {
	return limitExceeded("MaxCallsPerSession", int64(max), fmt.Sprintf(
		"the session already has %d requests in flight (Options.MaxCallsPerSession); wait for one to finish", max))
}

// serveInflight serves a request recorded in the session's inflight calls.
func (c *sessionCore) serveInflight(hctx context.Context, cancel context.CancelCauseFunc, sess *session, msg *message, st *stream,
	establish func(context.Context, SessionState) (*session, error)) {
	ctx := hctx
	x := &legacyExchange{sess: sess, sender: requestScopedSender{sess: sess, origin: st}, establish: establish}
	o := c.run(hctx, x, msg)
	sess.removeInflight(msg.ID)
	cause := context.Cause(hctx)
	cancel(nil)
	switch {
	case cause == errClientCancelled: // the client cancelled it: no response
		c.logger.LogAttrs(ctx, slog.LevelDebug, "request cancelled by the client",
			slog.String("session", sess.id), slog.String("id", string(msg.ID)))
		st.answered()
		return
	case cause == ErrSessionNotFound && c.closing.Load():
		o = outcome{err: errShuttingDown, status: http.StatusServiceUnavailable}
	case cause == ErrSessionNotFound:
		o = failure(errSessionEnded)
	}
	st.respond(c.frame(msg.ID, o))
}

// errIDInFlight refuses a request whose ID the session already has in
// flight: JSON-RPC IDs identify a request for its answer and its
// cancellation, so the session never runs two under one ID.
func errIDInFlight(id []byte) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "request id " + clip(string(id), 64) +
		" is already in flight in this session; use a new id for each request"}
}

// errSessionEnded answers the requests still running when their session
// ended (DELETE, or the client showed no sign of life for
// SessionIdleTimeout), and those of a batch still waiting for room then.
var errSessionEnded = &Error{Code: CodeInternalError, Message: "the session ended (deleted, or idle past its timeout) while the request ran"}

// runLegacy serves msg through the method table and, for an initialize,
// establishes the session it negotiated before anything is answered.
func (c *sessionCore) run(ctx context.Context, x *legacyExchange, msg *message) outcome {
	rq := &x.rq
	*rq = request{id: msg.ID, method: msg.Method, params: msg.params(), era: x, msg: msg}
	if v := rq.params.ProtocolVersion; v != nil {
		x.requested = *v
	}
	o := c.d.serve(ctx, rq)
	if o.established != nil {
		sess, err := x.establish(ctx, *o.established)
		if err != nil {
			return outcome{err: errStoreUnavailable, status: http.StatusServiceUnavailable} // the transport logs err (createSessionError)
		}
		x.sess = sess
	}
	return o
}

// frameLegacy encodes a legacy response: the result as the method returned it.
// Only a server-side status (503 while shutting down, 500) travels with it:
// a session's JSON-RPC errors are 200, which the legacy SDKs read as
// errors, where a 4xx would be a transport failure to them.
func (c *sessionCore) frame(id json.RawMessage, o outcome) frame {
	b, err := encodeFramed(id, o, nil)
	if err != nil {
		c.logger.Error("encoding a result", slog.String("id", string(id)), slog.String("error", err.Error()))
	}
	status := o.status
	if status < 500 {
		status = 0
	}
	return frame{data: b, status: status}
}

// valuesFrom is a context with the lifetime of its embedded one and, besides
// the embedded one's values, those of values (the HTTP request's).
type valuesFrom struct {
	context.Context
	values context.Context
}

func (v valuesFrom) Value(key any) any {
	if x := v.Context.Value(key); x != nil {
		return x
	}
	return v.values.Value(key)
}
