package runtime

import (
	"context"
)

// listTools answers tools/list: one page of the tools in registration order.
// The cursor is the opaque, base64-encoded index of the page's first tool;
// pages are encoded once. The list does not vary per client, so any cache
// may share it.
func (d *dispatcher) listTools(ctx context.Context, rq *request) outcome {
	return d.features.page(ctx, rq.method, listTools, rq.era.legacyShapes(), rq.params.Cursor, d.listFilter(ctx))
}

// callTool answers tools/call. The arguments must be an object (else
// -32602) and are validated against the tool's inputSchema before the
// handler runs (a failure is an isError result the model can read); handler
// panics are recovered. In 2026-07-28 this is one round of a possibly multi
// round-trip call: the era's openRound hands the handler the answers of
// earlier rounds, and closeRound turns unanswered questions into an
// input_required result.
func (d *dispatcher) callTool(ctx context.Context, rq *request) outcome {
	p := rq.params
	if p.Name == nil {
		return failure(NewError(CodeInvalidParams, "tools/call: params.name is required"))
	}
	t := d.features.toolNamed(p.Name)
	if t == nil {
		return failure(NewError(CodeInvalidParams, "tools/call: unknown tool %q", p.Name))
	}
	args, e := t.checkArguments(p.Arguments)
	if e != nil {
		return failure(e)
	}
	peer, state, e := rq.era.openRound(ctx, rq, t.Name, t, args)
	if e != nil {
		return failure(e)
	}
	args, res := t.validate(args)
	if res != nil {
		return resultOf(res)
	}
	if o, done := d.admitToolCall(ctx, rq, t, args, peer, state); done {
		return o
	}
	call := newCall(d.announce, peer, state)
	call.intercept(d.icpt, ctx)
	call.principal = PrincipalFromContext(ctx)
	res, err := t.run(ctx, d.logger, call, args)
	if o, done := rq.era.closeRound(rq, t.Name, args, call, err); done {
		return o
	}
	if err == nil {
		res = t.checkOutput(res, d.logger)
	}
	res, err = rq.era.toolResult(t, res, err)
	return toolOutcome(t.Name, res, err)
}
