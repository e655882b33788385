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
// are declared with the other standard headers in version.go).
const headerLastEventID = "Last-Event-ID"

// httpTransport serves the MCP endpoint over Streamable HTTP: both eras on
// one path, told apart per request (isModernHTTP), each handed to its core.
type httpTransport struct {
	opts     httpOptions
	auth     *authState // nil without Options.Auth
	d        *dispatcher
	sessions *sessionTable
	legacy   *sessionCore   // serves the requests of legacy sessions
	modern   *statelessCore // serves 2026-07-28 requests
	icpt     *interceptors  // nil when none: requests need not reach their contexts
	clients  clientAddresses
}

// httpOptions are the Options the HTTP transport uses.
type httpOptions struct {
	bodyReadTimeout time.Duration
	maxBodyBytes    int64
	allowedOrigins  []string
	allowedHosts    []string
	streamAfter     time.Duration
	keepAlive       time.Duration
	bus             SessionBus
}

func newHTTPOptions(o Options) httpOptions {
	return httpOptions{bodyReadTimeout: o.BodyReadTimeout, maxBodyBytes: o.MaxBodyBytes, allowedOrigins: o.AllowedOrigins,
		allowedHosts: o.AllowedHosts, streamAfter: o.StreamAfter, keepAlive: o.KeepAlive, bus: o.Bus}
}

// ServeHTTP is Server.ServeHTTP.
func (t *httpTransport) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if t.auth != nil && r.URL.Path == t.auth.metadataPath {
		t.auth.serveResourceMetadata(w, r)
		return
	}
	if !t.originAllowed(r) {
		o := headerText(r.Header.Get("Origin"))
		writeError(w, http.StatusForbidden, nil, &Error{Code: CodeInvalidRequest, Message: "forbidden: Origin " + o +
			" is not allowed: a browser page of another origin must not reach this server; to admit this one, add " + o + " to Options.AllowedOrigins"})
		return
	}
	if !t.hostAllowed(r) {
		h := headerText(r.Host)
		writeError(w, http.StatusForbidden, nil, &Error{Code: CodeInvalidRequest, Message: "forbidden: Host " + h +
			" reached this server on a loopback address, which only loopback names may (DNS-rebinding protection); behind a reverse proxy that passes the client's Host on, add " +
			h + " to Options.AllowedHosts"})
		return
	}
	if t.auth != nil {
		var ok bool
		if r, ok = t.auth.authenticate(w, r); !ok {
			return
		}
	}
	r = t.withHTTPRequest(r)
	switch r.Method {
	case http.MethodPost:
		t.servePOST(w, r)
	case http.MethodGet, http.MethodDelete:
		if r.Header.Get(headerSessionID) == "" && t.isModernNoSession(r) {
			t.serveModernNoSession(w, r)
			return
		}
		if r.Method == http.MethodGet {
			t.serveGET(w, r)
		} else {
			t.serveDELETE(w, r)
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
func (t *httpTransport) readBody(w http.ResponseWriter, r *http.Request) []byte {
	var rc *http.ResponseController
	if d := t.opts.bodyReadTimeout; d > 0 {
		rc = http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(d)) != nil {
			rc = nil // not a net/http connection (a test recorder): no deadline
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, t.opts.maxBodyBytes))
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
			writeError(w, http.StatusRequestTimeout, nil, &Error{Code: CodeInvalidRequest, Message: "request body not received within " + t.opts.bodyReadTimeout.String()})
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
func (t *httpTransport) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if slices.Contains(t.opts.allowedOrigins, "*") || slices.Contains(t.opts.allowedOrigins, origin) {
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
func (t *httpTransport) hostAllowed(r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	tcp, ok := local.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return true
	}
	if slices.Contains(t.opts.allowedHosts, r.Host) {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return isLoopbackName(host) || slices.Contains(t.opts.allowedHosts, host)
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
func (t *httpTransport) versionHeaderOK(r *http.Request) (string, bool) {
	v := r.Header.Get(headerProtocolVersion)
	if v == "" {
		return "", true
	}
	return v, t.d.versions.offers(v)
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
func (t *httpTransport) serveDELETE(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(headerSessionID)
	if id == "" {
		writeError(w, http.StatusBadRequest, nil, &Error{Code: CodeInvalidRequest, Message: "missing " + headerSessionID})
		return
	}
	sess, err := t.sessions.lookupSession(r.Context(), id)
	if err != nil {
		t.sessionError(w, nil, err)
		return
	}
	t.sessions.endSession(r.Context(), sess)
	w.WriteHeader(http.StatusOK)
}

// sessionError answers a failed session lookup: 404 when the session is
// unknown or terminated (the client initializes again), 503 when the store
// failed (the client must not re-initialize because the store blinked),
// with a message that names no address and no driver error: the store's
// error goes to the log.
func (t *httpTransport) sessionError(w http.ResponseWriter, id json.RawMessage, err error) {
	if errors.Is(err, ErrSessionNotFound) {
		writeError(w, http.StatusNotFound, id, &Error{Code: CodeInvalidRequest, Message: "session not found (unknown or terminated); initialize again"})
		return
	}
	t.sessions.logger.Warn("the session store failed", "error", err)
	writeStoreUnavailable(w, id)
}

// writeStoreUnavailable answers a request that a failed store refused: 503
// and errStoreUnavailable, with Retry-After.
func writeStoreUnavailable(w http.ResponseWriter, id json.RawMessage) {
	w.Header().Set("Retry-After", storeRetryAfterSeconds)
	writeError(w, http.StatusServiceUnavailable, id, errStoreUnavailable)
}

// storeRetryAfterSeconds is the Retry-After of a 503 for a failed store: a
// store that blinked (a failover, a restart) is usually back within it.
const storeRetryAfterSeconds = "1"

// retryAfterSeconds is the Retry-After of a refusal for capacity (sessions,
// GET streams): long enough not to hammer the server, short enough that a
// client gets in soon after others leave.
const retryAfterSeconds = "5"

// createSessionError answers a failed session creation: 503 with
// Retry-After when MaxSessions are open (the server is full, not broken),
// and 503 with errStoreUnavailable when the store could not keep it (the
// store's error goes to the log).
func (t *httpTransport) createSessionError(w http.ResponseWriter, id json.RawMessage, err error) {
	if errors.Is(err, ErrTooManySessions) {
		w.Header().Set("Retry-After", retryAfterSeconds)
		writeError(w, http.StatusServiceUnavailable, id, &Error{Code: CodeInternalError,
			Message: "too many sessions on this server (Options.MaxSessions); try again later"})
		return
	}
	t.sessions.logger.Warn("creating a session: the session store failed", "error", err)
	writeStoreUnavailable(w, id)
}

// withHTTPRequest makes r reachable from the contexts of its messages.
func (t *httpTransport) withHTTPRequest(r *http.Request) *http.Request {
	if t.icpt == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), httpRequestKey{}, r))
}
