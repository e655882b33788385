package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// Interceptor sits between the protocol and the handlers. Incoming wraps
// every request a client sends (every method, both eras, HTTP and stdio);
// Outgoing wraps every request a handler sends the client through its Call
// (elicitation/create, sampling/createMessage, roots/list); Observe is told
// of runtime events no request carries (sessions, streams, backpressure).
// Any of the three may be nil.
//
// Options.Interceptors run in order: the first is the outermost, so it sees
// a request first and its outcome last, like go-sdk's middleware and
// connect-go's interceptors. An Incoming interceptor may decorate the
// context it passes to next (the handler gets that context), or refuse the
// request by returning a Response of its own without calling next.
type Interceptor struct {
	Incoming func(next IncomingFunc) IncomingFunc
	Outgoing func(next OutgoingFunc) OutgoingFunc
	Observe  func(ctx context.Context, e Event)
}

// IncomingFunc serves one client request. It never returns nil.
type IncomingFunc func(ctx context.Context, req *IncomingRequest) *Response

// OutgoingFunc sends one server-to-client request and returns the client's
// result, or why there is none (see [AnswerOutcomeOf]).
type OutgoingFunc func(ctx context.Context, req *OutgoingRequest) (json.RawMessage, error)

// IncomingRequest describes a client request to interceptors. Treat it as
// read-only; raw fields alias the request and must not be modified.
type IncomingRequest struct {
	// ID is the JSON-RPC id, raw (a number or a string).
	ID json.RawMessage
	// Method is the JSON-RPC method, e.g. "tools/call".
	Method string
	// Name is params.name: the tool of a tools/call ("" when absent).
	Name string
	// Params is the params object as the client sent it (nil when absent).
	Params json.RawMessage
	// Meta is params._meta, each member raw (nil when absent). 2026-07-28
	// and the OpenTelemetry MCP conventions carry trace context here
	// ("traceparent", "tracestate", "baggage").
	Meta map[string]json.RawMessage
	// ProtocolVersion is the session's negotiated version (2025-03-26 to
	// 2025-11-25; for an initialize, the version the client requested)
	// or the 2026-07-28 request's own.
	ProtocolVersion string
	// SessionID is the legacy session ("" in 2026-07-28, which has none, and
	// for an initialize over HTTP, whose session starts after its method
	// ran). A stdio connection's session is named "stdio-...".
	SessionID string
	// Transport is "http" or "stdio".
	Transport string
	// HTTP is the HTTP request that carried the message (headers, remote
	// address, and the context values HTTP middleware set, such as an
	// authentication middleware of your own); nil over stdio. Do not read its body.
	HTTP *http.Request
	// Principal is who the request's access token speaks for, when the
	// server runs with Options.Auth (nil otherwise, and over stdio).
	Principal *Principal

	rq    *request
	known func(name string) bool
}

// Stateless reports whether the request belongs to 2026-07-28 (no session;
// questions to the client are input_required rounds).
func (r *IncomingRequest) Stateless() bool { return r.rq != nil && r.rq.era.kind() == modernEra }

// ToolRegistered reports whether Name is a tool the server has. Name comes
// from the client, so telemetry that groups by tool keeps its cardinality
// bounded by grouping only registered names.
func (r *IncomingRequest) ToolRegistered() bool {
	return r.Name != "" && r.known != nil && r.known(r.Name)
}

// Response is the outcome of an incoming request as interceptors see it.
// To refuse a request, return Refuse(err) instead of calling next.
type Response struct {
	// Error is the JSON-RPC error of the response; nil for a result.
	Error *Error
	// IsError: a tools/call result with isError set (the tool failed and
	// the model reads why).
	IsError bool
	// InputRequired: a 2026-07-28 round that ended with questions for the
	// client (resultType "input_required"); the client retries with the
	// answers.
	InputRequired bool
	// NoResponse: no response is sent (the client cancelled the request or
	// went away).
	NoResponse bool

	o   outcome
	set bool // o is the method's own outcome
}

