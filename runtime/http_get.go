package runtime

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// serveGET opens the session's standalone stream, or resumes a stream after
// Last-Event-ID: the events the client missed are replayed, then the stream
// goes on live.
func (t *httpTransport) serveGET(w http.ResponseWriter, r *http.Request) {
	if _, sseOK := accepts(r); !sseOK {
		writeError(w, http.StatusNotAcceptable, nil, &Error{Code: CodeInvalidRequest, Message: "Accept must include text/event-stream"})
		return
	}
	id := r.Header.Get(headerSessionID)
	if id == "" {
		writeError(w, http.StatusBadRequest, nil, &Error{Code: CodeInvalidRequest, Message: "missing " + headerSessionID})
		return
	}
	version, ok := t.versionHeaderOK(r)
	if !ok {
		writeError(w, http.StatusBadRequest, nil, &Error{Code: CodeInvalidRequest, Message: "unsupported " + headerProtocolVersion + ": " + version})
		return
	}
	last := r.Header.Get(headerLastEventID)
	routes, _ := t.opts.bus.(GETRoutes)
	var sess *session
	var err error
	if routes != nil && last == "" {
		sess, err = t.sessions.lookupHeldSession(r.Context(), id) // HoldGET checks the session
	} else {
		sess, err = t.sessions.lookupSession(r.Context(), id)
	}
	if err != nil {
		t.sessionError(w, nil, err)
		return
	}
	defer sess.release(sess.hold(r.Context()))
	caller := sessionCaller(r.Context(), sess)
	if e := t.d.streams.take(caller, 1); e != nil {
		w.Header().Set("Retry-After", retryAfterSeconds)
		writeError(w, limitStatus, nil, e)
		return
	}
	defer t.d.streams.give(caller, 1)
	ctx := r.Context()
	sw := newSSEWriter(w)
	if last != "" {
		streamID, ok := t.sessions.events.StreamOf(sess.id, last)
		if !ok {
			writeError(w, http.StatusBadRequest, nil, &Error{Code: CodeInvalidRequest, Message: "unknown or expired Last-Event-ID"})
			return
		}
		sw.start(sess.id)
		st := sess.stream(streamID)
		if st == nil { // finished and fully written: the store has it all
			_, _ = t.sessions.events.Replay(ctx, sess.id, last, sw.event)
			return
		}
		gen, takeover, err := st.resume(ctx, sw, last)
		if err != nil {
			st.detach(gen)
			return
		}
		st.pump(ctx, sw, gen, takeover, t.opts.keepAlive)
		return
	}
	st := sess.standaloneStream()
	if routes != nil {
		msgs, release, err := routes.HoldGET(ctx, sess.id)
		if err != nil {
			if errors.Is(err, ErrSessionNotFound) {
				t.sessions.endedElsewhere(sess)
			}
			t.sessionError(w, nil, err)
			return
		}
		sess.kept.Store(time.Now().UnixNano())
		t.sessions.forward(ctx, msgs, release, st)
	}
	sw.start(sess.id)
	gen, takeover := st.attach()
	sess.getStreamOpened()
	if routes == nil {
		t.sessions.forwardBus(ctx, sess, st)
	}
	if sess.version() >= Version20251125 {
		if err := st.prime(ctx, sw); err != nil {
			st.detach(gen)
			return
		}
	}
	st.pump(ctx, sw, gen, takeover, t.opts.keepAlive)
}

// sessionCaller is the caller of a request of legacy session sess.
func sessionCaller(ctx context.Context, sess *session) string {
	if k := principalKeyOf(ctx); k != "" {
		return "p:" + k
	}
	return sess.caller()
}
