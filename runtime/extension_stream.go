package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// A method may hold its request open for as long as the client listens
// and deliver notifications on the request's own response stream, the way
// subscriptions/listen does: an event stream over HTTP in both eras (the
// POST's, in a legacy session), lines over stdio. The request counts as a
// stream of its caller (Options.MaxGETStreams and its share, 429 past
// them), lets go of its body, and is kept alive; when the server shuts
// down gracefully the method returns its final result, and when the client
// goes away its context ends.

// Stream is the response stream of a long-lived request (Method.Stream).
type Stream struct {
	out     responseStream
	closing <-chan struct{}
}

// Send sends a notification on the request's own stream, waiting for room
// when the client reads slowly (bounded by ctx). An error means the stream
// can carry nothing more (the client went away): return.
func (s *Stream) Send(ctx context.Context, method string, params any) error {
	if method == "" {
		return errors.New("Stream.Send: a method is required")
	}
	return s.out.notify(ctx, method, params)
}

// Closing is closed when the server shuts down gracefully (Shutdown, or
// Serve's context ending): the method returns its final result then,
// which the client gets as the stream's last message.
func (s *Stream) Closing() <-chan struct{} { return s.closing }

// streamKeepAlive is how often a quiet 2026-07-28 stream gets a keep-alive
// (an SSE comment over HTTP), so that proxies do not close it; a legacy
// POST stream gets Options.KeepAlive's comments from its writer.
const streamKeepAlive = listenKeepAlive

// errStreamGone answers, for the log, a legacy stream request whose client
// stopped reading it for good.
var errStreamGone = &Error{Code: CodeInternalError, Message: "the stream ended: its client stopped reading it"}

// streamRow makes the row of a Stream method serve it.
func (m Method) streamRow(ext string, r *methodRow) {
	r.cost = bookkeeping // it takes a stream slot instead
	r.serve = func(d *dispatcher, ctx context.Context, rq *request) (o outcome) {
		defer func() {
			if v := recover(); v != nil {
				d.extensionPanicked(ctx, ext, m.Name, v)
				o = failure(errExtensionPanic)
			}
		}()
		out := rq.era.responseStream()
		if out == nil || !out.canStream() {
			return outcome{err: NewError(CodeInvalidRequest, "%s answers with an event stream; accept text/event-stream", m.Name),
				status: http.StatusNotAcceptable}
		}
		release, refused := d.admitListen(callerOf(ctx, rq.era))
		if refused != nil {
			return *refused
		}
		defer release()
		req := d.methodRequest(ctx, rq.msg, rq.era)
		req.Params = append([]byte(nil), req.Params...)
		req.ID = append(json.RawMessage(nil), req.ID...)
		req.call = func() *Call {
			r, e := d.openMethodRound(ctx, rq, m)
			if e != nil {
				return nil
			}
			return r.call
		}
		req.Call() // before the body goes
		// The stream may stay open for hours: it keeps what it needs and
		// lets the request's body go.
		rq.detach()
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if o, ok := out.(interface{ ended() <-chan struct{} }); ok {
			go func() {
				select {
				case <-o.ended():
					cancel()
				case <-sctx.Done():
				}
			}()
		}
		if err := out.keepAlive(); err != nil { // opens the stream at once
			return outcome{none: true}
		}
		defer d.icpt.observeStream(ctx, m.Name, transportOf(ctx))()
		if rq.era.kind() == modernEra {
			go keepStreamAlive(sctx, cancel, out)
		}
		res, err := m.Stream(sctx, req, &Stream{out: out, closing: d.listeners.closed})
		if sctx.Err() != nil {
			if rq.era.kind() == modernEra {
				return outcome{none: true} // the client went away: nothing more is sent
			}
			if ctx.Err() == nil {
				return failure(errStreamGone)
			}
		}
		if err != nil {
			return failure(asError(err))
		}
		return d.methodOutcome(m.Name, res)
	}
}

// keepStreamAlive sends keep-alives on a quiet 2026-07-28 stream until ctx
// ends; one that fails ends the stream.
func keepStreamAlive(ctx context.Context, cancel context.CancelFunc, out responseStream) {
	t := time.NewTicker(streamKeepAlive)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if out.keepAlive() != nil {
				cancel()
				return
			}
		}
	}
}
