package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
)

// request is one client request as its method sees it, whichever transport
// carried it and whichever era it belongs to.
type request struct {
	id     json.RawMessage
	method string
	params *requestParams
	era    era
	// out is the request's own response stream in 2026-07-28, whose
	// subscriptions/listen sends notifications of its own; nil in the legacy
	// era, where notifications ride the call's requestScopedSender.
	out responseStream
	// msg is the message that carried the request (its raw params, for
	// interceptors).
	msg *message
	// incoming is the request as interceptors see it, when there are any.
	incoming *IncomingRequest
}

// detach lets a request that lives long (a listen stream, for hours) stop
// holding the body it arrived in: its ID is copied, and the raw members of
// its message and params, which point into the body, are dropped. What the
// method already decoded stays.
func (rq *request) detach() {
	rq.id = bytes.Clone(rq.id)
	if m := rq.msg; m != nil {
		m.ID, m.Params, m.Result = rq.id, nil, nil
		p := &m.decoded
		p.Name, p.Arguments, p.InputResponses, p.Ref, p.Argument, p.Context = nil, nil, nil, nil, nil, nil
		p.RequestID, p.Capabilities, p.ClientInfo, p.Meta, p.ProgressToken, p.NotifyFilter = nil, nil, nil, nil, nil, nil
	}
	if in := rq.incoming; in != nil {
		in.ID, in.Params, in.Meta = rq.id, nil, nil
	}
}

// era is what differs between the protocol generations, as a method needs
// it; methods call it and never ask which era they serve. The peer that
// openRound returns carries the client's facts (session or _meta) and asks
// it questions (live, or as an input_required round); the era's serve
// function (serveLegacy, serveModern) frames the method's outcome and
// answers for the methods the era lacks.
type era interface {
	kind() eraKind
	// version is the request's protocol version: the session's, or the
	// 2026-07-28 request's own ("" for an initialize over HTTP, which has
	// no session yet).
	version() string
	// clientCapabilities are what the client declared: in its initialize,
	// or in the request's _meta.
	clientCapabilities() ClientCapabilities
	// sessionID is the legacy session's ID ("" in 2026-07-28, and for an
	// initialize over HTTP, whose session starts after its method ran).
	sessionID() string
	// initialized reports whether the request's session already answered
	// an initialize (false in 2026-07-28, which has no handshake).
	initialized() bool
	// updateSession changes the legacy session's stored state
	// (logging/setLevel, resources/subscribe). The method table keeps its
	// callers to the legacy era; 2026-07-28 has no session and refuses.
	updateSession(ctx context.Context, change func(*SessionState)) error
	// caller is who the request is charged to without a principal
	// (callerOf, caller_share.go): the legacy session, or the 2026-07-28
	// client's address or stdio connection.
	caller() string
	// openRound prepares one run of a handler that may ask the client
	// (tools/call): the peer its Call talks through, and the handler state
	// of earlier rounds. target names what runs (the tool).
	// tool is the tool of a tools/call (nil for a prompt or resource): it
	// may make its rounds' requestState single-use.
	openRound(ctx context.Context, rq *request, target string, tool *registeredTool, args json.RawMessage) (peer, []byte, *Error)
	// closeRound ends that run: it returns the outcome that replaces the
	// handler's own (a malformed answer, or questions the client must answer
	// first), or false to let the handler's return stand.
	closeRound(rq *request, target string, args json.RawMessage, call *Call, err error) (outcome, bool)
	// resourceNotFound is the error of a resources/read of an unknown URI.
	resourceNotFound(uri string) *Error
	// legacyShapes reports whether the era's revisions know only object
	// structured output (2025: tools whose outputSchema root is not an
	// object are listed wrapped, internal/schema); toolResult is a tool's
	// result as they allow it: 2025 ones wrap non-object structured
	// output, 2026-07-28 reserves -32042.
	legacyShapes() bool
	toolResult(t *registeredTool, res *ToolResult, err error) (*ToolResult, error)
	// responseStream is the request's own response stream, for a method
	// that holds it open (an extension's Stream).
	responseStream() responseStream
}

