package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/reqstate"
)

// modernExchange is the 2026-07-28 side of one request: the client's facts
// come from the request's own _meta (there is no session), the server asks
// the client by ending the round with an input_required result (multi
// round-trip, SEP-2322), and every result carries resultType, its cache
// hints and the serverInfo.
type modernExchange struct {
	core *statelessCore
	meta *requestMeta
	out  responseStream

	round     *mrtrPeer // the peer of the handler run openRound prepared
	digest    string    // reqstate.ArgsDigest of its arguments, once computed
	principal string    // key of the request's principal: requestState is bound to it
	from      string    // the caller without a principal: the client's address, or its stdio connection
}

func (x *modernExchange) kind() eraKind                          { return modernEra }
func (x *modernExchange) version() string                        { return x.meta.ProtocolVersion }
func (x *modernExchange) clientCapabilities() ClientCapabilities { return x.meta.Capabilities }
func (x *modernExchange) caller() string                         { return x.from }
func (x *modernExchange) sessionID() string                      { return "" }
func (x *modernExchange) initialized() bool                      { return false }

// updateSession refuses: 2026-07-28 has no session to change.
func (x *modernExchange) updateSession(context.Context, func(*SessionState)) error {
	return errNoSession
}

// openRound opens the requestState of earlier rounds (sealed, bound to the
// method, target and arguments; spent once for single-use tools) and adds the retry's inputResponses to the
// answers it carries.
func (x *modernExchange) openRound(ctx context.Context, rq *request, target string, tool *registeredTool, args json.RawMessage) (peer, []byte, *Error) {
	p := rq.params
	answers := map[string]reqstate.Answer{}
	var handlerState []byte
	var asked map[string]string
	var earlier *reqstate.State
	if p.RequestState != nil {
		if e := x.digestOf(rq, args); e != nil {
			return nil, nil, e
		}
		st, err := x.core.rounds.open(ctx, rq.method, target, tool, *p.RequestState, x.digest)
		if err != nil {
			return nil, nil, NewError(CodeInvalidParams, "%v", err)
		}
		maps.Copy(answers, st.Answers)
		handlerState, asked, earlier = st.Handler, st.Asked, st
		if asked == nil {
			asked = map[string]string{} // answers count only for questions of the last round
		}
	}
	if e := mergeInputResponses(answers, asked, p.InputResponses); e != nil {
		return nil, nil, e
	}
	x.round = newMRTRPeer(x.meta, x.out, answers, p.ProgressToken)
	x.round.wait = newRoundWait(earlier, answers, x.core.rounds.sealer.Now)
	return x.round, handlerState, nil
}

// closeRound replaces the handler's return when an answer was malformed, or
// when questions are still open (whatever the handler returned, so that one
// that swallowed ErrInputRequired still yields input_required), unless a
// capability is missing: that is -32021, not a question.
func (x *modernExchange) closeRound(rq *request, target string, args json.RawMessage, call *Call, err error) (outcome, bool) {
	switch {
	case x.round.malformed() != nil:
		return failure(x.round.malformed()), true
	case errors.Is(err, ErrCapabilityMissing) || x.round.outstanding() == nil:
		return outcome{}, false
	}
	if e := x.digestOf(rq, args); e != nil {
		return failure(e), true
	}
	open := x.round.outstanding()
	asked := make(map[string]string, len(open))
	for k, q := range open {
		asked[k] = q.digest
	}
	token, err := x.core.rounds.sealer.Seal(&reqstate.State{
		Method:    rq.method,
		Name:      target,
		Digest:    x.digest,
		Answers:   x.round.consumed(),
		Asked:     asked,
		AskedAt:   x.core.rounds.sealer.Now().UnixMilli(),
		Handler:   call.State(),
		Principal: x.principal,
	})
	if err != nil {
		return failure(NewError(CodeInternalError, "%v", err)), true
	}
	return outcome{resultType: "input_required", result: struct {
		InputRequests map[string]inputRequest `json:"inputRequests"`
		RequestState  string                  `json:"requestState"`
	}{open, token}}, true
}

// resourceNotFound is -32602 with the URI in data (SEP-2164).
func (x *modernExchange) resourceNotFound(uri string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Resource not found", Data: map[string]string{"uri": uri}}
}

func (x *modernExchange) legacyShapes() bool             { return false }
func (x *modernExchange) responseStream() responseStream { return x.out }

