package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime"
)

// JWTConfig configures a JWTVerifier.
type JWTConfig struct {
	// Issuer is the authorization server's issuer URL; the token's iss and
	// the metadata's issuer must equal it exactly.
	Issuer string
	// Resource is the server's canonical resource URI (runtime.Auth.Resource):
	// the token's aud must contain it, exactly (RFC 8707).
	Resource string
	// JWKSURL, when set, is used instead of the jwks_uri of the issuer's
	// metadata.
	JWKSURL string
	// Algorithms are the signature algorithms accepted; nil means RS256,
	// PS256, ES256 and EdDSA. "none" and HMAC algorithms are never accepted.
	Algorithms []string
	// Leeway tolerates clock skew on exp, nbf and iat; 0 means 5 seconds,
	// negative none.
	Leeway time.Duration
	// KeyRefreshInterval is the least time from the end of one JWKS fetch to
	// the start of the next one that a token causes, by naming a key the
	// cached set lacks or by arriving after a failed fetch; 0 means 10
	// seconds. Such a token that comes sooner is refused at once, without a
	// fetch: as invalid (runtime.ErrInvalidToken) when the last fetch
	// succeeded, as an outage (runtime.ErrAuthUnavailable) when it failed.
	// One that comes while a fetch runs waits for that fetch instead, for as
	// long as its context allows. Tokens with a cached key never wait.
	KeyRefreshInterval time.Duration
	// KeyMaxAge is how long fetched keys are used before they are fetched
	// again; 0 means one hour. The refresh starts with the first token that
	// finds the keys older, which, like every token with a cached key, does
	// not wait for it: the old keys serve until it ends, and no longer if it
	// fails.
	KeyMaxAge time.Duration
	// HTTPClient makes the metadata and JWKS requests; nil means a client
	// with a 10-second timeout. One key fetch (discovery included) takes 30
	// seconds at most, whatever the client allows.
	HTTPClient *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// JWTVerifier verifies JWT access tokens (RFC 9068) against the keys its
// issuer publishes. It is a runtime.TokenVerifier, safe for concurrent use.
type JWTVerifier struct {
	cfg  JWTConfig
	algs []jose.SignatureAlgorithm
	keys *issuerKeys
}

// NewJWTVerifier checks cfg. The metadata and keys are fetched on first use
// (so the authorization server need not be up when the server starts); call
// Discover to fetch them now.
func NewJWTVerifier(cfg JWTConfig) (*JWTVerifier, error) {
	if _, err := metadataURLs(cfg.Issuer); err != nil {
		return nil, err
	}
	if cfg.Resource == "" {
		return nil, errors.New("oauth: JWTConfig.Resource (the canonical resource URI tokens must name in aud) is required")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	switch {
	case cfg.Leeway == 0:
		cfg.Leeway = 5 * time.Second
	case cfg.Leeway < 0:
		cfg.Leeway = 0
	}
	if cfg.KeyRefreshInterval <= 0 {
		cfg.KeyRefreshInterval = 10 * time.Second
	}
	if cfg.KeyMaxAge <= 0 {
		cfg.KeyMaxAge = time.Hour
	}
	names := cfg.Algorithms
	if names == nil {
		names = []string{"RS256", "PS256", "ES256", "EdDSA"}
	}
	v := &JWTVerifier{cfg: cfg, keys: &issuerKeys{issuer: cfg.Issuer, hc: cfg.HTTPClient, now: cfg.Now,
		maxAge: cfg.KeyMaxAge, refetchInterval: cfg.KeyRefreshInterval, jwksURL: cfg.JWKSURL}}
	for _, n := range names {
		a := jose.SignatureAlgorithm(n)
		switch a {
		case jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512, jose.ES256, jose.ES384, jose.ES512, jose.EdDSA:
			v.algs = append(v.algs, a)
		default:
			return nil, fmt.Errorf("oauth: JWTConfig.Algorithms: %q is not an asymmetric signature algorithm", n)
		}
	}
	return v, nil
}

// Discover fetches the issuer's metadata and keys now (or waits for the
// fetch that runs); an error says what is wrong (an issuer mismatch, an
// unreachable server).
func (v *JWTVerifier) Discover(ctx context.Context) error {
	return v.keys.refresh(ctx)
}

// KeyFetches is the number of JWKS fetches started so far.
func (v *JWTVerifier) KeyFetches() int {
	return v.keys.fetchCount()
}

// accessClaims are the claims read besides the registered ones.
type accessClaims struct {
	Scope    any    `json:"scope"`
	Scp      any    `json:"scp"`
	ClientID string `json:"client_id"`
	AZP      string `json:"azp"`
}

// VerifyToken checks token and returns the principal it names.
func (v *JWTVerifier) VerifyToken(ctx context.Context, token string) (*runtime.Principal, error) {
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return nil, fmt.Errorf("%w: not a JWT signed with an accepted algorithm", runtime.ErrInvalidToken)
	}
	if len(tok.Headers) != 1 {
		return nil, fmt.Errorf("%w: want exactly one signature", runtime.ErrInvalidToken)
	}
	h := tok.Headers[0]
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != "" && !strings.EqualFold(typ, "JWT") &&
		!strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") {
		return nil, fmt.Errorf("%w: typ %q is not an access token type", runtime.ErrInvalidToken, typ)
	}
	key, err := v.keys.key(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	var extra accessClaims
	if err := tok.Claims(key.Key, &std, &extra); err != nil {
		return nil, fmt.Errorf("%w: bad signature", runtime.ErrInvalidToken)
	}
	now := v.cfg.Now()
	switch {
	case std.Issuer != v.cfg.Issuer:
		return nil, fmt.Errorf("%w: issued by %s, not by %s", runtime.ErrInvalidToken, std.Issuer, v.cfg.Issuer)
	case std.Expiry == nil:
		return nil, fmt.Errorf("%w: the token has no expiry", runtime.ErrInvalidToken)
	case std.Subject == "":
		return nil, fmt.Errorf("%w: the token names no subject", runtime.ErrInvalidToken)
	}
	err = std.ValidateWithLeeway(jwt.Expected{AnyAudience: jwt.Audience{v.cfg.Resource}, Time: now}, v.cfg.Leeway)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return nil, fmt.Errorf("%w: the token has expired", runtime.ErrInvalidToken)
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return nil, fmt.Errorf("%w: the token is not valid yet", runtime.ErrInvalidToken)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, fmt.Errorf("%w: the audience is not %s", runtime.ErrInvalidToken, v.cfg.Resource)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", runtime.ErrInvalidToken, err)
	}
	client := extra.ClientID
	if client == "" {
		client = extra.AZP
	}
	return &runtime.Principal{
		Issuer:   std.Issuer,
		Subject:  std.Subject,
		ClientID: client,
		Scopes:   scopesOf(extra.Scope, extra.Scp),
		Expiry:   std.Expiry.Time(),
	}, nil
}
