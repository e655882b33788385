package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// IntrospectionConfig configures an IntrospectionVerifier.
type IntrospectionConfig struct {
	// Issuer is the authorization server's issuer URL. Its metadata names
	// the introspection endpoint unless Endpoint is set, and an iss in an
	// answer must equal it.
	Issuer string
	// Endpoint, when set, is the introspection endpoint.
	Endpoint string
	// Resource is the server's canonical resource URI: the answer's aud must
	// contain it (RFC 8707).
	Resource string
	// ClientID and ClientSecret authenticate this server to the endpoint
	// (HTTP Basic, RFC 7662 section 2.1).
	ClientID, ClientSecret string
	// CacheTTL is how long an active answer is reused (never past the
	// token's exp); 0 means 30 seconds, negative disables the cache.
	CacheTTL time.Duration
	// CacheSize bounds the cached answers; 0 means 10000.
	CacheSize int
	// HTTPClient makes the requests; nil means a client with a 10-second
	// timeout.
	HTTPClient *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// IntrospectionVerifier verifies opaque access tokens by asking the
// authorization server (RFC 7662). It is a runtime.TokenVerifier, safe for
// concurrent use. Active answers are cached under the token's SHA-256.
type IntrospectionVerifier struct {
	cfg IntrospectionConfig

	mu       sync.Mutex
	endpoint string
	cache    map[[32]byte]cachedPrincipal
}

type cachedPrincipal struct {
	p     *runtime.Principal
	until time.Time
}

// NewIntrospectionVerifier checks cfg; the endpoint is discovered on first
// use when not given.
func NewIntrospectionVerifier(cfg IntrospectionConfig) (*IntrospectionVerifier, error) {
	if _, err := metadataURLs(cfg.Issuer); err != nil {
		return nil, err
	}
	if cfg.Resource == "" {
		return nil, errors.New("oauth: IntrospectionConfig.Resource (the canonical resource URI answers must name in aud) is required")
	}
	if cfg.ClientID == "" {
		return nil, errors.New("oauth: IntrospectionConfig.ClientID is required: introspection endpoints authenticate their callers")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = 30 * time.Second
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = 10000
	}
	return &IntrospectionVerifier{cfg: cfg, endpoint: cfg.Endpoint, cache: map[[32]byte]cachedPrincipal{}}, nil
}

// introspection is the answer of RFC 7662 section 2.2.
type introspection struct {
	Active   bool    `json:"active"`
	Scope    any     `json:"scope"`
	ClientID string  `json:"client_id"`
	Username string  `json:"username"`
	Exp      float64 `json:"exp"`
	Sub      string  `json:"sub"`
	Aud      any     `json:"aud"`
	Iss      string  `json:"iss"`
}

// VerifyToken asks the endpoint about token (or reuses a recent answer).
func (v *IntrospectionVerifier) VerifyToken(ctx context.Context, token string) (*runtime.Principal, error) {
	sum := sha256.Sum256([]byte(token))
	now := v.cfg.Now()
	v.mu.Lock()
	if c, ok := v.cache[sum]; ok && now.Before(c.until) {
		v.mu.Unlock()
		return c.p, nil
	}
	endpoint := v.endpoint
	v.mu.Unlock()
	if endpoint == "" {
		md, err := discover(ctx, v.cfg.HTTPClient, v.cfg.Issuer)
		if err != nil {
			return nil, err
		}
		if md.IntrospectionEndpoint == "" {
			return nil, fmt.Errorf("%w: the metadata of issuer %q has no introspection_endpoint", runtime.ErrAuthUnavailable, v.cfg.Issuer)
		}
		endpoint = md.IntrospectionEndpoint
		v.mu.Lock()
		v.endpoint = endpoint
		v.mu.Unlock()
	}
	ans, err := v.introspect(ctx, endpoint, token)
	if err != nil {
		return nil, err
	}
	p, err := v.check(ans, now)
	if err != nil {
		return nil, err
	}
	if v.cfg.CacheTTL > 0 {
		until := min(now.Add(v.cfg.CacheTTL).UnixNano(), p.Expiry.UnixNano())
		v.mu.Lock()
		if len(v.cache) >= v.cfg.CacheSize {
			for k, c := range v.cache {
				if !now.Before(c.until) {
					delete(v.cache, k)
				}
			}
			if len(v.cache) >= v.cfg.CacheSize {
				clear(v.cache) // full of live answers: start again rather than grow
			}
		}
		v.cache[sum] = cachedPrincipal{p: p, until: time.Unix(0, until)}
		v.mu.Unlock()
	}
	return p, nil
}

// introspect POSTs the token to the endpoint.
func (v *IntrospectionVerifier) introspect(ctx context.Context, endpoint, token string) (*introspection, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", runtime.ErrAuthUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(v.cfg.ClientID), url.QueryEscape(v.cfg.ClientSecret))
	resp, err := v.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: introspection: %w", runtime.ErrAuthUnavailable, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes))
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: introspection at %s: status %d", runtime.ErrAuthUnavailable, endpoint, resp.StatusCode)
	}
	var ans introspection
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("%w: introspection at %s: %v", runtime.ErrAuthUnavailable, endpoint, err)
	}
	return &ans, nil
}

// check applies the resource server's own checks to an answer: active,
// issued by the issuer, for this resource, not expired.
func (v *IntrospectionVerifier) check(a *introspection, now time.Time) (*runtime.Principal, error) {
	if !a.Active {
		return nil, fmt.Errorf("%w: the token is not active", runtime.ErrInvalidToken)
	}
	if a.Iss != "" && a.Iss != v.cfg.Issuer {
		return nil, fmt.Errorf("%w: issued by %s, not by %s", runtime.ErrInvalidToken, a.Iss, v.cfg.Issuer)
	}
	var aud []string
	switch x := a.Aud.(type) {
	case string:
		aud = []string{x}
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				aud = append(aud, s)
			}
		}
	}
	found := false
	for _, s := range aud {
		found = found || s == v.cfg.Resource
	}
	if !found {
		return nil, fmt.Errorf("%w: the audience is not %s", runtime.ErrInvalidToken, v.cfg.Resource)
	}
	if a.Exp == 0 {
		return nil, fmt.Errorf("%w: the introspection answer has no exp", runtime.ErrInvalidToken)
	}
	exp := time.Unix(int64(a.Exp), 0)
	if !exp.After(now) {
		return nil, fmt.Errorf("%w: the token has expired", runtime.ErrInvalidToken)
	}
	sub := a.Sub
	if sub == "" {
		sub = a.Username
	}
	if sub == "" {
		return nil, fmt.Errorf("%w: the introspection answer names no subject", runtime.ErrInvalidToken)
	}
	iss := a.Iss
	if iss == "" {
		iss = v.cfg.Issuer
	}
	return &runtime.Principal{Issuer: iss, Subject: sub, ClientID: a.ClientID, Scopes: scopesOf(a.Scope, nil), Expiry: exp}, nil
}
