package runtime

import (
	"context"
	"encoding/json"
)

// setLogLevel answers logging/setLevel: the session's threshold for the
// notifications/message its calls send. 2026-07-28 removed the method; each
// request carries its level in _meta instead.
func (s *Server) setLogLevel(ctx context.Context, rq *request) outcome {
	p := rq.params
	if p.Level == nil || !validLogLevel(LogLevel(*p.Level)) {
		return failure(NewError(CodeInvalidParams, "logging/setLevel: level must be one of debug, info, notice, warning, error, critical, alert, emergency"))
	}
	if err := rq.sess.update(ctx, func(st *SessionState) { st.LogLevel = LogLevel(*p.Level) }); err != nil {
		return failure(NewError(CodeInternalError, "saving the session: %v", err))
	}
	return resultOf(json.RawMessage("{}"))
}