// Refuse is a Response that answers with err instead of running the method.
func Refuse(err *Error) *Response { return &Response{Error: err} }

// OutgoingRequest describes a server-to-client request to interceptors.
type OutgoingRequest struct {
	// Method is "elicitation/create", "sampling/createMessage" or
	// "roots/list".
	Method string
	// Key names the question within its call ("confirm", "confirm_2", ...):
	// the input request key in 2026-07-28, stable across its rounds.
	Key string
	// Params is the request's params as they will be encoded.
	Params any
	// Parent is the client request whose handler asks.
	Parent *IncomingRequest
	// Meta are members an interceptor adds to the request's params._meta,
	// such as the trace context ("traceparent", "tracestate"). Only a
	// legacy session's live request carries them: a 2026-07-28 question
	// must be asked identically in every round (its requestState binds the
	// answer to a digest of its params), so it carries none.
	Meta map[string]string
	// Waited is set, once the request returns, for a 2026-07-28 answer that
	// the retry brought: how long the user took, from the end of the round
	// that asked (its time travels sealed in requestState) to this retry.
	// It is 0 in legacy sessions, where the request itself lasts that long.
	Waited time.Duration

	peer peer
}

// Event is something that happened outside any one request.
type Event struct {
	Kind EventKind
	// SessionID and ProtocolVersion name the legacy session (empty for a
	// 2026-07-28 subscriptions/listen stream).
	SessionID       string
	ProtocolVersion string
	// Transport is "http" or "stdio".
	Transport string
	// Stream is the kind of stream of StreamOpened/StreamClosed: "sse" (a
	// legacy GET or POST event stream while a connection writes it) or
	// "listen" (a 2026-07-28 subscriptions/listen stream).
	Stream string
	// Duration is how long a sender waited for room (BackpressureWaited) or
	// how long the session lived (SessionClosed).
	Duration time.Duration
}

// EventKind names an Event.
type EventKind uint8

const (
	SessionOpened      EventKind = iota + 1 // a legacy session started (initialize answered)
	SessionClosed                           // it ended (DELETE, expiry, shutdown, stdio EOF)
	StreamOpened                            // a stream began carrying messages
	StreamClosed                            // it stopped
	BackpressureWaited                      // a sender waited for room in a full stream buffer
)

// AnswerOutcome classifies how a server-to-client request ended.
type AnswerOutcome string

const (
	AnswerAnswered      AnswerOutcome = "answered"       // a result (an accepted elicitation, a sampling result, roots)
	AnswerDeclined      AnswerOutcome = "declined"       // the user declined the elicitation
	AnswerCancelled     AnswerOutcome = "cancelled"      // the user dismissed it
	AnswerExpired       AnswerOutcome = "expired"        // the wait ended (RequestTimeout, the call's context) first
	AnswerInputRequired AnswerOutcome = "input_required" // 2026-07-28: asked; the round ends and the client answers in its retry
	AnswerFailed        AnswerOutcome = "failed"         // the client answered with an error, or sending failed
)

// AnswerOutcomeOf classifies the return of an OutgoingFunc. In 2026-07-28 a
// question first reports AnswerInputRequired (the round ends with it); the
// retry that carries the answer reports that answer at once, with the time
// the user took in OutgoingRequest.Waited.
func AnswerOutcomeOf(method string, result json.RawMessage, err error) AnswerOutcome {
	switch {
	case err == nil:
	case errors.Is(err, ErrInputRequired):
		return AnswerInputRequired
	case errors.Is(err, ErrExpired), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return AnswerExpired
	default:
		return AnswerFailed
	}
	if method != methodElicit {
		return AnswerAnswered
	}
	var r struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal(result, &r)
	switch r.Action {
	case "decline":
		return AnswerDeclined
	case "cancel":
		return AnswerCancelled
	case "accept":
		return AnswerAnswered
	}
	return AnswerFailed
}
