package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// headerLastEventID resumes a stream (Mcp-Session-Id and MCP-Protocol-Version
// are declared with the other standard headers in modern_headers.go).
const headerLastEventID = "Last-Event-ID"

// ServeHTTP serves the MCP endpoint: POST for client messages, GET for the
// standalone stream and resumption, DELETE to end a session. 2026-07-28
// requests are handed to the stateless core; everything else is a legacy
// session (2025-03-26 to 2025-11-25).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.auth != nil && r.URL.Path == s.auth.metadataPath {
		s.auth.serveResourceMetadata(w, r)
		return
	}
	if !s.originAllowed(r) {
		o := headerText(r.Header.Get("Origin"))
		writeError(w, http.StatusForbidden, nil, &Error{Code: CodeInvalidRequest, Message: "forbidden: Origin " + o +
			" is not allowed: a browser page of another origin must not reach this server; to admit this one, add " + o + " to Options.AllowedOrigins"})
		return
	}
	if !s.hostAllowed(r) {
		h := headerText(r.Host)
		writeError(w, http.StatusForbidden, nil, &Error{Code: CodeInvalidRequest, Message: "forbidden: Host " + h +
			" reached this server on a loopback address, which only loopback names may (DNS-rebinding protection); behind a reverse proxy that passes the client's Host on, add " +
			h + " to Options.AllowedHosts"})
		return
	}
	if s.auth != nil {
		var ok bool
		if r, ok = s.auth.authenticate(w, r); !ok {
			return
		}
	}
	r = s.withHTTPRequest(r)
	switch r.Method {
	case http.MethodPost:
		s.servePOST(w, r)
	case http.MethodGet, http.MethodDelete:
		if r.Header.Get(headerSessionID) == "" && s.isModernNoSession(r) {
			s.serveModernNoSession(w, r)
			return
		}
		if r.Method == http.MethodGet {
			s.serveGET(w, r)
		} else {
			s.serveDELETE(w, r)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, nil, &Error{Code: CodeInvalidRequest, Message: "method not allowed"})
	}
}

// readBody reads a POST body within the size limit and BodyReadTimeout; it
// writes the error response itself and returns nil on failure. The read
// deadline covers the body only: it is cleared before the response, which
// may be a long event stream.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) []byte {
	var rc *http.ResponseController
	if d := s.opts.BodyReadTimeout; d > 0 {
		rc = http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(d)) != nil {
			rc = nil // not a net/http connection (a test recorder): no deadline
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if rc != nil && err == nil {
		// Cleared on success only: after a failure the expired deadline also
		// stops net/http from draining the rest of a trickled body.
		_ = rc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, nil, &Error{Code: CodeInvalidRequest, Message: "request body too large"})
			return nil
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusRequestTimeout, nil, &Error{Code: CodeInvalidRequest, Message: "request body not received within " + s.opts.BodyReadTimeout.String()})
			return nil
		}
		writeError(w, http.StatusBadRequest, nil, &Error{Code: CodeParseError, Message: "reading the body: " + err.Error()})
		return nil
	}
	return body
}

// headerText quotes a header value for a refusal, cut to 100 bytes: enough
// to recognise, too little to carry anything else.
func headerText(v string) string {
	if len(v) > 100 {
		v = v[:100] + "..."
	}
	return strconv.Quote(v)
}

// originAllowed is the Origin check: absent, loopback, or listed.
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if slices.Contains(s.opts.AllowedOrigins, "*") || slices.Contains(s.opts.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopbackName(u.Hostname())
}

// hostAllowed is the DNS-rebinding check: a request that reached a loopback
// address must name a loopback host (or a listed one).
func (s *Server) hostAllowed(r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	tcp, ok := local.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return true
	}
	if slices.Contains(s.opts.AllowedHosts, r.Host) {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return isLoopbackName(host) || slices.Contains(s.opts.AllowedHosts, host)
}

func isLoopbackName(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// accepts reports which response types the Accept header allows.
func accepts(r *http.Request) (jsonOK, sseOK bool) {
	for _, v := range r.Header["Accept"] {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			mt, _, _ := strings.Cut(part, ";")
			mt = strings.TrimSpace(mt)
			switch {
			case strings.EqualFold(mt, "application/json"), strings.EqualFold(mt, "application/*"):
				jsonOK = true
			case strings.EqualFold(mt, "text/event-stream"), strings.EqualFold(mt, "text/*"):
				sseOK = true
			case mt == "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	return jsonOK, sseOK
}

func isJSONContentType(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// versionHeaderOK checks MCP-Protocol-Version: absent means 2025-03-26;
// present, it must be a version the server offers.
func (s *Server) versionHeaderOK(r *http.Request) (string, bool) {
	v := r.Header.Get(headerProtocolVersion)
	if v == "" {
		return "", true
	}
	return v, s.d.versions.offers(v)
}

// writeError writes one JSON-RPC error response with an HTTP status.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, e *Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(encodeError(id, e))
}

// writeJSON writes a JSON body with status 200.
func writeJSON(w http.ResponseWriter, sessionID string, body []byte) {
	writeJSONStatus(w, 0, sessionID, body)
}

// writeJSONStatus writes a JSON body with status (0 means 200).
func writeJSONStatus(w http.ResponseWriter, status int, sessionID string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if sessionID != "" {
		h.Set(headerSessionID, sessionID)
	}
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// serveDELETE ends a session.
func (s *Server) serveDELETE(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(headerSessionID)
	if id == "" {
		writeError(w, http.StatusBadRequest, nil, &Error{Code: CodeInvalidRequest, Message: "missing " + headerSessionID})
		return
	}
	sess, err := s.lookupSession(r.Context(), id)
	if err != nil {
		s.sessionError(w, nil, err)
		return
	}
	s.endSession(r.Context(), sess)
	w.WriteHeader(http.StatusOK)
}

// sessionError answers a failed session lookup: 404 when the session is
// unknown or terminated (the client initializes again), 503 when the store
// failed (the client must not re-initialize because the store blinked).
func (s *Server) sessionError(w http.ResponseWriter, id json.RawMessage, err error) {
	if errors.Is(err, ErrSessionNotFound) {
		writeError(w, http.StatusNotFound, id, &Error{Code: CodeInvalidRequest, Message: "session not found (unknown or terminated); initialize again"})
		return
	}
	writeError(w, http.StatusServiceUnavailable, id, &Error{Code: CodeInternalError, Message: "session store unavailable: " + err.Error()})
}

// retryAfterSeconds is the Retry-After of a refusal for capacity (sessions,
// GET streams): long enough not to hammer the server, short enough that a
// client gets in soon after others leave.
const retryAfterSeconds = "5"

// createSessionError answers a failed session creation: 503 with
// Retry-After when MaxSessions are open (the server is full, not broken),
// 500 otherwise.
func (s *Server) createSessionError(w http.ResponseWriter, id json.RawMessage, err error) {
	if errors.Is(err, ErrTooManySessions) {
		w.Header().Set("Retry-After", retryAfterSeconds)
		writeError(w, http.StatusServiceUnavailable, id, &Error{Code: CodeInternalError,
			Message: "too many sessions on this server (Options.MaxSessions); try again later"})
		return
	}
	writeError(w, http.StatusInternalServerError, id, &Error{Code: CodeInternalError, Message: "creating the session: " + err.Error()})
}

// withHTTPRequest makes r reachable from the contexts of its messages.
func (s *Server) withHTTPRequest(r *http.Request) *http.Request {
	if s.icpt == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), httpRequestKey{}, r))
}
