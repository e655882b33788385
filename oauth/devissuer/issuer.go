// Package devissuer is a small OAuth 2.1 authorization server for
// developing an MCP server that requires tokens (mcpgen init --auth) on one
// machine: it issues JWT access tokens that oauth.JWTVerifier accepts, to
// MCP clients such as the MCP Inspector through the authorization code flow
// with PKCE (after a consent page), and to scripts through client
// credentials. It serves only loopback addresses; it is not a production
// authorization server: it keeps everything in memory, signs with a key made
// at start (tokens die with the process), and grants whatever scopes are
// asked for once the consent page is approved.
//
// What it serves, under its issuer URL (http://127.0.0.1:PORT):
//
//   - /.well-known/oauth-authorization-server (RFC 8414) and
//     /.well-known/openid-configuration: the same metadata;
//   - /jwks: the public signing key (ES256);
//   - /register: dynamic client registration (RFC 7591), which MCP
//     clients use to get a client_id;
//   - /authorize: the authorization endpoint; a consent page naming the
//     client, the scopes and the resource, approved or denied with a
//     click; PKCE with S256 is required;
//   - /token: authorization_code (with the PKCE verifier),
//     client_credentials (the script client, Config.ClientID and
//     ClientSecret, or a registered confidential client) and refresh_token
//     grants. Access tokens name the resource asked for (RFC 8707) as their
//     audience and carry the scopes granted; they live Config.TokenTTL.
//
// The command github.com/mcpgen/mcpgen/oauth/cmd/mcpgen-dev-issuer runs it.
package devissuer

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Defaults of Config.
const (
	// DefaultAddr is where the command listens unless told otherwise.
	DefaultAddr = "127.0.0.1:8090"
	// DefaultTokenTTL is the lifetime of an access token: short, so that a
	// client's refresh (or re-authorization) is exercised while developing.
	DefaultTokenTTL = 10 * time.Minute
	// MaxTokenTTL bounds Config.TokenTTL.
	MaxTokenTTL = 24 * time.Hour
	// DefaultClientID and DefaultClientSecret are the script client's
	// credentials for the client_credentials grant. They are not secret:
	// only processes on this machine reach the issuer.
	DefaultClientID     = "dev-client"
	DefaultClientSecret = "dev-secret"
	// DefaultUser is the subject of tokens issued through the consent page.
	DefaultUser = "developer"
)

// Bounds on what the issuer keeps in memory; beyond them the oldest entry
// goes (clients, refresh tokens) or the request is refused (pending consent
// pages, codes), so that no client can grow it without limit.
const (
	maxClients          = 1000
	maxPendingConsents  = 1000
	maxCodes            = 1000
	maxRefreshTokens    = 10000
	maxBodyBytes        = 64 << 10
	consentTTL          = 10 * time.Minute
	codeTTL             = time.Minute
	refreshTTL          = 24 * time.Hour
	maxRedirectURIs     = 10
	maxScopeBytes       = 1024
	maxClientFieldBytes = 2048
)

// Config configures an Issuer. The zero value serves with the defaults.
type Config struct {
	// TokenTTL is the lifetime of access tokens; 0 means DefaultTokenTTL,
	// at most MaxTokenTTL.
	TokenTTL time.Duration
	// ClientID and ClientSecret are the script client for the
	// client_credentials grant; "" means DefaultClientID and
	// DefaultClientSecret.
	ClientID, ClientSecret string
	// User is the subject of tokens issued through the consent page (the
	// page lets it be changed); "" means DefaultUser.
	User string
	// NoRefreshTokens issues no refresh tokens: a client authorizes again
	// when its token expires or lacks a scope. (The TypeScript SDK v1, on
	// a 403, refreshes while it holds a refresh token, which cannot widen
	// the scopes, instead of authorizing again.)
	NoRefreshTokens bool
	// Logger receives a line per token issued and per refusal; nil
	// discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Issuer is the development authorization server, an http.Handler.
type Issuer struct {
	url    string
	cfg    Config
	key    *ecdsa.PrivateKey
	kid    string
	signer jose.Signer
	mux    *http.ServeMux
	log    *slog.Logger

	mu       sync.Mutex
	clients  *bounded[*client]
	consents *bounded[*authRequest]
	codes    *bounded[*grant]
	refresh  *bounded[*grant]
}

// CheckLoopback refuses an address that is not a loopback host and port:
// the issuer hands tokens to whoever asks, so it must be reachable from
// this machine only. An empty host (":8090") means every interface and is
// refused too.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %v; want a loopback host:port such as %s", addr, err, DefaultAddr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("address %q is not a loopback address: the development issuer grants tokens to anyone who reaches it, so it listens on 127.0.0.1, [::1] or localhost only (such as %s)", addr, DefaultAddr)
}

