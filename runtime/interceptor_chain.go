package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// interceptors are Options.Interceptors composed once, in NewServer. A
// Server without any has a nil *interceptors, and every hook below is one
// nil check.
type interceptors struct {
	incoming IncomingFunc // the chain ending in the method table
	outgoing OutgoingFunc // the chain ending in the call's peer; nil when none has Outgoing
	observe  []func(context.Context, Event)
}

func newInterceptors(s *Server, list []Interceptor) *interceptors {
	if len(list) == 0 {
		return nil
	}
	ic := &interceptors{}
	in := IncomingFunc(func(ctx context.Context, req *IncomingRequest) *Response {
		return responseOf(s.serveMethod(ctx, req.rq))
	})
	out := OutgoingFunc(func(ctx context.Context, req *OutgoingRequest) (json.RawMessage, error) {
		return req.peer.request(ctx, req.Key, req.Method, req.Params)
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

// withHTTPRequest makes r reachable from the contexts of its messages.
func (s *Server) withHTTPRequest(r *http.Request) *http.Request {
	if s.icpt == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), httpRequestKey{}, r))
}

// intercepted serves rq through the incoming chain.
func (s *Server) intercepted(ctx context.Context, rq *request) outcome {
	req := &IncomingRequest{ID: rq.id, Method: rq.method, Params: rq.params.raw, Meta: rq.params.Meta, rq: rq, Transport: "stdio"}
	if rq.params.Name != nil {
		req.Name = string(rq.params.Name)
	}
	if hr, ok := ctx.Value(httpRequestKey{}).(*http.Request); ok {
		req.HTTP, req.Transport = hr, "http"
	}
	switch x := rq.era.(type) {
	case *modernExchange:
		if x.meta != nil {
			req.ProtocolVersion = x.meta.ProtocolVersion
		}
	default:
		if rq.sess != nil {
			req.SessionID = rq.sess.id
			req.ProtocolVersion = rq.sess.version()
		}
		if rq.method == "initialize" && rq.params.ProtocolVersion != nil {
			req.ProtocolVersion = *rq.params.ProtocolVersion
		}
	}
	rq.info = req
	return s.icpt.incoming(ctx, req).outcome()
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

// request sends a server-to-client request through the outgoing chain.
func (c *Call) request(ctx context.Context, key, method string, params any) (json.RawMessage, error) {
	if c.icpt == nil || c.icpt.outgoing == nil {
		return c.peer.request(ctx, key, method, params)
	}
	return c.icpt.outgoing(ctx, &OutgoingRequest{Method: method, Key: key, Params: params, Parent: c.parent, peer: c.peer})
}

// intercept makes c's requests to the client pass the outgoing chain.
func (c *Call) intercept(s *Server, rq *request) {
	c.icpt, c.parent = s.icpt, rq.info
}

// observing reports whether any interceptor observes events.
func (s *Server) observing() bool { return s.icpt != nil && len(s.icpt.observe) > 0 }

func (s *Server) emit(ctx context.Context, e Event) {
	for _, f := range s.icpt.observe {
		f(ctx, e)
	}
}

// sessionOpened reports a legacy session that starts here.
func (s *Server) sessionOpened(sess *session, version string) {
	if !s.observing() {
		return
	}
	sess.openedAt.Store(time.Now().UnixNano())
	s.emit(sess.ctx, Event{Kind: SessionOpened, SessionID: sess.id, ProtocolVersion: version, Transport: sessionTransport(sess)})
}

// sessionClosed reports the end of a session sessionOpened reported, once.
func (s *Server) sessionClosed(sess *session) {
	t := sess.openedAt.Swap(0)
	if t == 0 || !s.observing() {
		return
	}
	s.emit(context.WithoutCancel(sess.ctx), Event{Kind: SessionClosed, SessionID: sess.id, ProtocolVersion: sess.version(),
		Transport: sessionTransport(sess), Duration: time.Duration(time.Now().UnixNano() - t)})
}

func sessionTransport(sess *session) string {
	if sess.stdio {
		return "stdio"
	}
	return "http"
}

// streamEvent reports a stream that starts or stops carrying messages; sess
// is nil for a 2026-07-28 stream.
func (s *Server) streamEvent(ctx context.Context, kind EventKind, stream string, sess *session, transport string) {
	e := Event{Kind: kind, Stream: stream, Transport: transport}
	if sess != nil {
		e.SessionID, e.ProtocolVersion, e.Transport = sess.id, sess.version(), sessionTransport(sess)
	}
	s.emit(context.WithoutCancel(ctx), e)
}

// backpressureHook returns what a stream's buffer calls after a sender
// waited for room, or nil.
func (s *Server) backpressureHook(sess *session) func(context.Context, time.Duration) {
	if !s.observing() {
		return nil
	}
	return func(ctx context.Context, d time.Duration) {
		s.emit(ctx, Event{Kind: BackpressureWaited, SessionID: sess.id, ProtocolVersion: sess.version(),
			Transport: sessionTransport(sess), Duration: d})
	}
}

// transportOf names the transport of a request's context.
func transportOf(ctx context.Context) string {
	if ctx.Value(httpRequestKey{}) != nil {
		return "http"
	}
	return "stdio"
}
