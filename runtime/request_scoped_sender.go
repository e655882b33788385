package runtime

import (
	"context"
	"errors"
)

// requestScopedSender is the outbox of one incoming request. Everything its
// handler sends through the call handle (elicitation, sampling, roots,
// progress, logs) rides the stream that will carry the request's response,
// in order. The session's standalone GET stream (or a bounded wait for one)
// is only a fallback for when that stream is finished or the client did not
// accept SSE on it, never an overflow: a full stream makes the sender wait
// (backpressureWait), and a caller whose context has ended sends nothing.
type requestScopedSender struct {
	sess   *session
	origin *stream // the request's own stream; nil when it has none
	// sent, when set, is told that a message went out (a session's own
	// roots fetch waits for its answer only once it did).
	sent func()
}

// send queues data and returns the stream it went out on, so that a
// follow-up about the same message (notifications/cancelled) takes the same
// route.
func (r *requestScopedSender) send(ctx context.Context, data []byte) (*stream, error) {
	st, err := r.route(ctx, data)
	if err == nil && r.sent != nil {
		r.sent()
	}
	return st, err
}

func (r *requestScopedSender) route(ctx context.Context, data []byte) (*stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o := r.origin; o != nil && o.sse {
		err := o.push(ctx, data)
		if !errors.Is(err, errStreamFinished) {
			return o, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return r.sess.sendStandalone(ctx, data, r.sess.table.opts.fallbackWait)
}

// notify is send for a notification the client can do without (progress,
// logs): on the request's own stream like any message, and otherwise on a
// GET stream open now, never waiting for one. On a request whose client
// takes JSON only, a notification with no GET stream open anywhere is
// dropped: the handler is not held up and its call does not fail for want
// of a route. On a request whose event stream the client left (abandoned,
// or the session ended), it fails with errNoRoute instead, as every send of
// the call does, so that a handler may stop work nobody will receive.
func (r *requestScopedSender) notify(ctx context.Context, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if o := r.origin; o != nil && o.sse {
		err := o.push(ctx, data)
		if !errors.Is(err, errStreamFinished) {
			return err
		}
		_, err = r.sess.sendStandalone(ctx, data, 0)
		return err
	}
	return r.sess.notifyStandalone(ctx, data)
}

// routeName names a stream for logs: "post:<id>", "get:<id>" or "stdio".
func routeName(st *stream) string {
	switch {
	case st == nil:
		return "none"
	case st.stdio:
		return "stdio"
	case st.isBus:
		return "bus"
	case st.standalone:
		return "get:" + st.id
	default:
		return "post:" + st.id
	}
}
