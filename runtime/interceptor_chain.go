package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
)

// interceptors are Options.Interceptors composed once, in NewServer. A
// Server without any has a nil *interceptors, and every hook below is one
// nil check.
type interceptors struct {
	incoming IncomingFunc // the chain ending in the method table
	outgoing OutgoingFunc // the chain ending in the call's peer; nil when none has Outgoing
	observe  []func(context.Context, Event)
	known    func(name string) bool // a registered tool (IncomingRequest.ToolRegistered)
}

// newInterceptors composes list around terminal, the method table's
// serveMethod; known tells IncomingRequest.ToolRegistered whether a name
// is a registered tool.
func newInterceptors(list []Interceptor, terminal func(context.Context, *request) outcome, known func(string) bool) *interceptors {
	if len(list) == 0 {
		return nil
	}
	ic := &interceptors{known: known}
	in := IncomingFunc(func(ctx context.Context, req *IncomingRequest) *Response {
		return responseOf(terminal(context.WithValue(ctx, incomingKey{}, req), req.rq))
	})
	out := OutgoingFunc(func(ctx context.Context, req *OutgoingRequest) (json.RawMessage, error) {
		params := req.Params
		if len(req.Meta) > 0 && req.peer.carriesMeta() {
			params = paramsWithMeta{params, req.Meta}
		}
		res, err := req.peer.request(ctx, req.Key, req.Method, params)
		if err == nil {
			req.Waited = req.peer.waited(req.Key)
		}
		return res, err
	})
	var hasOut bool
	for i := len(list) - 1; i >= 0; i-- { // the first is the outermost
		if f := list[i].Incoming; f != nil {
			in = f(in)
		}
		if f := list[i].Outgoing; f != nil {
			out, hasOut = f(out), true
		}
	}
	for _, it := range list {
		if it.Observe != nil {
			ic.observe = append(ic.observe, it.Observe)
		}
	}
	ic.incoming = in // even without Incoming interceptors: Outgoing ones see the parent request
	if hasOut {
		ic.outgoing = out
	}
	return ic
}

// httpRequestKey is the context key of the HTTP request that carried a
// message, set by ServeHTTP only when interceptors are configured.
type httpRequestKey struct{}

// intercepted serves rq through the incoming chain.
func (ic *interceptors) intercepted(ctx context.Context, rq *request) outcome {
	req := &IncomingRequest{ID: rq.id, Method: rq.method, Meta: rq.params.Meta, rq: rq, known: ic.known, Transport: "stdio",
		Principal: PrincipalFromContext(ctx), ProtocolVersion: rq.era.version(), SessionID: rq.era.sessionID()}
	rq.incoming = req
	if rq.msg != nil {
		req.Params = rq.msg.Params
	}
	if rq.params.Name != nil {
		req.Name = string(rq.params.Name)
	}
	if hr, ok := ctx.Value(httpRequestKey{}).(*http.Request); ok {
		req.HTTP, req.Transport = hr, "http"
	}
	return ic.incoming(ctx, req).outcome()
}

// responseOf is a method's outcome as interceptors see it.
func responseOf(o outcome) *Response {
	r := &Response{Error: o.err, InputRequired: o.resultType == "input_required", NoResponse: o.none, o: o, set: true}
	if tr, ok := o.result.(*ToolResult); ok && tr != nil {
		r.IsError = tr.IsError
	}
	return r
}

// outcome is what the era frames: the method's own outcome, unless an
// interceptor answered with an error of its own.
func (r *Response) outcome() outcome {
	switch {
	case r == nil:
		return failure(NewError(CodeInternalError, "internal error: an interceptor returned no response"))
	case r.set && r.Error == r.o.err:
		return r.o
	case r.Error != nil:
		return failure(r.Error)
	case r.set:
		return r.o
	}
	return failure(NewError(CodeInternalError, "internal error: an interceptor returned a response without an error or the method's result"))
}

// interceptedPeer is a Call's peer whose requests to the client pass the
// outgoing chain; everything else is the era's peer.
type interceptedPeer struct {
	peer
	outgoing OutgoingFunc
	parent   *IncomingRequest
}

func (p *interceptedPeer) request(ctx context.Context, key, method string, params any) (json.RawMessage, error) {
	return p.outgoing(ctx, &OutgoingRequest{Method: method, Key: key, Params: params, Parent: p.parent, peer: p.peer})
}

// incomingKey is the context key of the IncomingRequest a method serves,
// set only when interceptors are configured.
type incomingKey struct{}

// intercept makes c's requests to the client pass the outgoing chain; ctx
// is the method's.
func (c *Call) intercept(ic *interceptors, ctx context.Context) {
	if ic != nil && ic.outgoing != nil {
		parent, _ := ctx.Value(incomingKey{}).(*IncomingRequest)
		c.peer = &interceptedPeer{peer: c.peer, outgoing: ic.outgoing, parent: parent}
	}
}

// observing reports whether any interceptor observes events.
func (ic *interceptors) observing() bool { return ic != nil && len(ic.observe) > 0 }

func (ic *interceptors) emit(ctx context.Context, e Event) {
	for _, f := range ic.observe {
		f(ctx, e)
	}
}

// observeStream reports a stream of no session (2026-07-28 listen) that
// starts or stops; it returns the report of its end.
func (ic *interceptors) observeStream(ctx context.Context, stream, transport string) (closed func()) {
	if !ic.observing() {
		return func() {}
	}
	ic.emit(context.WithoutCancel(ctx), Event{Kind: StreamOpened, Stream: stream, Transport: transport})
	return func() {
		ic.emit(context.WithoutCancel(ctx), Event{Kind: StreamClosed, Stream: stream, Transport: transport})
	}
}

// transportOf names the transport of a request's context.
func transportOf(ctx context.Context) string {
	if ctx.Value(httpRequestKey{}) != nil {
		return "http"
	}
	return "stdio"
}

// paramsWithMeta encodes params (an object) with meta as its _meta member.
type paramsWithMeta struct {
	params any
	meta   map[string]string
}

func (p paramsWithMeta) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.params)
	if err != nil {
		return nil, err
	}
	m, err := json.Marshal(p.meta)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, errors.New("params of a request to the client must be an object")
	}
	out := append([]byte(nil), b[:len(b)-1]...)
	if len(bytes.TrimSpace(b[1:len(b)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"_meta":`...)
	out = append(out, m...)
	return append(out, '}'), nil
}
