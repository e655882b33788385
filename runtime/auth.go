package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// This file is the runtime's side of MCP authorization (2025-06-18 onwards):
// over HTTP the server is an OAuth 2.1 resource server. Options.Auth switches
// it on; the runtime then serves Protected Resource Metadata (RFC 9728),
// demands a bearer token on every request (http_auth.go), checks the scopes
// each tool declares before its handler runs (the method rows' rules, method_scopes.go) and binds
// legacy sessions and 2026-07-28 requestState to the principal. Verifying a
// token is a TokenVerifier's job: the oauth module holds a JWT verifier and an
// RFC 7662 introspection verifier, so the runtime itself needs no OAuth
// library. stdio is not authenticated (the specification leaves it to the
// environment).

// Principal is who a verified access token speaks for.
type Principal struct {
	// Issuer is the authorization server that issued the token; Subject is the
	// user (or client) it names. Together they identify the principal.
	Issuer, Subject string
	// ClientID is the OAuth client the token was issued to, when known.
	ClientID string
	// Scopes are the scopes the token grants.
	Scopes []string
	// Expiry is when the token stops being valid; it must be set.
	Expiry time.Time
}

// HasScope reports whether the principal was granted scope.
func (p *Principal) HasScope(scope string) bool {
	for _, s := range p.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// key identifies the principal in sealed state and session records without
// naming it: a digest of issuer and subject.
func (p *Principal) key() string { return p.Key() }

// Key is a digest of the principal's issuer and subject: what state bound
// to a principal keeps (a session, a requestState, an extension's record)
// to check that a later request is the same principal's, without keeping
// who it is. A nil principal's key is "".
func (p *Principal) Key() string {
	if p == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(p.Issuer + "\x00" + p.Subject))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// TokenVerifier turns a bearer token into the principal it speaks for. It
// must check the token's signature (or ask its issuer), issuer, expiry and
// that its audience is this server's canonical resource URI (RFC 8707); a
// token that fails any check is an error wrapping ErrInvalidToken. An error
// wrapping ErrAuthUnavailable (the issuer cannot be reached) is answered with
// 503; any other error is treated as an invalid token. The token must not be
// kept or passed to anything else.
type TokenVerifier interface {
	VerifyToken(ctx context.Context, token string) (*Principal, error)
}

// TokenVerifierFunc adapts a function to TokenVerifier.
type TokenVerifierFunc func(ctx context.Context, token string) (*Principal, error)

// VerifyToken calls f.
func (f TokenVerifierFunc) VerifyToken(ctx context.Context, token string) (*Principal, error) {
	return f(ctx, token)
}

var (
	// ErrInvalidToken marks a token that is expired, malformed, signed by an
	// unknown key or issued for another resource: 401 invalid_token.
	ErrInvalidToken = errors.New("invalid token")
	// ErrAuthUnavailable marks a verification that could not be made (the
	// authorization server is unreachable): 503.
	ErrAuthUnavailable = errors.New("token verification unavailable")
)

// Auth makes the server an OAuth 2.1 resource server on HTTP.
type Auth struct {
	// Resource is the server's canonical resource URI (RFC 8707 / RFC 9728):
	// the URL clients dial, e.g. "https://mcp.example.com/mcp", without a
	// trailing slash or fragment. Tokens must name it in their audience.
	Resource string
	// AuthorizationServers are the issuer URLs of the authorization servers
	// whose tokens are accepted; at least one.
	AuthorizationServers []string
	// Verifier verifies bearer tokens.
	Verifier TokenVerifier
	// Scopes are required of every request, whatever its method; they are
	// also what a 401 challenge asks for when the request needs nothing more.
	Scopes []string
	// ScopesSupported is advertised in the metadata; nil means Scopes plus
	// every scope a registered tool declares.
	ScopesSupported []string
	// Implies, when set, reports whether a granted scope implies a required
	// one (scope hierarchies: "files" implies "files:read"). nil means only
	// equal scopes match.
	Implies func(granted, required string) bool
	// FilterLists makes tools/list, prompts/list, resources/list and
	// resources/templates/list show each principal only the entries its
	// token's scopes allow it to use (such lists are cached privately).
	FilterLists bool
	// ResourceName is the human-readable name in the metadata; empty means
	// Options.Title, else Options.Name.
	ResourceName string
	// DocumentationURL, when set, is advertised as resource_documentation.
	DocumentationURL string
}

// Validate reports what is wrong with the configuration, naming the field.
func (a *Auth) Validate() error {
	if a.Verifier == nil {
		return errors.New("auth: Verifier is required")
	}
	if err := checkResourceURI(a.Resource); err != nil {
		return fmt.Errorf("auth: Resource: %w", err)
	}
	if len(a.AuthorizationServers) == 0 {
		return errors.New("auth: AuthorizationServers needs at least one issuer URL")
	}
	for i, as := range a.AuthorizationServers {
		u, err := url.Parse(as)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" || u.RawQuery != "" {
			return fmt.Errorf("auth: AuthorizationServers[%d] %q is not an absolute http(s) issuer URL without query or fragment", i, as)
		}
	}
	for _, list := range [][]string{a.Scopes, a.ScopesSupported} {
		for _, sc := range list {
			if !validScopeToken(sc) {
				return fmt.Errorf("auth: scope %q is not a valid scope token (RFC 6749 section 3.3)", sc)
			}
		}
	}
	return nil
}

