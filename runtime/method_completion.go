package runtime

import (
	"context"
	"log/slog"
	"runtime/debug"
)

// complete answers completion/complete: the completion handler of a
// prompt's argument (ref/prompt) or of a template's variable (ref/resource
// naming the template exactly as registered). An unknown prompt or
// template is -32602; an argument without a handler, or a ref/resource
// naming a fixed resource, gets no suggestions. -32601 when no completion
// handler is registered (the server then does not advertise completions).
func (d *dispatcher) complete(ctx context.Context, rq *request) outcome {
	if !d.features.hasCompletions() {
		return failure(notSupported("completions"))
	}
	p := rq.params
	var ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	var arg struct {
		Name  *string `json:"name"`
		Value *string `json:"value"`
	}
	var cctx struct {
		Arguments map[string]string `json:"arguments"`
	}
	if e := decodeAt(p.Ref, &ref, "/ref"); e != nil {
		return failure(e)
	}
	if len(p.Ref) == 0 || !isObjectJSON(p.Ref) {
		return failure(NewError(CodeInvalidParams, "completion/complete: params.ref must be a ref/prompt or ref/resource object"))
	}
	if e := decodeAt(p.Argument, &arg, "/argument"); e != nil {
		return failure(e)
	}
	if len(p.Argument) == 0 || !isObjectJSON(p.Argument) || arg.Name == nil || arg.Value == nil {
		return failure(NewError(CodeInvalidParams, "completion/complete: params.argument must be an object with string name and value"))
	}
	if e := decodeAt(p.Context, &cctx, "/context"); e != nil {
		return failure(e)
	}
	var h CompletionHandler
	switch ref.Type {
	case "ref/prompt":
		rp := d.features.prompt(ref.Name)
		if rp == nil {
			return failure(NewError(CodeInvalidParams, "completion/complete: unknown prompt %q", ref.Name))
		}
		h = rp.Complete[*arg.Name]
	case "ref/resource":
		t, r := d.features.template(ref.URI)
		switch {
		case t != nil:
			h = t.Complete[*arg.Name]
		case r == nil:
			return failure(NewError(CodeInvalidParams, "completion/complete: unknown resource template %q", ref.URI))
		}
	default:
		return failure(NewError(CodeInvalidParams, "completion/complete: unknown ref type %q", ref.Type))
	}
	if h == nil {
		return resultOf((*Completion)(nil).result())
	}
	res, err := runCompletion(ctx, d.logger, h, CompletionRequest{Argument: *arg.Name, Value: *arg.Value, Context: cctx.Arguments})
	if err != nil {
		return failure(featureError("the completion handler of", *arg.Name, err))
	}
	return resultOf(res.result())
}

func runCompletion(ctx context.Context, logger *slog.Logger, h CompletionHandler, req CompletionRequest) (res *Completion, err error) {
	defer func() {
		if v := recover(); v != nil {
			logger.Error("completion handler panicked", slog.String("argument", req.Argument),
				slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
			res, err = nil, &Error{Code: CodeInternalError, Message: "internal error: the completion handler panicked"}
		}
	}()
	return h(ctx, req)
}
