package runtime

import (
	"context"
	"errors"
	"fmt"
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
	e    *Elicitation
	call *Call
	mode urlMode
}

// urlMode is URL-mode elicitation as the call's era has it (peer.urlMode).
type urlMode struct {
	// supported is false where the protocol version has no URL mode
	// (legacy sessions before 2025-11-25).
	supported bool
	// id is a new elicitationId ("" in 2026-07-28, which has none).
	id string
	// session is the legacy session that can be told the step finished
	// ("" where none can: 2026-07-28, a detached call); stored is false for a stdio
	// connection's, which no other replica can find.
	session string
	stored  bool
	// completer sends notifications/elicitation/complete to that session.
	completer urlCompleter
}

// urlCompleter tells a legacy session that a URL-mode elicitation's
// out-of-band step finished.
type urlCompleter interface {
	completeURL(ctx context.Context, id string) error
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
	mode := c.peer.urlMode()
	if !mode.supported || !c.peer.capabilities().elicitURL() {
		return nil, &CapabilityError{Capability: "elicitation.url", detail: fmt.Sprintf("elicitation (URL mode), for %q", e.Name)}
	}
	return &URLElicitation{e: e, call: c, mode: mode}, nil
}

func nameOf(e *Elicitation) string {
	if e == nil {
		return ""
	}
	return e.Name
}

// ID is the elicitationId ("" in 2026-07-28, which has none).
func (u *URLElicitation) ID() string { return u.mode.id }

// Ref names the elicitation for CompleteURLElicitation; false in
// 2026-07-28, where the client learns the outcome by retrying the call, and
// over stdio, whose session is in no store (use Complete).
func (u *URLElicitation) Ref() (URLElicitationRef, bool) {
	if u.mode.id == "" || u.mode.session == "" || !u.mode.stored {
		return URLElicitationRef{}, false
	}
	return URLElicitationRef{SessionID: u.mode.session, ElicitationID: u.mode.id}, true
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
	return urlParams{Mode: "url", Message: message, URL: url, ElicitationID: u.mode.id}
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
	keys := make([]string, len(needs))
	list := make([]urlParams, len(needs))
	for i, n := range needs {
		keys[i], list[i] = c.key(n.Elicitation.e.Name), n.Elicitation.params(n.Message, n.URL)
	}
	return c.peer.requireURL(keys, list)
}

// urlRequiredError is URLElicitationRequiredError (-32042), the legacy
// era's way to end a call that needs URL elicitations completed first.
func urlRequiredError(list []urlParams) *Error {
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

// Complete is CompleteURLElicitation on the replica (or stdio connection)
// that started the elicitation, with no lookup: what a handler that waits
// for the out-of-band step itself calls. In 2026-07-28 it returns
// ErrNoCompletion: the client learns the outcome by retrying the call.
func (u *URLElicitation) Complete(ctx context.Context) error {
	if u.mode.completer == nil || u.mode.id == "" {
		return ErrNoCompletion
	}
	return u.mode.completer.completeURL(ctx, u.mode.id)
}

// ErrNoCompletion: 2026-07-28 has no notifications/elicitation/complete.
var ErrNoCompletion = errors.New("mcpgen: 2026-07-28 has no elicitation completion (the client retries the call)")
