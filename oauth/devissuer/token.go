package devissuer

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
)

// tokenResponse is RFC 6749 §5.1's.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
	RefreshToken string `json:"refresh_token,omitempty"`
}

// accessClaims are the claims of an access token (RFC 9068).
type accessClaims struct {
	jwt.Claims
	ClientID string `json:"client_id"`
	Scope    string `json:"scope"`
}

// serveToken is the token endpoint.
func (is *Issuer) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		is.writeError(w, r, errorf(http.StatusBadRequest, "invalid_request", "the body is not a form (application/x-www-form-urlencoded)"))
		return
	}
	f := r.PostForm
	c, err := is.authenticate(r)
	if err != nil {
		is.writeError(w, r, err)
		return
	}
	var g *grant
	switch gt := f.Get("grant_type"); gt {
	case "authorization_code":
		g, err = is.exchangeCode(c, f)
	case "client_credentials":
		g, err = is.clientCredentials(c, f)
	case "refresh_token":
		g, err = is.refreshGrant(c, f)
	case "":
		err = errorf(http.StatusBadRequest, "invalid_request", "grant_type is missing (authorization_code, client_credentials or refresh_token)")
	default:
		err = errorf(http.StatusBadRequest, "unsupported_grant_type", "grant type %q is not supported (authorization_code, client_credentials, refresh_token)", gt)
	}
	if err != nil {
		is.writeError(w, r, err)
		return
	}
	resp, err := is.issue(g, f.Get("grant_type") != "client_credentials" && !is.cfg.NoRefreshTokens)
	if err != nil {
		is.writeError(w, r, err)
		return
	}
	is.log.Info("devissuer: token issued", "grant_type", f.Get("grant_type"), "client_id", g.ClientID, "sub", g.Subject, "scope", g.Scope, "aud", g.Resource)
	writeJSON(w, http.StatusOK, resp)
}

// authenticate finds the calling client: by HTTP Basic or client_secret in
// the form (confidential clients, checked), or by client_id alone (public
// clients).
func (is *Issuer) authenticate(r *http.Request) (*client, error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		// RFC 6749 §2.3.1: Basic credentials are form-encoded.
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == "" {
		return nil, errorf(http.StatusUnauthorized, "invalid_client", "no client: send client_id (and the secret of a confidential client, as HTTP Basic: curl -u %s:%s)", is.cfg.ClientID, is.cfg.ClientSecret)
	}
	is.mu.Lock()
	c, ok := is.clients.get(id, is.cfg.Now())
	is.mu.Unlock()
	switch {
	case !ok:
		return nil, errorf(http.StatusUnauthorized, "invalid_client", "client %s is not registered (this issuer keeps clients in memory: a restart forgets them; register again)", quote(id))
	case c.Secret == "" && secret != "":
		return nil, errorf(http.StatusUnauthorized, "invalid_client", "client %s is public and has no secret", quote(id))
	case c.Secret != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(c.Secret)) != 1:
		return nil, errorf(http.StatusUnauthorized, "invalid_client", "wrong secret for client %s", quote(id))
	}
	return c, nil
}

