package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// servePOST serves one POST: checks, then initialize, answers and
// notifications (202), or requests answered as JSON or an event stream.
func (t *httpTransport) servePOST(w http.ResponseWriter, r *http.Request) {
	body := t.readBody(w, r)
	if body == nil {
		return
	}
	msgs, bad, batch, perr := readMessages(body)
	var id json.RawMessage
	if !batch && len(msgs) == 1 {
		id = msgs[0].ID
	}
	if !isJSONContentType(r) {
		writeError(w, http.StatusUnsupportedMediaType, id, &Error{Code: CodeInvalidRequest, Message: "Content-Type must be application/json"})
		return
	}
	jsonOK, sseOK := accepts(r)
	if !jsonOK && !sseOK {
		writeError(w, http.StatusNotAcceptable, id, &Error{Code: CodeInvalidRequest, Message: "Accept must include application/json and text/event-stream"})
		return
	}
	if perr != nil {
		writeError(w, http.StatusBadRequest, nil, perr)
		return
	}
	if !batch && bad[0] != nil {
		writeError(w, http.StatusBadRequest, id, bad[0])
		return
	}
	if t.auth != nil && t.auth.refuseMissingScopes(w, r, msgs, t.d) {
		return
	}
	sessionID := r.Header.Get(headerSessionID)
	if !batch && sessionID == "" && t.isModernHTTP(r, msgs[0]) {
		t.serveModernHTTP(w, r, msgs[0])
		return
	}
	if version, ok := t.versionHeaderOK(r); !ok {
		writeError(w, http.StatusBadRequest, id, &Error{Code: CodeInvalidRequest, Message: "unsupported " + headerProtocolVersion + ": " + version})
		return
	}
	if !batch && msgs[0].Method == methodInitialize && msgs[0].isRequest() {
		t.serveInitialize(w, r, msgs[0])
		return
	}
	if sessionID == "" {
		writeError(w, http.StatusBadRequest, id, &Error{Code: CodeInvalidRequest, Message: "missing " + headerSessionID + "; send initialize first"})
		return
	}
	sess, err := t.sessions.lookupSession(r.Context(), sessionID)
	if err != nil {
		t.sessionError(w, id, err)
		return
	}
	defer sess.release(sess.hold(r.Context()))
	// A supported MCP-Protocol-Version other than the negotiated one is
	// accepted (only invalid or unsupported values are 400), as the TS SDK does.
	sv := sess.version()
	if batch && sv != Version20250326 {
		writeError(w, http.StatusBadRequest, nil, &Error{Code: CodeInvalidRequest, Message: "JSON-RPC batches are not allowed in protocol version " + sv})
		return
	}
	t.serveMessages(w, r, sess, msgs, bad, batch, jsonOK, sseOK)
}

// serveInitialize answers an initialize, which has no session yet, as JSON:
// the legacy era creates the session it negotiates and the response names it
// in Mcp-Session-Id.
func (t *httpTransport) serveInitialize(w http.ResponseWriter, r *http.Request, msg *message) {
	var createErr error
	x := &legacyExchange{establish: func(ctx context.Context, st SessionState) (*session, error) {
		st.Caller = t.clients.callerOf(r)
		sess, err := t.sessions.createSession(ctx, st)
		createErr = err
		return sess, err
	}}
	o := t.legacy.run(r.Context(), x, msg)
	if createErr != nil {
		t.createSessionError(w, msg.ID, createErr)
		return
	}
	f := t.legacy.frame(msg.ID, o)
	if o.err != nil {
		writeJSONStatus(w, f.status, "", f.data)
		return
	}
	writeJSON(w, x.sess.id, f.data)
}

