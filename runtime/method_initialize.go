package runtime

import (
	"bytes"
	"context"
	"encoding/json"
)

// initialize starts a legacy session: it negotiates the protocol version and
// returns the session to establish with the result (the legacy era creates
// it before answering). 2026-07-28 has no handshake.
func (s *Server) initialize(_ context.Context, rq *request) outcome {
	if rq.sess != nil && rq.sess.established {
		return failure(NewError(CodeInvalidRequest, "the session is already initialized"))
	}
	p := rq.params
	if p.ProtocolVersion == nil || *p.ProtocolVersion == "" {
		return failure(NewError(CodeInvalidParams, "initialize: protocolVersion is required"))
	}
	if len(p.Capabilities) > 0 && p.Capabilities[0] != '{' {
		return failure(NewError(CodeInvalidParams, "initialize: capabilities must be an object"))
	}
	version, e := s.versions.negotiate(*p.ProtocolVersion)
	if e != nil {
		return failure(e)
	}
	// Copied: the params are slices of the request body, which a session
	// must not keep alive.
	st := &SessionState{
		ProtocolVersion:    version,
		ClientCapabilities: bytes.Clone(p.Capabilities),
		ClientInfo:         bytes.Clone(p.ClientInfo),
	}
	return outcome{established: st, result: struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    string          `json:"instructions,omitempty"`
	}{st.ProtocolVersion, s.capabilities(st.ProtocolVersion), s.serverInfo, s.opts.Instructions}}
}