// checkResourceURI checks the canonical form MCP asks for.
func checkResourceURI(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return err
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("%q must be an absolute https (or, on loopback, http) URL", s)
	case u.Host == "":
		return fmt.Errorf("%q has no host", s)
	case u.Fragment != "" || strings.Contains(s, "#"):
		return fmt.Errorf("%q must not have a fragment", s)
	case u.RawQuery != "":
		return fmt.Errorf("%q must not have a query", s)
	case strings.HasSuffix(u.Path, "/"):
		return fmt.Errorf("%q must not end with a slash", s)
	case u.Scheme != strings.ToLower(u.Scheme) || u.Host != strings.ToLower(u.Host):
		return fmt.Errorf("%q must use a lowercase scheme and host", s)
	}
	return nil
}

// validScopeToken is RFC 6749's scope-token: 1*( %x21 / %x23-5B / %x5D-7E ).
func validScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// principalCtxKey carries the verified principal in a request's context.
type principalCtxKey struct{}

// withPrincipal returns ctx carrying p.
func withPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalCtxKey{}, p)
}

// PrincipalFromContext returns the principal of the request ctx belongs to,
// or nil when the request was not authenticated (no Options.Auth, stdio).
func PrincipalFromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalCtxKey{}).(*Principal)
	return p
}

// principalKeyOf is the key of ctx's principal, "" without one.
func principalKeyOf(ctx context.Context) string { return PrincipalFromContext(ctx).key() }

// authState is Options.Auth, checked and with the URLs it implies.
type authState struct {
	cfg          Auth
	metadataPath string // the path of the metadata document, e.g. /.well-known/oauth-protected-resource/mcp
	metadataURL  string // its absolute URL, named by resource_metadata in every challenge
	now          func() time.Time
	logger       *slog.Logger
	name         string          // the resource's name in its metadata
	scopes       func() []string // every scope the server's features declare
}

// newAuthState checks a and derives the metadata URL (RFC 9728 section 3.1:
// the well-known suffix goes between the host and the resource's path).
func newAuthState(a *Auth, logger *slog.Logger, name string, scopes func() []string) (*authState, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	u, _ := url.Parse(a.Resource)
	path := wellKnownResourceMetadata + strings.TrimSuffix(u.EscapedPath(), "/")
	return &authState{
		cfg:          *a,
		metadataPath: path,
		metadataURL:  u.Scheme + "://" + u.Host + path,
		now:          time.Now,
		logger:       logger,
		name:         name,
		scopes:       scopes,
	}, nil
}

// checkScopes validates the scope tokens a tool, prompt or resource
// declares.
func checkScopes(kind, name string, scopes []string) error {
	for _, sc := range scopes {
		if !validScopeToken(sc) {
			return fmt.Errorf("%s %q: scope %q is not a valid scope token (RFC 6749 section 3.3)", kind, name, sc)
		}
	}
	return nil
}

// missing returns the scopes of need that p's scopes do not grant.
func (a *authState) missing(p *Principal, need []string) []string {
	var out []string
	for _, n := range need {
		if !a.grants(p, n) {
			out = append(out, n)
		}
	}
	return out
}

// grants reports whether p holds scope, directly or through Implies.
func (a *authState) grants(p *Principal, scope string) bool {
	for _, g := range p.Scopes {
		if g == scope || (a.cfg.Implies != nil && a.cfg.Implies(g, scope)) {
			return true
		}
	}
	return false
}

func subjectOf(p *Principal) string {
	if p == nil {
		return ""
	}
	return p.Subject
}

// wellKnownResourceMetadata is RFC 9728's well-known URI suffix.
const wellKnownResourceMetadata = "/.well-known/oauth-protected-resource"