// roundPeer is the peer of a 2026-07-28 round (mrtrPeer): besides asking,
// it tells how many answers the round carried and how many of them the
// handler has taken, so that a call can detach once it has them all
// (Detachment.AfterAnswers).
type roundPeer interface {
	peer
	carried() int
	consumedCount() int
}

// eraKind names an era in the method table.
type eraKind uint8

const (
	legacyEra eraKind = 1 << iota // sessions: 2025-03-26 to 2025-11-25
	modernEra                     // stateless: 2026-07-28
	everyEra  = legacyEra | modernEra
)

// responseStream carries notifications related to one request back to its
// client, before its response.
type responseStream interface {
	notify(ctx context.Context, method string, params any) error
	// canStream reports whether the client accepts an event stream here.
	canStream() bool
	// keepAlive tells a quiet client that the stream is alive (an SSE
	// comment on HTTP).
	keepAlive() error
}

// outcome is what a method returns; the era frames it.
type outcome struct {
	result any // json.RawMessage, *ToolResult or a value for encoding/json
	err    *Error
	// resultType is 2026-07-28's resultType; "" means complete.
	resultType string
	// cache marks a result that clients may cache (2026-07-28 ttlMs and
	// cacheScope).
	cache *cacheHint
	// meta is added to a 2026-07-28 result's _meta.
	meta map[string]json.RawMessage
	// status, when set, is the HTTP status of the response (over HTTP, for
	// as long as it is not an event stream).
	status int
	// none: the request gets no response (the client cancelled it, or went
	// away).
	none bool
	// established is the state of the session that an initialize result
	// starts; the legacy era creates the session before it answers.
	established *SessionState
}

func resultOf(v any) outcome   { return outcome{result: v} }
func failure(e *Error) outcome { return outcome{err: e} }

// appendResult appends the JSON object of a result.
func appendResult(b []byte, result any) ([]byte, error) {
	switch r := result.(type) {
	case *ToolResult:
		return appendToolResult(b, r)
	case json.RawMessage:
		return append(b, r...), nil
	}
	v, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	return append(b, v...), nil
}

// encodeFramed encodes the response to id: o's error, or its result with
// the members that frame appends (each as `,"key":value`) inside the result
// object, after its own. A result that cannot be encoded becomes an internal
// error, which is returned too, for the log.
func encodeFramed(id json.RawMessage, o outcome, frame func([]byte) []byte) ([]byte, error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if o.err != nil {
		return encodeError(id, o.err), nil
	}
	b := make([]byte, 0, 256)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	start := len(b)
	b, err := appendResult(b, o.result)
	if err == nil && (len(b)-start < 2 || b[start] != '{' || b[len(b)-1] != '}') {
		err = errors.New("a result must be a JSON object")
	}
	if err != nil {
		return encodeError(id, NewError(CodeInternalError, "encoding the result: %v", err)), err
	}
	if frame != nil {
		b = b[:len(b)-1] // reopen the result object
		n := len(b)
		if b = frame(b); len(b) > n && b[n-1] == '{' {
			b = append(b[:n], b[n+1:]...) // no comma after the opening brace
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// cacheHint is how long, and by whom, a result may be cached.
type cacheHint struct {
	ttlMs int64
	scope string // "public" or "private"
}

// toolOutcome maps a handler's return to the tools/call response: an *Error
// is that JSON-RPC error, a missing client capability is -32021 naming it,
// any other error is an isError result the model reads.
func toolOutcome(name string, res *ToolResult, err error) outcome {
	if err == nil {
		if res == nil {
			res = &ToolResult{}
		}
		return resultOf(res)
	}
	var rpcErr *Error
	switch {
	case errors.As(err, &rpcErr):
		return failure(rpcErr)
	case errors.Is(err, ErrCapabilityMissing):
		return failure(missingCapability(err))
	case errors.Is(err, ErrInputRequired):
		return failure(NewError(CodeInternalError, "tool %q returned ErrInputRequired without asking the client anything", name))
	}
	return resultOf(toolErrorResult(err))
}