// toolResult keeps a handler's own -32042 from the client: 2026-07-28
// reserves the code.
func (x *modernExchange) toolResult(t *registeredTool, res *ToolResult, err error) (*ToolResult, error) {
	return res, reservedInModern(t.Name, err)
}

// digestOf computes reqstate.ArgsDigest(args) once per request.
func (x *modernExchange) digestOf(rq *request, args json.RawMessage) *Error {
	if x.digest != "" {
		return nil
	}
	d, err := reqstate.ArgsDigest(args)
	if err != nil {
		return NewError(CodeInvalidParams, "%s: %v", rq.method, err)
	}
	x.digest = d
	return nil
}

// mergeInputResponses adds the retry's inputResponses to answers, each bound
// to the question asked under its key in the previous round (asked, from
// requestState; without it, answers are taken as they come). Answers of
// earlier rounds win (the client cannot change an answer the handler already
// acted on); keys nobody asked for are ignored. null means none.
func mergeInputResponses(answers map[string]reqstate.Answer, asked map[string]string, raw json.RawMessage) *Error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var in map[string]json.RawMessage
	if !isObjectJSON(raw) || json.Unmarshal(raw, &in) != nil {
		return NewError(CodeInvalidParams, "inputResponses must be an object mapping input request keys to results")
	}
	for k, v := range in {
		if _, done := answers[k]; done {
			continue
		}
		q, open := asked[k]
		if asked != nil && !open {
			continue // not a question of the last round
		}
		answers[k] = reqstate.Answer{Question: q, Result: v}
	}
	return nil
}

// statelessCore serves the 2026-07-28 era: each request with its own facts
// (_meta), its questions as input_required rounds sealed by rounds.
type statelessCore struct {
	d      *dispatcher
	rounds *roundSealer
	base   context.Context // the server's: a request still running when it ends answers that the server shuts down
}

// serve runs one 2026-07-28 request whose _meta and version were
// checked, and returns its framed response (nil when there is none: the
// client went away) and the HTTP status it travels with.
func (c *statelessCore) serve(ctx context.Context, msg *message, meta *requestMeta, out responseStream, from string) ([]byte, int) {
	c.d.calls.hold() // until its answer is framed
	defer c.d.calls.done()
	// A request still running when the server closes ends, and answers that
	// the server is shutting down.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(c.base, func() { cancel(errShuttingDown) })()
	x := &modernExchange{core: c, meta: meta, out: out, principal: principalKeyOf(ctx), from: from}
	o := c.d.serve(ctx, &request{id: msg.ID, method: msg.Method, params: msg.params(), era: x, out: out, msg: msg})
	if context.Cause(ctx) == errShuttingDown {
		o = outcome{err: errShuttingDown, status: http.StatusServiceUnavailable}
	}
	if o.none {
		return nil, 0
	}
	return c.frame(msg.ID, o), modernStatus(o)
}

// frame encodes a 2026-07-28 response: the result with its resultType,
// its cache hints and a _meta holding o.meta plus the serverInfo that every
// result carries.
func (c *statelessCore) frame(id json.RawMessage, o outcome) []byte {
	b, err := encodeFramed(id, o, func(b []byte) []byte {
		rt := o.resultType
		if rt == "" {
			rt = "complete"
		}
		b = append(b, `,"resultType":`...)
		b = strconv.AppendQuote(b, rt)
		if c := o.cache; c != nil {
			b = append(b, `,"ttlMs":`...)
			b = strconv.AppendInt(b, c.ttlMs, 10)
			b = append(b, `,"cacheScope":`...)
			b = strconv.AppendQuote(b, c.scope)
		}
		b = append(b, `,"_meta":{`...)
		for _, k := range slices.Sorted(maps.Keys(o.meta)) {
			b = strconv.AppendQuote(b, k)
			b = append(b, ':')
			b = append(b, o.meta[k]...)
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, metaServerInfo)
		b = append(b, ':')
		b = append(b, c.d.serverInfo...)
		return append(b, '}')
	})
	if err != nil {
		c.d.logger.Error("encoding a result", slog.String("id", string(id)), slog.String("error", err.Error()))
	}
	return b
}