// serveMessages handles the messages of one POST of a session.
func (t *httpTransport) serveMessages(w http.ResponseWriter, r *http.Request, sess *session, msgs []*message, bad []*Error, batch, jsonOK, sseOK bool) {
	requests := 0
	var refused []byte
	status := http.StatusAccepted
	for i, m := range msgs {
		switch {
		case bad[i] != nil || m.isRequest():
			requests++
		case m.isNotification():
			t.sessions.serveNotification(sess, m)
		default:
			res, err := t.sessions.serveAnswer(sess, m)
			switch {
			case err != nil:
				refused = encodeError(m.ID, errStoreUnavailable) // serveAnswer logged err
				status = http.StatusServiceUnavailable
				w.Header().Set("Retry-After", storeRetryAfterSeconds)
			case res == Expired:
				refused = encodeError(m.ID, &Error{Code: CodeRequestExpired, Message: "request expired: the server stopped waiting for this answer"})
				status = http.StatusGone
			case res == Unknown:
				refused = encodeError(m.ID, &Error{Code: CodeUnknownResponseID, Message: "unknown request ID: this session sent no request with this ID"})
				status = http.StatusBadRequest
			}
		}
	}
	if requests == 0 {
		if refused != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write(refused)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m := msgs[0]; !batch && m.isRequest() {
		t.serveOne(w, r, sess, m, jsonOK, sseOK)
		return
	}
	ctx := context.WithoutCancel(r.Context())
	st := sess.newStream(requests, sseOK, false)
	calls := make([]*message, 0, requests)
	for i, m := range msgs {
		switch {
		case bad[i] != nil:
			st.respond(frame{data: encodeError(m.ID, bad[i])})
		case m.isRequest():
			calls = append(calls, m)
		}
	}
	go t.legacy.serveBatch(ctx, sess, calls, st)
	t.writePOST(w, r, sess, st, batch, jsonOK)
}

// serveOne runs a POST's single request on the request's own goroutine.
// The response is written by this goroutine as JSON when the handler sent
// nothing else; the first other message starts a writer goroutine that
// upgrades the response to an event stream, and this goroutine waits for it
// before returning.
func (t *httpTransport) serveOne(w http.ResponseWriter, r *http.Request, sess *session, m *message, jsonOK, sseOK bool) {
	st := sess.newStream(1, sseOK, false)
	var writerDone chan struct{}
	st.startWriter = func() {
		writerDone = make(chan struct{})
		go func() {
			defer close(writerDone)
			t.writePOST(w, r, sess, st, false, jsonOK)
		}()
	}
	var upgrade *time.Timer
	if d := t.opts.streamAfter; d > 0 && sseOK {
		upgrade = time.AfterFunc(d, func() {
			st.writerOnce.Do(st.startWriter)
			st.q.tryPush(frame{}) // no data: only makes the writer upgrade
		})
	}
	t.legacy.serve(context.WithoutCancel(r.Context()), sess, m, st, nil)
	if upgrade != nil {
		upgrade.Stop()
	}
	st.writerOnce.Do(func() {}) // no writer starts from now on
	if writerDone != nil {
		<-writerDone
		return
	}
	t.writePOST(w, r, sess, st, false, jsonOK)
}

// writePOST writes the response of a POST: plain JSON while only responses
// come, upgraded to an event stream the moment the handler sends anything
// else (or at once when the client accepts no JSON).
func (t *httpTransport) writePOST(w http.ResponseWriter, r *http.Request, sess *session, st *stream, batch, jsonOK bool) {
	var held []frame
	for {
		f, ok, wait := st.q.pop()
		if !ok {
			if st.q.drained() {
				break
			}
			select {
			case <-wait:
				continue
			case <-r.Context().Done():
				// The client went away before anything but responses came: nothing
				// can resume this stream, so later sends fall back to GET.
				st.q.finish()
				return
			}
		}
		if f.final && jsonOK {
			held = append(held, f)
			if !batch {
				break
			}
			continue
		}
		// Upgrade to an event stream.
		sw := newSSEWriter(w)
		sw.start(sess.id)
		st.markUpgraded()
		gen, takeover := st.attach()
		if sess.version() >= Version20251125 {
			if err := st.prime(r.Context(), sw); err != nil {
				st.q.unpop(f)
				st.detach(gen)
				return
			}
		}
		st.q.unpop(f)
		for i := len(held) - 1; i >= 0; i-- {
			st.q.unpop(held[i])
		}
		st.pump(r.Context(), sw, gen, takeover, t.opts.keepAlive)
		return
	}
	switch {
	case len(held) == 0:
		w.WriteHeader(http.StatusAccepted)
	case !batch:
		writeJSONStatus(w, held[0].status, "", held[0].data)
	default:
		b := []byte{'['}
		for i, f := range held {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, f.data...)
		}
		writeJSON(w, "", append(b, ']'))
	}
}
