package runtime

import (
	"context"
	"encoding/json"
)

// isModernStdio reports whether a message read on stdio belongs to the
// 2026-07-28 era: it carries modern _meta. The stdio loop asks only until a
// legacy initialize was seen.
func (s *Server) isModernStdio(msg *message) bool {
	return msg.Method != "" && hasModernMeta(msg.Params)
}

// serveModernStdio serves one 2026-07-28 request or notification read on
// stdio. send writes one message in order. The stdio loop runs it in its own
// goroutine and cancels ctx on a notifications/cancelled for its ID; then
// nothing more is sent. There are no headers on stdio, so only the _meta,
// version and method checks apply.
func (s *Server) serveModernStdio(ctx context.Context, msg *message, send func(context.Context, *message) error) {
	if !msg.isRequest() {
		return // notifications: cancellation is the loop's business
	}
	out := &modernStdioStream{send: send}
	reply := func(r modernReply) {
		if ctx.Err() != nil || (r.result == nil && r.err == nil) {
			return
		}
		id := msg.ID
		if !validID(id) {
			id = json.RawMessage("null")
		}
		_ = send(ctx, &message{JSONRPC: "2.0", ID: id, Result: r.result, Error: r.err})
	}
	if !validID(msg.ID) {
		reply(replyError(0, NewError(CodeInvalidRequest, "the request id must be a string or an integer")))
		return
	}
	params, e := decodeModernParams(msg.Params)
	if e != nil {
		reply(replyError(0, e))
		return
	}
	meta, e := parseRequestMeta(params.Meta)
	if e != nil {
		reply(replyError(0, e))
		return
	}
	if e := checkVersion(meta.ProtocolVersion); e != nil {
		reply(replyError(0, e))
		return
	}
	reply(s.modern.dispatch(ctx, &modernRequest{msg: msg, params: params, meta: meta}, out))
}

// modernStdioStream sends a request's notifications as their own lines.
type modernStdioStream struct {
	send func(context.Context, *message) error
}

func (o *modernStdioStream) notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return err
		}
		raw = b
	}
	return o.send(ctx, &message{JSONRPC: "2.0", Method: method, Params: raw})
}
