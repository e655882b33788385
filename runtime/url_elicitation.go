package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/reqstate"
)

// URL-mode elicitation sends the user to a URL for a step the client must
// not see (credentials, payment, third-party OAuth). The client's "accept"
// only means the user agreed to open it; the step itself finishes out of
// band, and the two protocol generations learn about that differently:
//
//   - 2025-11-25: the elicitation carries an elicitationId. The server MAY
//     send notifications/elicitation/complete with that ID to the client
//     that initiated it, once the step finished (CompleteURLElicitation,
//     from any replica). A call that cannot proceed before the step can
//     instead fail with URLElicitationRequiredError, -32042, listing the URL
//     elicitations in error.data.elicitations (Call.RequireURL); the client
//     retries the call after completing them.
//   - 2026-07-28 removes both the ID and the notification, and reserves
//     -32042 (implementations MUST NOT emit it). The URL request rides an
//     input_required result (multi round-trip), the client's answer comes
//     back on the retry, and "the server determines from the echoed
//     requestState (or its own stored state) whether the out-of-band
//     interaction has completed, and either returns the final result or
//     responds with another InputRequiredResult". So Call.RequireURL ends
//     the round with the URL elicitations as input requests (asked again on
//     every retry that still needs them), the handler carries its own
//     correlation value across rounds with Call.SetState, and there is no
//     completion to send.

// URLElicitation is one URL-mode elicitation of a call: the handle that asks
// the client to open the URL (Ask), lists it in -32042 or an input_required
// round (RequireURL), and completes it (Complete here, or Ref and
// Server.CompleteURLElicitation anywhere).
type URLElicitation struct {
	e       *Elicitation
	call    *Call
	id      string   // elicitationId; "" in 2026-07-28
	session string   // the legacy session that initiated it
	sess    *session // that session, for Complete
}

// URLElicitationRef names a 2025-11-25 URL-mode elicitation for
// CompleteURLElicitation: plain strings, to keep with the out-of-band flow's
// own state (the OAuth state parameter, a database row) and use from any
// replica that shares the session store.
type URLElicitationRef struct {
	SessionID     string `json:"sessionId"`
	ElicitationID string `json:"elicitationId"`
}

// NewURLElicitation starts URL-mode elicitation e in this call: in
// 2025-11-25 it mints the elicitationId (ID; put it in the URL if the
// out-of-band step needs to find the elicitation again). It needs a client
// that declared elicitation.url (a CapabilityError otherwise, which the call
// answers with -32021), and a session of 2025-11-25 or later: URL mode does
// not exist in 2025-06-18 and earlier.
func (c *Call) NewURLElicitation(e *Elicitation) (*URLElicitation, error) {
	if e == nil || e.Mode != "url" {
		return nil, fmt.Errorf("NewURLElicitation: elicitation %q is not URL mode", nameOf(e))
	}
	caps := c.peer.capabilities()
	if lp, ok := c.peer.(*legacyPeer); ok && lp.x.sess.version() < Version20251125 {
		caps.Elicitation = nil
	}
	if !caps.elicitURL() {
		return nil, &CapabilityError{Capability: "elicitation.url", detail: fmt.Sprintf("elicitation (URL mode), for %q", e.Name)}
	}
	u := &URLElicitation{e: e, call: c, id: c.peer.elicitationID()}
	if lp, ok := c.peer.(*legacyPeer); ok {
		u.session, u.sess = lp.x.sess.id, lp.x.sess
	}
	return u, nil
}

func nameOf(e *Elicitation) string {
	if e == nil {
		return ""
	}
	return e.Name
}

// ID is the elicitationId ("" in 2026-07-28, which has none).
func (u *URLElicitation) ID() string { return u.id }

// Ref names the elicitation for CompleteURLElicitation; false in
// 2026-07-28, where the client learns the outcome by retrying the call, and
// over stdio, whose session is in no store (use Complete).
func (u *URLElicitation) Ref() (URLElicitationRef, bool) {
	if u.id == "" || u.session == "" || u.sess.stdio {
		return URLElicitationRef{}, false
	}
	return URLElicitationRef{SessionID: u.session, ElicitationID: u.id}, true
}

// urlParams is ElicitRequestURLParams.
type urlParams struct {
	Mode          string `json:"mode"`
	Message       string `json:"message"`
	URL           string `json:"url"`
	ElicitationID string `json:"elicitationId,omitempty"`
}

func (u *URLElicitation) params(message, url string) urlParams {
	if message == "" {
		message = u.e.Message
	}
	return urlParams{Mode: "url", Message: message, URL: url, ElicitationID: u.id}
}

// Ask asks the client to open url (elicitation/create, URL mode): a live
// request in a legacy session, an input request in 2026-07-28. nil means the
// user agreed to open it, not that the step finished; ErrDeclined and
// ErrCancelled report the other answers. message "" uses the declared one.
func (u *URLElicitation) Ask(ctx context.Context, message, url string) error {
	if url == "" {
		return fmt.Errorf("elicitation %q: the URL is empty", u.e.Name)
	}
	_, err := u.call.ask(ctx, u.call.key(u.e.Name), u.params(message, url))
	return err
}

// URLNeed is one URL-mode elicitation the user must complete before a call
// can proceed: its handle, the message (""uses the declared one) and the URL.
type URLNeed struct {
	Elicitation *URLElicitation
	Message     string
	URL         string
}

