package oauth

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/runtime"
)

// keyFetchTimeout bounds one JWKS fetch, discovery included. A fetch is
// shared by every request that needs it, so no request's context ends it;
// this does, whatever HTTPClient allows.
const keyFetchTimeout = 30 * time.Second

// issuerKeys caches an issuer's JWKS for a JWTVerifier. Verifying a token
// whose key is cached takes the lock only to look the key up, so it never
// waits for a fetch. At most one fetch runs at a time, in a goroutine of its
// own, and every request that needs new keys waits for that one (for as
// long as its context allows). Tokens can start a fetch at most once per
// refetchInterval; the refresh of keys older than maxAge is not limited by
// it.
type issuerKeys struct {
	issuer          string
	hc              *http.Client
	now             func() time.Time
	maxAge          time.Duration
	refetchInterval time.Duration

	mu       sync.Mutex
	jwksURL  string              // configured, or once discovered
	set      *jose.JSONWebKeySet // nil until a fetch succeeds
	fetched  time.Time           // when set was fetched
	lastEnd  time.Time           // when the last fetch ended, whatever its outcome
	lastErr  error               // why the last fetch failed; nil after a success
	inFlight *keyFetch           // the fetch running now, if any
	fetches  int                 // fetches started so far
}

// keyFetch is one JWKS fetch, waited for by any number of requests.
type keyFetch struct {
	done chan struct{} // closed once err is set
	err  error
}

// wait returns the fetch's error once it has ended, or gives up when ctx
// ends first (the fetch goes on for the others).
func (f *keyFetch) wait(ctx context.Context) error {
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return fmt.Errorf("%w: gave up waiting for the issuer's keys: %w", runtime.ErrAuthUnavailable, context.Cause(ctx))
	}
}

// key returns the public key named kid for alg.
//
// A cached key is returned at once. When the cached set is older than
// maxAge, a refresh starts (unless one runs) and the set keeps serving
// until the refresh ends; after a failed refresh it serves no more. Any
// other token needs a fetch: it waits for the running one, or starts one
// if the last fetch ended at least refetchInterval ago. Sooner, it is
// refused at once: its key does not exist if the last fetch succeeded,
// the keys are unavailable if it failed.
func (c *issuerKeys) key(ctx context.Context, kid, alg string) (*jose.JSONWebKey, error) {
	c.mu.Lock()
	now := c.now()
	old := now.Sub(c.fetched) > c.maxAge
	if c.set != nil && (!old || c.lastErr == nil) {
		if k := lookup(c.set, kid, alg); k != nil {
			if old && c.inFlight == nil {
				c.startLocked(ctx) // the refresh; this request does not wait for it
			}
			c.mu.Unlock()
			return k, nil
		}
	}
	f := c.inFlight
	if f == nil {
		if !c.lastEnd.IsZero() && now.Sub(c.lastEnd) < c.refetchInterval {
			err := c.lastErr
			c.mu.Unlock()
			if err != nil {
				return nil, fmt.Errorf("%w (the keys are fetched again at most every %s)", err, c.refetchInterval)
			}
			return nil, unknownKey(kid, alg)
		}
		f = c.startLocked(ctx)
	}
	c.mu.Unlock()
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := lookup(c.set, kid, alg); k != nil {
		return k, nil
	}
	return nil, unknownKey(kid, alg)
}

// refresh fetches the keys now, or waits for the fetch that runs.
func (c *issuerKeys) refresh(ctx context.Context) error {
	c.mu.Lock()
	f := c.inFlight
	if f == nil {
		f = c.startLocked(ctx)
	}
	c.mu.Unlock()
	return f.wait(ctx)
}

// fetchCount is the number of fetches started so far.
func (c *issuerKeys) fetchCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fetches
}

// startLocked starts a fetch. It keeps ctx's values (a trace, say) but not
// its end: the request that started the fetch may go away, the others
// still need it.
func (c *issuerKeys) startLocked(ctx context.Context) *keyFetch {
	f := &keyFetch{done: make(chan struct{})}
	c.inFlight = f
	c.fetches++
	go c.fetch(context.WithoutCancel(ctx), f, c.jwksURL)
	return f
}

// fetch downloads the keys (discovering jwksURL first when it is empty),
// records the outcome and ends f.
func (c *issuerKeys) fetch(ctx context.Context, f *keyFetch, jwksURL string) {
	ctx, cancel := context.WithTimeout(ctx, keyFetchTimeout)
	defer cancel()
	set, jwksURL, err := downloadKeys(ctx, c.hc, c.issuer, jwksURL)
	c.mu.Lock()
	now := c.now()
	c.jwksURL = jwksURL
	if err == nil {
		c.set, c.fetched = set, now
	}
	c.lastEnd, c.lastErr, c.inFlight = now, err, nil
	f.err = err
	c.mu.Unlock()
	close(f.done)
}

// downloadKeys GETs the JWKS at jwksURL or, when it is empty, at the
// jwks_uri of issuer's metadata. It returns the URL it used ("" if
// discovery failed).
func downloadKeys(ctx context.Context, hc *http.Client, issuer, jwksURL string) (*jose.JSONWebKeySet, string, error) {
	if jwksURL == "" {
		md, err := discover(ctx, hc, issuer)
		if err != nil {
			return nil, "", err
		}
		if md.JWKSURI == "" {
			return nil, "", fmt.Errorf("%w: the metadata of issuer %q has no jwks_uri", runtime.ErrAuthUnavailable, issuer)
		}
		jwksURL = md.JWKSURI
	}
	var set jose.JSONWebKeySet
	if _, err := getJSON(ctx, hc, jwksURL, &set); err != nil {
		return nil, jwksURL, fmt.Errorf("%w: %w", runtime.ErrAuthUnavailable, err)
	}
	return &set, jwksURL, nil
}

// lookup returns the public signing key of set named kid (or its only key
// when the token names none) that alg may use, or nil.
func lookup(set *jose.JSONWebKeySet, kid, alg string) *jose.JSONWebKey {
	var found []jose.JSONWebKey
	if kid != "" {
		found = set.Key(kid)
	} else if len(set.Keys) == 1 {
		found = set.Keys
	}
	for i := range found {
		k := &found[i]
		if k.IsPublic() && (k.Use == "" || k.Use == "sig") && (k.Algorithm == "" || k.Algorithm == alg) {
			return k
		}
	}
	return nil
}

func unknownKey(kid, alg string) error {
	return fmt.Errorf("%w: the issuer publishes no key %q for %s", runtime.ErrInvalidToken, kid, alg)
}
