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
}

// send queues data and returns the stream it went out on, so that a
// follow-up about the same message (notifications/cancelled) takes the same
// route.
func (r *requestScopedSender) send(ctx context.Context, data []byte) (*stream, error) {
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
	return r.sess.sendStandalone(ctx, data, r.sess.srv.opts.FallbackWait)
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
