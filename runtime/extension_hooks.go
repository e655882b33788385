package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// The hooks through which an extension takes part in what the core does,
// each called where the core does it: tools/call admission (method_tools.go),
// the end of a legacy session (session_table.go, session_bus.go), the
// subscriptions/listen filter (listen.go), and the Call of an extension's
// own method.

// ToolCallHook is an extension's say in how a tools/call runs. It is
// called once the tool is found and its arguments are validated, before
// its handler runs, with the call as call describes it: (nil, nil) lets the
// call run as usual; a result (or an error) answers the tools/call instead.
// A hook that wants the handler to run away from the request (as a job
// the client polls) calls call.Detach. The hooks of several
// extensions are asked in the order the extensions were added; the first
// to answer wins.
type ToolCallHook func(ctx context.Context, call *ToolCallRequest) (*MethodResult, error)

// ToolCallRequest is a tools/call as a ToolCallHook sees it: the request
// (its raw params, with any member an extension defines, its era, session,
// principal and caller), the tool and its validated arguments.
type ToolCallRequest struct {
	*MethodRequest
	// Tool is the tool's name.
	Tool string
	// Definition is the tool's definition as registered (compacted), with
	// its execution member and its _meta.
	Definition json.RawMessage
	// Arguments are the call's arguments, validated against the tool's
	// inputSchema.
	Arguments json.RawMessage

	ctx      context.Context
	d        *dispatcher
	rq       *request
	tool     *registeredTool
	peer     peer
	state    []byte
	detached bool
}

// admitToolCall asks the extensions' tool-call hooks about a tools/call of
// t; done reports that one answered it (with o).
func (d *dispatcher) admitToolCall(ctx context.Context, rq *request, t *registeredTool, args json.RawMessage, p peer, state []byte) (o outcome, done bool) {
	hooked := false
	for _, x := range d.extensionsNow() {
		hooked = hooked || x.ToolCalls != nil
	}
	if !hooked {
		return outcome{}, false
	}
	req := d.methodRequest(ctx, rq.msg, rq.era)
	tc := &ToolCallRequest{MethodRequest: req, Tool: t.Name, Definition: t.Definition, Arguments: args,
		ctx: ctx, d: d, rq: rq, tool: t, peer: p, state: state}
	for _, x := range d.extensionsNow() {
		if x.ToolCalls == nil {
			continue
		}
		res, err, ok := d.askToolHook(ctx, x, tc)
		switch {
		case !ok:
			return failure(errExtensionPanic), true
		case err != nil:
			return failure(asError(err)), true
		case res != nil:
			return d.methodOutcome(methodToolsCall, res), true
		case tc.detached:
			return failure(NewError(CodeInternalError, "extension %q detached the call and answered nothing", x.ID)), true
		}
	}
	return outcome{}, false
}

// askToolHook calls x's ToolCalls hook; ok is false when it panicked.
func (d *dispatcher) askToolHook(ctx context.Context, x *extension, tc *ToolCallRequest) (res *MethodResult, err error, ok bool) {
	defer d.recoverHook(x, "ToolCalls", func() { res, err, ok = nil, nil, false })
	res, err = x.ToolCalls(ctx, tc)
	return res, err, true
}

// sessionEnded tells every extension that legacy session id ended.
func (d *dispatcher) sessionEnded(id string) {
	for _, x := range d.extensionsNow() {
		if x.SessionEnded != nil {
			func() {
				defer d.recoverHook(x, "SessionEnded", nil)
				x.SessionEnded(id)
			}()
		}
	}
}

// checkListenFilter asks every extension with a ListenFilter about a
// subscriptions/listen request's notifications object.
func (d *dispatcher) checkListenFilter(ctx context.Context, rq *request, raw json.RawMessage) *Error {
	for _, x := range d.extensionsNow() {
		if x.ListenFilter == nil {
			continue
		}
		var err error
		func() {
			defer d.recoverHook(x, "ListenFilter", func() { err = errExtensionPanic })
			err = x.ListenFilter(d.methodRequest(ctx, rq.msg, rq.era), raw)
		}()
		if err != nil {
			return asError(err)
		}
	}
	return nil
}

// methodRound is the Call of one request of an extension's method and
// what its 2026-07-28 round needs to end with questions.
type methodRound struct {
	call   *Call
	rounds bool // the method is MultiRoundTrip and the request 2026-07-28
	target string
	args   json.RawMessage
}

// openMethodRound opens the Call of a request of m: the era's peer, which
// in 2026-07-28 takes input_required rounds only when m is
// MultiRoundTrip. A round's requestState binds its answers to the method,
// its NameParam's value and its params without the round members.
func (d *dispatcher) openMethodRound(ctx context.Context, rq *request, m Method) (*methodRound, *Error) {
	mr := &methodRound{rounds: m.MultiRoundTrip && rq.era.kind() == modernEra}
	if m.NameParam != "" {
		mr.target, _ = rawStringMember(rq.msg.Params, m.NameParam)
	}
	var args json.RawMessage
	if mr.rounds {
		args = roundArgs(rq.msg.Params)
		mr.args = args
	}
	p, state, e := rq.era.openRound(ctx, rq, mr.target, nil, args)
	if e != nil {
		return nil, e
	}
	if rq.era.kind() == modernEra && !m.MultiRoundTrip {
		p = noRoundsPeer{p, m.Name}
	}
	call := newCall(d.announce, p, state)
	call.principal = PrincipalFromContext(ctx)
	call.intercept(d.icpt, ctx)
	mr.call = call
	return mr, nil
}

// close ends the round: in a 2026-07-28 MultiRoundTrip request with
// questions still open, the input_required outcome that replaces what
// Serve returned.
func (mr *methodRound) close(rq *request, err error) (outcome, bool) {
	if mr == nil || !mr.rounds {
		return outcome{}, false
	}
	return rq.era.closeRound(rq, mr.target, mr.args, mr.call, err)
}

// noRoundsPeer is the 2026-07-28 peer of a method that takes no
// input_required rounds: its questions fail with ErrNoInputRounds, since
// there is no other way to ask; notifications ride the response stream.
type noRoundsPeer struct {
	peer
	method string
}

func (p noRoundsPeer) request(_ context.Context, _, method string, _ any) (json.RawMessage, error) {
	return nil, fmt.Errorf("%w: %s asked %s", ErrNoInputRounds, p.method, method)
}

func (p noRoundsPeer) requireURL([]string, []urlParams) error {
	return fmt.Errorf("%w: %s asked for a URL elicitation", ErrNoInputRounds, p.method)
}

// rawStringMember is the string member key of a params object, if it has
// one.
func rawStringMember(params json.RawMessage, key string) (string, bool) {
	var v string
	found := false
	jsonscan.EachMember(trimSpace(params), func(k, raw []byte) bool {
		if string(k) == key {
			v, found = jsonscan.String(raw)
			return false
		}
		return true
	})
	return v, found
}

// roundArgs are a request's params without the members a retry adds or
// that differ between rounds (requestState, inputResponses, _meta): what a
// round's requestState is bound to.
func roundArgs(params json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil || m == nil {
		return json.RawMessage("{}")
	}
	delete(m, "requestState")
	delete(m, "inputResponses")
	delete(m, "_meta")
	b, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}