// exchangeCode redeems an authorization code, once, with its PKCE verifier.
func (is *Issuer) exchangeCode(c *client, f url.Values) (*grant, error) {
	is.mu.Lock()
	g, ok := is.codes.take(f.Get("code"), is.cfg.Now())
	is.mu.Unlock()
	switch {
	case !ok:
		return nil, errorf(http.StatusBadRequest, "invalid_grant", "the code is unknown, expired (codes live %v) or used already", codeTTL)
	case g.ClientID != c.ID:
		return nil, errorf(http.StatusBadRequest, "invalid_grant", "the code was issued to another client")
	case f.Get("redirect_uri") != g.Redirect:
		return nil, errorf(http.StatusBadRequest, "invalid_grant", "redirect_uri must be the one of the authorization request")
	case !pkceMatches(f.Get("code_verifier"), g.Challenge):
		return nil, errorf(http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge (S256)")
	}
	if res := f.Get("resource"); res != "" {
		if g.Resource != "" && res != g.Resource {
			return nil, errorf(http.StatusBadRequest, "invalid_target", "resource %s is not the one authorized (%s)", quote(res), g.Resource)
		}
		g.Resource = res
	}
	return g, is.needResource(g)
}

// clientCredentials issues a token to a confidential client for itself.
func (is *Issuer) clientCredentials(c *client, f url.Values) (*grant, error) {
	if c.Secret == "" || !contains(c.GrantTypes, "client_credentials") {
		return nil, errorf(http.StatusUnauthorized, "unauthorized_client", "client_credentials needs a confidential client registered for that grant, such as %s", is.cfg.ClientID)
	}
	if !validScope(f.Get("scope")) {
		return nil, errorf(http.StatusBadRequest, "invalid_scope", "scope is not a space-separated list of scope tokens")
	}
	g := &grant{ClientID: c.ID, Subject: c.ID, Scope: f.Get("scope"), Resource: f.Get("resource")}
	return g, is.needResource(g)
}

// refreshGrant redeems a refresh token, once (it rotates), for the same or
// fewer scopes.
func (is *Issuer) refreshGrant(c *client, f url.Values) (*grant, error) {
	is.mu.Lock()
	g, ok := is.refresh.take(f.Get("refresh_token"), is.cfg.Now())
	is.mu.Unlock()
	switch {
	case !ok:
		return nil, errorf(http.StatusBadRequest, "invalid_grant", "the refresh token is unknown, expired or used already (they rotate: each is good once)")
	case g.ClientID != c.ID:
		return nil, errorf(http.StatusBadRequest, "invalid_grant", "the refresh token was issued to another client")
	}
	next := *g
	if s := f.Get("scope"); s != "" {
		had := strings.Fields(g.Scope)
		for _, want := range strings.Fields(s) {
			if !contains(had, want) {
				return nil, errorf(http.StatusBadRequest, "invalid_scope", "scope %s was not granted; authorize again to get it", want)
			}
		}
		next.Scope = s
	}
	if res := f.Get("resource"); res != "" && res != g.Resource {
		return nil, errorf(http.StatusBadRequest, "invalid_target", "resource %s is not the one authorized (%s)", quote(res), g.Resource)
	}
	return &next, nil
}

// needResource checks the token's audience: MCP servers accept only tokens
// issued for them (RFC 8707), so a token without one would be refused.
func (is *Issuer) needResource(g *grant) error {
	if g.Resource == "" {
		return errorf(http.StatusBadRequest, "invalid_target", "resource is required: the URL of the MCP server the token is for, such as http://127.0.0.1:8080/mcp (RFC 8707)")
	}
	if err := checkResource(g.Resource); err != nil {
		return errorf(http.StatusBadRequest, "invalid_target", "%s", err)
	}
	return nil
}

// issue signs an access token for g and, with refresh, a refresh token.
func (is *Issuer) issue(g *grant, refresh bool) (*tokenResponse, error) {
	now := is.cfg.Now()
	claims := accessClaims{
		Claims: jwt.Claims{
			Issuer: is.url, Subject: g.Subject, Audience: jwt.Audience{g.Resource},
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
			Expiry: jwt.NewNumericDate(now.Add(is.cfg.TokenTTL)), ID: newID(12),
		},
		ClientID: g.ClientID, Scope: g.Scope,
	}
	tok, err := jwt.Signed(is.signer).Claims(claims).Serialize()
	if err != nil {
		return nil, err
	}
	resp := &tokenResponse{AccessToken: tok, TokenType: "Bearer", ExpiresIn: int64(is.cfg.TokenTTL / time.Second), Scope: g.Scope}
	if refresh {
		resp.RefreshToken = newID(32)
		is.mu.Lock()
		is.refresh.put(resp.RefreshToken, g, now.Add(refreshTTL), true)
		is.mu.Unlock()
	}
	return resp, nil
}

// pkceMatches checks an S256 verifier (RFC 7636 §4.6).
func pkceMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// validChallenge: an S256 challenge is 43 base64url characters.
func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(c)
	return err == nil
}

// validScope checks RFC 6749 §3.3 syntax ("" is no scope).
func validScope(s string) bool {
	if len(s) > maxScopeBytes {
		return false
	}
	for _, tok := range strings.Split(s, " ") {
		if tok == "" && s != "" {
			return false
		}
		for _, r := range tok {
			if r < 0x21 || r == 0x22 || r == 0x5c || r > 0x7e {
				return false
			}
		}
	}
	return true
}

// checkResource accepts an absolute http(s) URI without a fragment
// (RFC 8707 §2).
func checkResource(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" || len(raw) > maxClientFieldBytes {
		return errorf(http.StatusBadRequest, "invalid_target", "resource %s is not an absolute http(s) URI without a fragment", quote(raw))
	}
	return nil
}

func isLoopbackIP(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