// RequireURL returns the error that ends the call because the user must
// complete needs first. In 2025-11-25 it is URLElicitationRequiredError
// (-32042) with every need in data.elicitations (mode, elicitationId, url,
// message); the client retries the call after completing them. In
// 2026-07-28 it ends the round as input_required with the needs as
// elicitation/create input requests, asked again on every retry that still
// needs them: the handler checks, on each retry, whether the step finished
// (from its own store, or what it saved with SetState) and only then stops
// calling RequireURL.
func (c *Call) RequireURL(needs ...URLNeed) error {
	if len(needs) == 0 {
		return errors.New("RequireURL: no URL elicitation given")
	}
	for _, n := range needs {
		if n.Elicitation == nil || n.Elicitation.call != c {
			return errors.New("RequireURL: the elicitation was not started in this call (NewURLElicitation)")
		}
		if n.URL == "" {
			return fmt.Errorf("RequireURL: elicitation %q: the URL is empty", n.Elicitation.e.Name)
		}
	}
	if mp, ok := c.peer.(*mrtrPeer); ok {
		for _, n := range needs {
			mp.require(c.key(n.Elicitation.e.Name), methodElicit, n.Elicitation.params(n.Message, n.URL))
		}
		return fmt.Errorf("%w: URL elicitation required", ErrInputRequired)
	}
	list := make([]urlParams, len(needs))
	for i, n := range needs {
		list[i] = n.Elicitation.params(n.Message, n.URL)
	}
	return &Error{
		Code:    CodeURLElicitationRequired,
		Message: "This request requires the user to complete a URL elicitation first.",
		Data: struct {
			Elicitations []urlParams `json:"elicitations"`
		}{list},
	}
}

// ErrUnknownElicitation: CompleteURLElicitation names a session that this
// server (or its shared store) does not hold.
var ErrUnknownElicitation = errors.New("mcpgen: no session for this URL elicitation")

// CompleteURLElicitation tells the client that initiated a 2025-11-25
// URL-mode elicitation that its out-of-band step finished
// (notifications/elicitation/complete with its elicitationId). It may run
// on any replica that shares the session store and bus: the notification
// goes out on the session's GET stream, the one of this replica or, through
// the SessionBus, of the replica holding it (waiting up to
// Options.FallbackWait for one). A stdio connection's session is in no
// store: complete its elicitations with URLElicitation.Complete. The specification makes the notification optional (MAY) and
// clients ignore IDs they do not know, so a completion for an ended session
// returns ErrUnknownElicitation and nothing is sent.
func (s *Server) CompleteURLElicitation(ctx context.Context, ref URLElicitationRef) error {
	if ref.SessionID == "" || ref.ElicitationID == "" {
		return errors.New("CompleteURLElicitation: the reference needs a session ID and an elicitation ID")
	}
	s.smu.RLock()
	sess := s.sessions[ref.SessionID]
	s.smu.RUnlock()
	if sess == nil {
		var err error
		if sess, err = s.lookupSession(ctx, ref.SessionID); err != nil {
			return fmt.Errorf("%w: %v", ErrUnknownElicitation, err)
		}
	}
	return sess.completeURL(ctx, ref.ElicitationID)
}

// Complete is CompleteURLElicitation on the replica (or stdio connection)
// that started the elicitation, with no lookup: what a handler that waits
// for the out-of-band step itself calls. In 2026-07-28 it returns
// ErrNoCompletion: the client learns the outcome by retrying the call.
func (u *URLElicitation) Complete(ctx context.Context) error {
	if u.sess == nil || u.id == "" {
		return ErrNoCompletion
	}
	return u.sess.completeURL(ctx, u.id)
}

// ErrNoCompletion: 2026-07-28 has no notifications/elicitation/complete.
var ErrNoCompletion = errors.New("mcpgen: 2026-07-28 has no elicitation completion (the client retries the call)")

// completeURL sends notifications/elicitation/complete for id on the
// session's GET stream (through the bus when another replica holds it), or
// on the stdio connection.
func (sess *session) completeURL(ctx context.Context, id string) error {
	data, err := encodeRequest(nil, methodElicitComplete, struct {
		ElicitationID string `json:"elicitationId"`
	}{id})
	if err != nil {
		return err
	}
	if out := sess.stdioOutput(); out != nil {
		return out.push(ctx, data)
	}
	_, err = sess.sendStandalone(ctx, data, sess.srv.opts.FallbackWait)
	return err
}

// require records a question even when this round has its answer: the
// handler found the answer not enough yet (RequireURL: the out-of-band
// step has not finished), so the client is asked again.
func (p *mrtrPeer) require(key, method string, params any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked[key] = inputRequest{Method: method, Params: params, digest: reqstate.QuestionDigest(method, params)}
}

// stdioOutput is the connection's output stream of a stdio session, or nil.
func (sess *session) stdioOutput() *stream {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.stdioOut
}

// reservedInModern keeps -32042 off the 2026-07-28 wire, which reserves it
// ("MUST NOT emit"): a handler that returns it as a *Error of its own
// (rather than through RequireURL) gets an internal error saying so.
func reservedInModern(tool string, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Code == CodeURLElicitationRequired {
		return NewError(CodeInternalError, "tool %q returned URLElicitationRequiredError (-32042), which 2026-07-28 reserves; use Call.RequireURL", tool)
	}
	return err
}
