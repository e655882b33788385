package runtime

import (
	"encoding/json"
	"net/http"
)

// This file is the seam between the legacy transport and the 2026-07-28
// stateless core. The legacy ServeHTTP asks isModernHTTP for every POST and
// hands modern requests to serveModernHTTP; GET and DELETE without a session
// go to serveModernNoSession.

// isModernHTTP reports whether a POST belongs to the 2026-07-28 era: no
// session ID, and modern _meta or an MCP-Protocol-Version header, unless the
// only sign is a header naming a legacy version. So an `initialize` (which
// carries neither) and every request of a legacy session stay legacy.
func (s *Server) isModernHTTP(r *http.Request, msg *message) bool {
	if _, ok := modernHeader(r.Header, headerSessionID); ok {
		return false
	}
	if version, ok := modernHeader(r.Header, headerProtocolVersion); ok && !isLegacyVersion(version) {
		return true
	}
	return msg.params().modern()
}

// serveModernHTTP serves one 2026-07-28 POST. The checks run in the order
// the conformance fixture uses: required headers present (-32020), _meta
// well formed (-32602), headers equal to the body (-32020), version
// supported (-32022), a tool's Mcp-Param-* headers equal to its arguments
// (-32020); all are HTTP 400. Then the era serves the method.
func (s *Server) serveModernHTTP(w http.ResponseWriter, r *http.Request, msg *message) {
	out := newModernHTTPStream(w, r)
	refuse := func(id json.RawMessage, e *Error) { out.finish(encodeError(id, e), http.StatusBadRequest) }
	switch {
	case msg.isNotification():
		// 2026-07-28 has no client notification that means anything over
		// HTTP (cancellation is closing the response stream).
		w.WriteHeader(http.StatusAccepted)
		return
	case !msg.isRequest():
		refuse(nil, NewError(CodeInvalidRequest, "protocol %s accepts only requests and notifications on POST", Version20260728))
		return
	case !validID(msg.ID):
		refuse(nil, NewError(CodeInvalidRequest, "the request id must be a string or an integer"))
		return
	}
	var nameParam paramSet
	if m := s.row(msg.Method); m != nil {
		nameParam = m.nameParam
	}
	sh, e := readStandardHeaders(r.Header, msg, nameParam)
	if e != nil {
		refuse(msg.ID, e)
		return
	}
	meta, e := parseRequestMeta(msg.params().Meta)
	if e != nil {
		refuse(msg.ID, e)
		return
	}
	if e := sh.match(msg, meta); e != nil {
		refuse(msg.ID, e)
		return
	}
	if e := s.versions.checkModern(meta.ProtocolVersion); e != nil {
		refuse(msg.ID, e)
		return
	}
	if e := s.checkToolHeaders(r.Header, msg); e != nil {
		refuse(msg.ID, e)
		return
	}
	out.finish(s.serveModern(r.Context(), msg, meta, out, addressCaller(r)))
}

// isModernNoSession reports whether a GET or DELETE without Mcp-Session-Id
// is the 2026-07-28 era's business: it is unless its MCP-Protocol-Version
// header names a legacy version.
func (s *Server) isModernNoSession(r *http.Request) bool {
	v, ok := modernHeader(r.Header, headerProtocolVersion)
	return !ok || !isLegacyVersion(v)
}

// serveModernNoSession answers GET and DELETE in the 2026-07-28 era: there is
// no standalone stream and no session to end (subscriptions/listen replaces
// the GET stream), so 405 with Allow: POST.
func (s *Server) serveModernNoSession(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", http.MethodPost)
	http.Error(w, "protocol "+Version20260728+" serves POST only; open a subscriptions/listen stream for notifications", http.StatusMethodNotAllowed)
}
