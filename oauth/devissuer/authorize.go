package devissuer

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// client is a registered client (RFC 7591), or the script client.
type client struct {
	ID         string   `json:"client_id"`
	Secret     string   `json:"client_secret,omitempty"` // "" for a public client
	Name       string   `json:"client_name,omitempty"`
	Redirects  []string `json:"redirect_uris,omitempty"`
	GrantTypes []string `json:"grant_types,omitempty"`
	AuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	IssuedAt   int64    `json:"client_id_issued_at,omitempty"`
	// SecretExpiresAt is 0: the secret does not expire (RFC 7591 requires
	// the member when a secret is issued).
	SecretExpiresAt *int64 `json:"client_secret_expires_at,omitempty"`
}

// authRequest is an authorization request waiting on its consent page.
type authRequest struct {
	Client    *client
	Redirect  string
	State     string
	Challenge string
	Scope     string
	Resource  string
}

// grant is what a code or a refresh token stands for.
type grant struct {
	ClientID  string
	Subject   string
	Scope     string
	Resource  string
	Redirect  string // the code's redirect_uri, which the token request must repeat
	Challenge string // the code's PKCE challenge
}

// serveRegister registers a client (RFC 7591): a public client (method
// "none", the default for MCP clients) or a confidential one, which gets a
// secret.
func (is *Issuer) serveRegister(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name       string   `json:"client_name"`
		Redirects  []string `json:"redirect_uris"`
		GrantTypes []string `json:"grant_types"`
		Responses  []string `json:"response_types"`
		AuthMethod string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		is.writeError(w, r, errorf(http.StatusBadRequest, "invalid_client_metadata", "the body is not a JSON object of client metadata: %v", err))
		return
	}
	if len(req.GrantTypes) == 0 {
		req.GrantTypes = []string{"authorization_code"}
	}
	for _, g := range req.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" && g != "client_credentials" {
			is.writeError(w, r, errorf(http.StatusBadRequest, "invalid_client_metadata", "grant type %q is not supported (authorization_code, refresh_token, client_credentials)", g))
			return
		}
	}
	if req.AuthMethod == "" {
		req.AuthMethod = "client_secret_basic" // RFC 7591 §2
	}
	switch req.AuthMethod {
	case "none", "client_secret_basic", "client_secret_post":
	default:
		is.writeError(w, r, errorf(http.StatusBadRequest, "invalid_client_metadata", "token_endpoint_auth_method %q is not supported (none, client_secret_basic, client_secret_post)", req.AuthMethod))
		return
	}
	if len(req.Name) > maxClientFieldBytes || len(req.Redirects) > maxRedirectURIs {
		is.writeError(w, r, errorf(http.StatusBadRequest, "invalid_client_metadata", "client_name is longer than %d bytes or there are more than %d redirect_uris", maxClientFieldBytes, maxRedirectURIs))
		return
	}
	if slices.Contains(req.GrantTypes, "authorization_code") && len(req.Redirects) == 0 {
		is.writeError(w, r, errorf(http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required for the authorization_code grant"))
		return
	}
	for _, u := range req.Redirects {
		if err := checkRedirect(u); err != nil {
			is.writeError(w, r, errorf(http.StatusBadRequest, "invalid_redirect_uri", "%s", err))
			return
		}
	}
	c := &client{ID: newID(16), Name: req.Name, Redirects: req.Redirects, GrantTypes: req.GrantTypes,
		AuthMethod: req.AuthMethod, IssuedAt: is.cfg.Now().Unix()}
	if req.AuthMethod != "none" {
		var never int64
		c.Secret, c.SecretExpiresAt = newID(24), &never
	}
	is.mu.Lock()
	is.clients.put(c.ID, c, time.Time{}, true)
	is.mu.Unlock()
	is.log.Info("devissuer: client registered", "client_id", c.ID, "client_name", c.Name, "redirect_uris", c.Redirects)
	writeJSON(w, http.StatusCreated, c)
}

// checkRedirect accepts an absolute redirect URI without a fragment
// (RFC 6749 §3.1.2): https, http on loopback, or a private-use scheme of a
// native app.
func checkRedirect(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Fragment != "" || len(raw) > maxClientFieldBytes {
		return errors.New("redirect_uri " + quote(raw) + " is not an absolute URI without a fragment")
	}
	if u.Scheme == "http" && u.Hostname() != "localhost" && !isLoopbackIP(u.Hostname()) {
		return errors.New("redirect_uri " + quote(raw) + ": http redirects must go to a loopback address")
	}
	if u.Scheme == "javascript" || u.Scheme == "data" || u.Scheme == "file" {
		return errors.New("redirect_uri " + quote(raw) + ": scheme " + u.Scheme + " is not allowed")
	}
	return nil
}

// serveAuthorize checks an authorization request and shows its consent
// page. A request whose client or redirect URI is wrong gets an error page,
// never a redirect (RFC 6749 §4.1.2.1); other errors go back to the client.
func (is *Issuer) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	now := is.cfg.Now()
	is.mu.Lock()
	c, ok := is.clients.get(q.Get("client_id"), now)
	is.mu.Unlock()
	if !ok {
		is.consentError(w, http.StatusBadRequest, "Unknown client_id "+quote(q.Get("client_id"))+": register the client first (POST "+is.url+"/register).")
		return
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.Redirects) == 1 {
		redirect = c.Redirects[0]
	}
	if !slices.Contains(c.Redirects, redirect) {
		is.consentError(w, http.StatusBadRequest, "redirect_uri "+quote(redirect)+" is not one the client registered.")
		return
	}
	back := func(code, description string) {
		is.log.Info("devissuer: authorization refused", "client_id", c.ID, "error", code, "description", description)
		redirectBack(w, r, redirect, url.Values{"error": {code}, "error_description": {description}, "state": {q.Get("state")}, "iss": {is.url}})
	}
	switch {
	case q.Get("response_type") != "code":
		back("unsupported_response_type", "response_type must be code")
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		back("invalid_request", "PKCE is required: code_challenge with code_challenge_method S256")
	case !validChallenge(q.Get("code_challenge")):
		back("invalid_request", "code_challenge must be 43 characters of base64url (the SHA-256 of the verifier)")
	case !validScope(q.Get("scope")):
		back("invalid_scope", "scope is not a space-separated list of scope tokens")
	case q.Get("resource") != "" && checkResource(q.Get("resource")) != nil:
		back("invalid_target", checkResource(q.Get("resource")).Error())
	default:
		req := &authRequest{Client: c, Redirect: redirect, State: q.Get("state"), Challenge: q.Get("code_challenge"),
			Scope: q.Get("scope"), Resource: q.Get("resource")}
		id := newID(24)
		is.mu.Lock()
		stored := is.consents.put(id, req, now.Add(consentTTL))
		is.mu.Unlock()
		if !stored {
			is.consentError(w, http.StatusServiceUnavailable, "Too many consent pages are open; try again in a few minutes.")
			return
		}
		is.consentPage(w, id, req)
	}
}