// New returns an issuer whose issuer URL is issuerURL, an http URL of a
// loopback host (http://127.0.0.1:PORT, the address it is served on). It
// makes the signing key.
func New(issuerURL string, cfg Config) (*Issuer, error) {
	u, err := url.Parse(issuerURL)
	if err != nil || u.Scheme != "http" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("devissuer: issuer URL %q: want http://HOST:PORT of a loopback address", issuerURL)
	}
	hostport := u.Host
	if u.Port() == "" {
		hostport = net.JoinHostPort(u.Hostname(), "80")
	}
	if err := CheckLoopback(hostport); err != nil {
		return nil, fmt.Errorf("devissuer: %w", err)
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	if cfg.TokenTTL > MaxTokenTTL {
		return nil, fmt.Errorf("devissuer: TokenTTL %v is longer than %v", cfg.TokenTTL, MaxTokenTTL)
	}
	if cfg.ClientID == "" {
		cfg.ClientID = DefaultClientID
	}
	if cfg.ClientSecret == "" {
		cfg.ClientSecret = DefaultClientSecret
	}
	if cfg.User == "" {
		cfg.User = DefaultUser
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("devissuer: signing key: %w", err)
	}
	jwk := jose.JSONWebKey{Key: &key.PublicKey, Algorithm: string(jose.ES256), Use: "sig"}
	thumb, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("devissuer: key ID: %w", err)
	}
	kid := base64.RawURLEncoding.EncodeToString(thumb)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		return nil, fmt.Errorf("devissuer: signer: %w", err)
	}
	is := &Issuer{
		url: strings.TrimSuffix(issuerURL, "/"), cfg: cfg, key: key, kid: kid, signer: signer, log: log,
		clients:  newBounded[*client](maxClients),
		consents: newBounded[*authRequest](maxPendingConsents),
		codes:    newBounded[*grant](maxCodes),
		refresh:  newBounded[*grant](maxRefreshTokens),
	}
	is.clients.put(cfg.ClientID, &client{ID: cfg.ClientID, Secret: cfg.ClientSecret, Name: "scripts (client_credentials)",
		GrantTypes: []string{"client_credentials"}}, time.Time{})
	is.mux = http.NewServeMux()
	is.mux.HandleFunc("GET /{$}", is.serveIndex)
	is.mux.HandleFunc("GET /.well-known/oauth-authorization-server", is.serveMetadata)
	is.mux.HandleFunc("GET /.well-known/openid-configuration", is.serveMetadata)
	is.mux.HandleFunc("GET /jwks", is.serveJWKS)
	is.mux.HandleFunc("POST /register", is.serveRegister)
	is.mux.HandleFunc("GET /authorize", is.serveAuthorize)
	is.mux.HandleFunc("POST /authorize", is.serveConsent)
	is.mux.HandleFunc("POST /token", is.serveToken)
	return is, nil
}

// URL is the issuer URL, the iss of its tokens.
func (is *Issuer) URL() string { return is.url }

// ServeHTTP serves the issuer's endpoints. Browser-based clients (the MCP
// Inspector) call the metadata, JWKS, registration and token endpoints from
// their own origin, so those answer CORS requests from any origin; none of
// them uses cookies.
func (is *Issuer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/authorize" {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	is.mux.ServeHTTP(w, r)
}

// metadata is the RFC 8414 document (also served as OpenID discovery).
func (is *Issuer) metadata() map[string]any {
	return map[string]any{
		"issuer":                                         is.url,
		"authorization_endpoint":                         is.url + "/authorize",
		"token_endpoint":                                 is.url + "/token",
		"jwks_uri":                                       is.url + "/jwks",
		"registration_endpoint":                          is.url + "/register",
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "client_credentials", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic", "client_secret_post"},
		"authorization_response_iss_parameter_supported": true,
		// OpenID discovery requires these two; the issuer issues no ID tokens.
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"ES256"},
	}
}

func (is *Issuer) serveMetadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, is.metadata())
}

func (is *Issuer) serveJWKS(w http.ResponseWriter, r *http.Request) {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &is.key.PublicKey, KeyID: is.kid, Algorithm: string(jose.ES256), Use: "sig"}}}
	writeJSON(w, http.StatusOK, set)
}

// serveIndex says what the issuer is, for a developer who opens its URL.
func (is *Issuer) serveIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, `mcpgen development issuer (loopback only; not for production)

issuer     %[1]s
metadata   %[1]s/.well-known/oauth-authorization-server
jwks       %[1]s/jwks
register   %[1]s/register
authorize  %[1]s/authorize (a consent page; PKCE S256 required)
token      %[1]s/token

A token for a script (client credentials):

  curl -s -u %[2]s:%[3]s -d grant_type=client_credentials \
    -d scope=SCOPES -d resource=http://127.0.0.1:8080/mcp %[1]s/token
`, is.url, is.cfg.ClientID, is.cfg.ClientSecret)
}

// oauthError is an RFC 6749 §5.2 error response.
type oauthError struct {
	status      int
	code        string
	description string
}

func (e *oauthError) Error() string { return e.code + ": " + e.description }

func errorf(status int, code, format string, args ...any) *oauthError {
	return &oauthError{status: status, code: code, description: fmt.Sprintf(format, args...)}
}

// writeError answers err as JSON; err is an *oauthError or an unexpected
// failure (500, without its text).
func (is *Issuer) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var oe *oauthError
	if !errors.As(err, &oe) {
		is.log.Error("devissuer: request failed", "path", r.URL.Path, "err", err)
		oe = errorf(http.StatusInternalServerError, "server_error", "the request failed")
	}
	is.log.Info("devissuer: refused", "path", r.URL.Path, "error", oe.code, "description", oe.description)
	if oe.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="mcpgen-dev-issuer"`)
	}
	writeJSON(w, oe.status, map[string]string{"error": oe.code, "error_description": oe.description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// newID returns n random bytes, base64url: client IDs, codes, tokens.
func newID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}
