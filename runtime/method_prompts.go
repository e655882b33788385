package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime/debug"
)

// listPrompts answers prompts/list: one page of the prompts in registration
// order, their definitions as registered; -32601 when the server has none
// (it then does not advertise prompts).
func (d *dispatcher) listPrompts(ctx context.Context, rq *request) outcome {
	if !d.features.hasPrompts() {
		return failure(notSupported("prompts"))
	}
	return d.features.page(ctx, rq.method, listPrompts, false, rq.params.Cursor, d.listFilter(ctx))
}

// getPrompt answers prompts/get. An unknown name or a missing required
// argument is -32602. Like tools/call, in 2026-07-28 this is one round of a
// possibly multi round-trip request: the handler may elicit, and unanswered
// questions end the round with input_required. A handler error is -32603
// (an *Error is sent as it is); panics are recovered.
func (d *dispatcher) getPrompt(ctx context.Context, rq *request) outcome {
	if !d.features.hasPrompts() {
		return failure(notSupported("prompts"))
	}
	p := rq.params
	if p.Name == nil {
		return failure(NewError(CodeInvalidParams, "prompts/get: params.name is required"))
	}
	rp := d.features.prompt(string(p.Name))
	if rp == nil {
		return failure(NewError(CodeInvalidParams, "prompts/get: unknown prompt %q", p.Name))
	}
	args, e := rp.arguments(p.Arguments)
	if e != nil {
		return failure(e)
	}
	raw := trimSpace(p.Arguments)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	peer, state, e := rq.era.openRound(ctx, rq, rp.Name, nil, raw)
	if e != nil {
		return failure(e)
	}
	call := newCall(d.announce, peer, state)
	call.principal = PrincipalFromContext(ctx)
	res, err := runFeatureHandler(d.logger, "prompt", rp.Name, func() (*PromptResult, error) { return rp.Handler(ctx, call, args) })
	if o, done := rq.era.closeRound(rq, rp.Name, raw, call, err); done {
		return o
	}
	if err != nil {
		return failure(featureError("prompt", rp.Name, err))
	}
	if res == nil {
		res = &PromptResult{}
	}
	return resultOf(res)
}

// runFeatureHandler runs a prompt or resource handler, turning a panic into
// an error.
func runFeatureHandler[R any](logger *slog.Logger, kind, name string, run func() (*R, error)) (res *R, err error) {
	defer func() {
		if v := recover(); v != nil {
			logger.Error(kind+" handler panicked", slog.String(kind, name),
				slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
			res, err = nil, &Error{Code: CodeInternalError, Message: "internal error: the " + kind + " handler panicked"}
		}
	}()
	return run()
}

// featureError maps a prompt or resource handler's error to its JSON-RPC
// error: an *Error as it is, a missing client capability -32021, anything
// else -32603 with the handler's message (prompts and resources have no
// isError result for the model to read).
func featureError(kind, name string, err error) *Error {
	var rpcErr *Error
	switch {
	case errors.As(err, &rpcErr):
		return rpcErr
	case errors.Is(err, ErrCapabilityMissing):
		return missingCapability(err)
	case errors.Is(err, ErrInputRequired):
		return NewError(CodeInternalError, "%s %q returned ErrInputRequired without asking the client anything", kind, name)
	}
	return NewError(CodeInternalError, "%s %q: %v", kind, name, err)
}
