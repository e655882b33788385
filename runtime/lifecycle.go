package runtime

import (
	"encoding/json"
	"slices"
)

// initializeParams are the params of initialize.
type initializeParams struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      json.RawMessage `json:"clientInfo"`
}

// negotiate returns the version the session speaks: the client's when the
// runtime speaks it, otherwise the newest legacy version.
func negotiate(requested string) string {
	if slices.Contains(legacyVersions, requested) {
		return requested
	}
	return legacyVersions[0]
}

// initialize checks an initialize request and returns the state of the new
// session and the result to send once the session exists.
func (s *Server) initialize(msg *message) (SessionState, json.RawMessage, *Error) {
	var p initializeParams
	if err := json.Unmarshal(orEmpty(msg.Params), &p); err != nil {
		return SessionState{}, nil, &Error{Code: CodeInvalidParams, Message: "initialize: " + err.Error()}
	}
	if p.ProtocolVersion == "" {
		return SessionState{}, nil, &Error{Code: CodeInvalidParams, Message: "initialize: protocolVersion is required"}
	}
	if len(p.Capabilities) > 0 && trimSpace(p.Capabilities)[0] != '{' {
		return SessionState{}, nil, &Error{Code: CodeInvalidParams, Message: "initialize: capabilities must be an object"}
	}
	st := SessionState{
		ProtocolVersion:    negotiate(p.ProtocolVersion),
		ClientCapabilities: p.Capabilities,
		ClientInfo:         p.ClientInfo,
	}
	type serverInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Title   string `json:"title,omitempty"`
	}
	res := struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      serverInfo      `json:"serverInfo"`
		Instructions    string          `json:"instructions,omitempty"`
	}{
		ProtocolVersion: st.ProtocolVersion,
		Capabilities:    json.RawMessage(`{"tools":{"listChanged":true},"logging":{}}`),
		ServerInfo:      serverInfo{s.opts.Name, s.opts.Version, s.opts.Title},
		Instructions:    s.opts.Instructions,
	}
	b, err := json.Marshal(res)
	if err != nil {
		return SessionState{}, nil, &Error{Code: CodeInternalError, Message: err.Error()}
	}
	return st, b, nil
}

// serveNotification handles a client notification of a legacy session.
func (s *Server) serveNotification(sess *session, msg *message) {
	switch msg.Method {
	case "notifications/initialized":
		if err := sess.update(sess.ctx, func(st *SessionState) { st.Initialized = true }); err != nil {
			s.logger.Warn("saving the session", "session", sess.id, "error", err)
		}
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(orEmpty(msg.Params), &p) == nil && validID(p.RequestID) {
			sess.cancelInflight(p.RequestID)
		}
	}
}

// serveAnswer hands a client's response to the server-to-client request it
// answers. Only requests of this session can be answered.
// A store failure is reported as err (the client may retry the answer).
func (s *Server) serveAnswer(sess *session, msg *message) (Resolution, error) {
	res, err := s.pending.Resolve(sess.ctx, sess.id, msg.ID, Answer{Result: msg.Result, Error: msg.Error})
	if err != nil {
		s.logger.Warn("routing an answer", "session", sess.id, "id", string(msg.ID), "error", err)
		return Unknown, err
	}
	if res != Delivered {
		s.logger.Debug("answer refused", "session", sess.id, "id", string(msg.ID), "expired", res == Expired)
	}
	return res, nil
}
