package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"strconv"
)

// serveRequest runs one request of a legacy session and queues its response
// on st, the stream of the POST (or stdio connection) that carried it. A
// request the client cancelled gets no response.
func (s *Server) serveRequest(ctx context.Context, sess *session, msg *message, st *stream) {
	var result any
	var rpcErr *Error
	switch msg.Method {
	case "tools/call":
		// The handler's context ends with the session or a client
		// notifications/cancelled, never with the connection (a disconnect is
		// not a cancellation); it carries the request's values.
		hctx, cancel := context.WithCancelCause(valuesFrom{sess.ctx, ctx})
		sess.addInflight(msg.ID, cancel)
		result, rpcErr = s.callTool(hctx, sess, msg, &requestScopedSender{sess: sess, origin: st})
		sess.removeInflight(msg.ID)
		cause := context.Cause(hctx)
		cancel(nil)
		// A cancelled request gets no response (the client cancelled it, or its
		// session ended).
		if cause == errClientCancelled || cause == ErrSessionNotFound {
			s.logger.LogAttrs(ctx, slog.LevelDebug, "request cancelled by the client",
				slog.String("session", sess.id), slog.String("id", string(msg.ID)))
			st.answered()
			return
		}
	default:
		result, rpcErr = s.serveSimple(ctx, sess, msg)
	}
	st.respond(s.encodeOutcome(msg.ID, result, rpcErr))
}

// valuesFrom is a context with the lifetime of its embedded one and, besides
// the embedded one's values, those of values (the HTTP request's).
type valuesFrom struct {
	context.Context
	values context.Context
}

func (v valuesFrom) Value(key any) any {
	if x := v.Context.Value(key); x != nil {
		return x
	}
	return v.values.Value(key)
}

// serveSimple answers the requests that need no stream of their own.
func (s *Server) serveSimple(ctx context.Context, sess *session, msg *message) (any, *Error) {
	switch msg.Method {
	case "ping":
		return json.RawMessage("{}"), nil
	case "tools/list":
		return s.toolsList(msg.Params)
	case "logging/setLevel":
		var p struct {
			Level LogLevel `json:"level"`
		}
		if err := json.Unmarshal(orEmpty(msg.Params), &p); err != nil || !validLogLevel(p.Level) {
			return nil, &Error{Code: CodeInvalidParams, Message: "logging/setLevel: level must be one of debug, info, notice, warning, error, critical, alert, emergency"}
		}
		if err := sess.update(ctx, func(st *SessionState) { st.LogLevel = p.Level }); err != nil {
			return nil, &Error{Code: CodeInternalError, Message: "saving the session: " + err.Error()}
		}
		return json.RawMessage("{}"), nil
	case "initialize":
		return nil, &Error{Code: CodeInvalidRequest, Message: "the session is already initialized"}
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: "method not found: " + msg.Method}
}

// encodeOutcome encodes a response; a result that cannot be encoded becomes
// an internal error.
func (s *Server) encodeOutcome(id json.RawMessage, result any, rpcErr *Error) []byte {
	if rpcErr != nil {
		return encodeError(id, rpcErr)
	}
	if tr, ok := result.(*ToolResult); ok {
		b := make([]byte, 0, 256)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, id...)
		b = append(b, `,"result":`...)
		b, err := appendToolResult(b, tr)
		if err == nil {
			return append(b, '}')
		}
		s.logger.Error("encoding a tool result", slog.String("id", string(id)), slog.String("error", err.Error()))
		return encodeError(id, &Error{Code: CodeInternalError, Message: "encoding the result: " + err.Error()})
	}
	b, err := encodeResponse(id, result)
	if err != nil {
		s.logger.Error("encoding a result", slog.String("id", string(id)), slog.String("error", err.Error()))
		return encodeError(id, &Error{Code: CodeInternalError, Message: "encoding the result: " + err.Error()})
	}
	return b
}

// toolsList returns one page of tools/list. The cursor is the opaque,
// base64-encoded index of the page's first tool; pages are encoded once.
func (s *Server) toolsList(params json.RawMessage) (any, *Error) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := json.Unmarshal(orEmpty(params), &p); err != nil {
		return nil, &Error{Code: CodeInvalidParams, Message: "tools/list: " + err.Error()}
	}
	page := 0
	if p.Cursor != nil {
		b, err := base64.RawURLEncoding.DecodeString(*p.Cursor)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n <= 0 || n%s.opts.PageSize != 0 {
			return nil, &Error{Code: CodeInvalidParams, Message: "tools/list: invalid cursor"}
		}
		page = n / s.opts.PageSize
	}
	s.mu.RLock()
	pages := s.listPages
	s.mu.RUnlock()
	if pages == nil {
		pages = s.buildListPages()
	}
	if page >= len(pages) {
		return nil, &Error{Code: CodeInvalidParams, Message: "tools/list: invalid cursor"}
	}
	return json.RawMessage(pages[page]), nil
}

func (s *Server) buildListPages() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listPages != nil {
		return s.listPages
	}
	size := s.opts.PageSize
	pages := [][]byte{}
	for start := 0; start == 0 || start < len(s.tools); start += size {
		end := min(start+size, len(s.tools))
		b := []byte(`{"tools":[`)
		for i, t := range s.tools[start:end] {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, t.Definition...)
		}
		b = append(b, ']')
		if end < len(s.tools) {
			b = append(b, `,"nextCursor":"`...)
			b = append(b, base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))...)
			b = append(b, '"')
		}
		pages = append(pages, append(b, '}'))
	}
	s.listPages = pages
	return pages
}

func orEmpty(params json.RawMessage) json.RawMessage {
	if len(params) == 0 {
		return json.RawMessage("{}")
	}
	return params
}