// modernStatus is the HTTP status of a 2026-07-28 response: 404 for a
// method the server does not serve, 400 for the request problems 2026-07-28
// names (headers, capabilities, version), 200 for everything else.
func modernStatus(o outcome) int {
	if o.status != 0 {
		return o.status
	}
	if o.err != nil {
		switch o.err.Code {
		case CodeMethodNotFound:
			return http.StatusNotFound
		case CodeHeaderMismatch, CodeMissingCapability, CodeUnsupportedVersion:
			return http.StatusBadRequest
		case CodeLimitExceeded:
			return limitStatus
		}
	}
	return http.StatusOK
}

// requestMeta is what the server acts on of a 2026-07-28 request's
// params._meta (clientInfo is only checked to be an object, and kept for
// Call.ClientInfo). There is no session: every request carries all of it.
type requestMeta struct {
	ProtocolVersion string
	Capabilities    ClientCapabilities
	ClientInfo      json.RawMessage // nil when absent
	LogLevel        LogLevel        // "" when absent: send no notifications/message
}

// parseRequestMeta validates params._meta of a 2026-07-28 request. Its error
// is -32602 (HTTP 400): protocolVersion and clientCapabilities are required,
// clientInfo is not.
func parseRequestMeta(meta rawMeta) (*requestMeta, *Error) {
	if meta == nil {
		return nil, NewError(CodeInvalidParams, "params._meta is required in protocol %s: it must carry %s and %s",
			Version20260728, metaProtocolVersion, metaClientCapabilities)
	}
	m := &requestMeta{}
	raw, ok := meta[metaProtocolVersion]
	if !ok || json.Unmarshal(raw, &m.ProtocolVersion) != nil || m.ProtocolVersion == "" {
		return nil, NewError(CodeInvalidParams, "params._meta[%q] is required and must be a non-empty string", metaProtocolVersion)
	}
	raw, ok = meta[metaClientCapabilities]
	if !ok || !isObjectJSON(raw) || json.Unmarshal(raw, &m.Capabilities) != nil {
		return nil, NewError(CodeInvalidParams, "params._meta[%q] is required and must be an object ({} declares none)", metaClientCapabilities)
	}
	m.Capabilities.Raw = append(json.RawMessage(nil), raw...)
	if raw, ok := meta[metaClientInfo]; ok {
		if !isObjectJSON(raw) {
			return nil, NewError(CodeInvalidParams, "params._meta[%q] must be an object", metaClientInfo)
		}
		m.ClientInfo = append(json.RawMessage(nil), raw...)
	}
	if raw, ok := meta[metaLogLevel]; ok {
		if json.Unmarshal(raw, &m.LogLevel) != nil || !validLogLevel(m.LogLevel) {
			return nil, NewError(CodeInvalidParams, "params._meta[%q] must be one of debug, info, notice, warning, error, critical, alert, emergency", metaLogLevel)
		}
	}
	return m, nil
}

// errStateSpent: a single-use requestState came back a second time.
var errStateSpent = errors.New("requestState was already used, and this tool accepts each answer once; call the tool again without it")

// roundSealer seals the requestState of a round that ends with questions
// and opens the one a retry brings back, spending it in the StateLedger
// when its target is single-use.
type roundSealer struct {
	sealer         *reqstate.Sealer
	ledger         StateLedger
	singleUseAll   bool     // Options.SingleUseState
	singleUseTools []string // Options.SingleUseTools
}

// singleUse reports whether the requestStates of a round whose target is
// tool (nil for a prompt or a resource) are single-use.
func (r *roundSealer) singleUse(target string, tool *registeredTool) bool {
	return r.singleUseAll || tool != nil && (tool.SingleUseState || slices.Contains(r.singleUseTools, target))
}

// openState opens a requestState (integrity, expiry, binding)
// and, for a single-use tool, spends it in the StateLedger: a state that was
// already used is refused, so a replayed answer does not run the tool again.
func (r *roundSealer) open(ctx context.Context, method, target string, tool *registeredTool, token, digest string) (*reqstate.State, error) {
	st, err := r.sealer.Open(token, method, target, digest, principalKeyOf(ctx))
	if err != nil || !r.singleUse(target, tool) {
		return st, err
	}
	if st.ID == "" {
		return nil, reqstate.ErrInvalid // sealed without an ID: cannot be tracked
	}
	first, err := r.ledger.Spend(ctx, st.ID, time.Unix(st.Expires+1, 0))
	switch {
	case err != nil:
		return nil, fmt.Errorf("requestState could not be checked for reuse: %w", err)
	case !first:
		return nil, errStateSpent
	}
	return st, nil
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