// serveConsent is the consent page's answer: approve issues a code, deny
// sends access_denied; either way back to the client's redirect URI.
func (is *Issuer) serveConsent(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		is.consentError(w, http.StatusBadRequest, "The form could not be read.")
		return
	}
	now := is.cfg.Now()
	is.mu.Lock()
	req, ok := is.consents.take(r.PostForm.Get("request"), now)
	is.mu.Unlock()
	if !ok {
		is.consentError(w, http.StatusBadRequest, "This consent page has expired or was answered already; start the sign-in from the client again.")
		return
	}
	params := url.Values{"state": {req.State}, "iss": {is.url}}
	if r.PostForm.Get("decision") != "approve" {
		params.Set("error", "access_denied")
		params.Set("error_description", "the user denied the request")
		is.log.Info("devissuer: consent denied", "client_id", req.Client.ID)
		redirectBack(w, r, req.Redirect, params)
		return
	}
	user := strings.TrimSpace(r.PostForm.Get("user"))
	if user == "" || len(user) > maxClientFieldBytes {
		user = is.cfg.User
	}
	code := newID(24)
	is.mu.Lock()
	stored := is.codes.put(code, &grant{ClientID: req.Client.ID, Subject: user, Scope: req.Scope, Resource: req.Resource,
		Redirect: req.Redirect, Challenge: req.Challenge}, now.Add(codeTTL))
	is.mu.Unlock()
	if !stored {
		params.Set("error", "temporarily_unavailable")
		params.Set("error_description", "too many codes waiting to be exchanged")
		redirectBack(w, r, req.Redirect, params)
		return
	}
	is.log.Info("devissuer: consent approved", "client_id", req.Client.ID, "sub", user, "scope", req.Scope, "resource", req.Resource)
	params.Set("code", code)
	redirectBack(w, r, req.Redirect, params)
}

// redirectBack sends the browser to the client's redirect URI with params
// added to its query.
func redirectBack(w http.ResponseWriter, r *http.Request, redirect string, params url.Values) {
	u, _ := url.Parse(redirect) // checked at registration
	q := u.Query()
	for k, vs := range params {
		if len(vs) > 0 && vs[0] != "" {
			q.Set(k, vs[0])
		}
	}
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusFound)
}

var consentTemplate = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize {{.Client}}</title>
<style>body{font:16px system-ui,sans-serif;max-width:36em;margin:3em auto;padding:0 1em}code{background:#eee;padding:0 .2em}
button{font-size:1em;padding:.4em 1.2em;margin-right:.6em}</style></head>
<body>
<h1>Authorize {{.Client}}</h1>
<p>mcpgen's development issuer (this machine only) is asked for a token.</p>
<dl>
<dt>Client</dt><dd>{{.Client}} (<code>{{.ClientID}}</code>)</dd>
<dt>Scopes</dt><dd>{{if .Scopes}}{{range .Scopes}}<code>{{.}}</code> {{end}}{{else}}none{{end}}</dd>
<dt>For the resource</dt><dd>{{if .Resource}}<code>{{.Resource}}</code>{{else}}not named{{end}}</dd>
</dl>
<form method="post" action="/authorize">
<input type="hidden" name="request" value="{{.Request}}">
<p><label>Sign in as <input name="user" value="{{.User}}"></label></p>
<p><button name="decision" value="approve" type="submit" autofocus>Approve</button>
<button name="decision" value="deny" type="submit">Deny</button></p>
</form>
</body></html>
`))

// consentPage shows the pending request id. The page may not be framed, so
// that no other page can trick a click on Approve.
func (is *Issuer) consentPage(w http.ResponseWriter, id string, req *authRequest) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	name := req.Client.Name
	if name == "" {
		name = "a client"
	}
	_ = consentTemplate.Execute(w, map[string]any{"Client": name, "ClientID": req.Client.ID, "Scopes": strings.Fields(req.Scope),
		"Resource": req.Resource, "Request": id, "User": is.cfg.User})
}

// consentError shows an error page instead of redirecting.
func (is *Issuer) consentError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_ = template.Must(template.New("e").Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not authorized</title></head><body><h1>Not authorized</h1><p>{{.}}</p></body></html>`)).Execute(w, msg)
}

func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return `"` + s + `"`
}
