package runtime

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
)

// serveResourceMetadata answers the RFC 9728 document. It is public, so any
// origin may read it.
func (a *authState) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	cfg := a.cfg
	name := cfg.ResourceName
	if name == "" {
		name = a.name
	}
	body, _ := json.Marshal(struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported,omitempty"`
		BearerMethods        []string `json:"bearer_methods_supported"`
		ResourceName         string   `json:"resource_name,omitempty"`
		Documentation        string   `json:"resource_documentation,omitempty"`
	}{cfg.Resource, cfg.AuthorizationServers, a.scopesSupported(), []string{"header"}, name, cfg.DocumentationURL})
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "max-age=300")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
}

// authenticate demands a bearer token (RFC 6750 section 2.1, the header
// only) and verifies it. On success it returns r carrying the principal; on
// failure it has written the refusal: 400 invalid_request for a malformed
// request, 401 with a challenge naming the metadata for a missing or invalid
// token, 503 when the verifier could not decide.
func (a *authState) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	values := r.Header.Values("Authorization")
	if r.URL.Query().Has("access_token") {
		a.refuseAuth(w, r, http.StatusBadRequest, "invalid_request", "access tokens must be sent in the Authorization header, never in the query string", nil)
		return nil, false
	}
	if len(values) == 0 {
		a.refuseAuth(w, r, http.StatusUnauthorized, "", "", a.cfg.Scopes)
		return nil, false
	}
	if len(values) > 1 {
		a.refuseAuth(w, r, http.StatusBadRequest, "invalid_request", "more than one Authorization header", nil)
		return nil, false
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		// Another scheme: the client does not know a bearer token is needed.
		a.refuseAuth(w, r, http.StatusUnauthorized, "", "", a.cfg.Scopes)
		return nil, false
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t,") {
		a.refuseAuth(w, r, http.StatusBadRequest, "invalid_request", "the Authorization header must be Bearer followed by one token", nil)
		return nil, false
	}
	p, err := a.cfg.Verifier.VerifyToken(r.Context(), token)
	switch {
	case err != nil && errors.Is(err, ErrAuthUnavailable):
		a.logger.Warn("token verification unavailable", slog.String("error", err.Error()))
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, nil, &Error{Code: CodeInternalError, Message: "token verification is unavailable; try again later"})
		return nil, false
	case err != nil:
		a.refuseAuth(w, r, http.StatusUnauthorized, "invalid_token", err.Error(), a.cfg.Scopes)
		return nil, false
	case p == nil || p.Subject == "":
		a.refuseAuth(w, r, http.StatusUnauthorized, "invalid_token", "the token names no subject", a.cfg.Scopes)
		return nil, false
	case p.Expiry.IsZero():
		a.refuseAuth(w, r, http.StatusUnauthorized, "invalid_token", "the token has no expiry", a.cfg.Scopes)
		return nil, false
	case !p.Expiry.After(a.now()):
		a.refuseAuth(w, r, http.StatusUnauthorized, "invalid_token", "the token has expired", a.cfg.Scopes)
		return nil, false
	}
	if need := a.missing(p, a.cfg.Scopes); len(need) > 0 {
		a.refuseScope(w, nil, p, need, "this server requires scope "+strings.Join(need, " "))
		return nil, false
	}
	a.logger.Debug("request authenticated", slog.String("subject", p.Subject), slog.String("issuer", p.Issuer),
		slog.String("scopes", strings.Join(p.Scopes, " ")))
	return r.WithContext(withPrincipal(r.Context(), p)), true
}

// refuseAuth writes a 400 or 401 with its Bearer challenge.
func (a *authState) refuseAuth(w http.ResponseWriter, r *http.Request, status int, code, desc string, scopes []string) {
	if code != "" {
		a.logger.Info("request refused", slog.Int("status", status), slog.String("error", code),
			slog.String("reason", desc), slog.String("remote", r.RemoteAddr))
	}
	w.Header().Set("WWW-Authenticate", a.challenge(code, desc, scopes))
	msg := "authorization required: send an access token in the Authorization header"
	if desc != "" {
		msg = code + ": " + desc
	}
	writeError(w, status, nil, &Error{Code: CodeInvalidRequest, Message: msg})
}

// refuseScope writes the 403 insufficient_scope challenge that lets a client
// step up: scope names what the request needs plus what the token already
// holds of the server's scopes, so that clients which replace their scope
// rather than add to it keep what they had.
func (a *authState) refuseScope(w http.ResponseWriter, id json.RawMessage, p *Principal, need []string, desc string) {
	scopes := slices.Clone(need)
	supported := a.scopesSupported()
	for _, g := range p.Scopes {
		if slices.Contains(supported, g) && !slices.Contains(scopes, g) {
			scopes = append(scopes, g)
		}
	}
	a.logger.Info("request refused", slog.Int("status", http.StatusForbidden), slog.String("error", "insufficient_scope"),
		slog.String("subject", p.Subject), slog.String("missing", strings.Join(need, " ")))
	w.Header().Set("WWW-Authenticate", a.challenge("insufficient_scope", desc, scopes))
	writeError(w, http.StatusForbidden, id, &Error{Code: CodeInvalidRequest, Message: "insufficient_scope: " + desc})
}

// challenge is one Bearer challenge (RFC 6750 section 3, RFC 9728 section
// 5.1). Values are quoted and kept free of quotes, backslashes and '=', so
// that the simple parsers real clients use read every field.
func (a *authState) challenge(code, desc string, scopes []string) string {
	var b strings.Builder
	b.WriteString("Bearer ")
	if code != "" {
		b.WriteString(`error="` + code + `", `)
		if d := challengeText(desc); d != "" {
			b.WriteString(`error_description="` + d + `", `)
		}
	}
	if len(scopes) > 0 {
		b.WriteString(`scope="` + strings.Join(scopes, " ") + `", `)
	}
	b.WriteString(`resource_metadata="` + a.metadataURL + `"`)
	return b.String()
}

// challengeText keeps what RFC 6750 allows in error_description (%x20-21 /
// %x23-5B / %x5D-7E) minus '=', at most 200 bytes.
func challengeText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 200; i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '=':
			b.WriteByte('\'')
		case c >= 0x20 && c <= 0x7e:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// refuseMissingScopes is the transport's check of one POST's requests: the
// first request whose target needs scopes the principal lacks makes the
// whole POST a 403 with a challenge naming them. It reports whether it
// refused.
func (a *authState) refuseMissingScopes(w http.ResponseWriter, r *http.Request, msgs []*message, d *dispatcher) bool {
	p := PrincipalFromContext(r.Context())
	if p == nil {
		return false
	}
	for _, m := range msgs {
		row := d.row(m.Method)
		if row == nil || !m.isRequest() {
			continue
		}
		target, scopes, _ := row.auth(d, r.Context(), m) // a rule's error is the method's answer
		if need := a.missing(p, scopes); len(need) > 0 {
			a.refuseScope(w, m.ID, p, need, target+" requires scope "+strings.Join(need, " "))
			return true
		}
	}
	return false
}

// scopesSupported is Auth.ScopesSupported, or the server-wide scopes plus
// every scope a tool, prompt or resource declares, in order of first
// appearance.
func (a *authState) scopesSupported() []string {
	if a.cfg.ScopesSupported != nil {
		return a.cfg.ScopesSupported
	}
	return a.scopes()
}
