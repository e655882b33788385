package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// testResource is the audience of the test issuer's tokens.
const testResource = "http://127.0.0.1:1/mcp"

// testIssuer signs tokens with a key per kid and publishes the keys it is
// told to in a JWKS served over real HTTP on 127.0.0.1. The test can hold
// every JWKS request at the server until it releases them, and see each
// held request arrive.
type testIssuer struct {
	tb    testing.TB
	srv   *httptest.Server
	start time.Time // tokens are valid for a day from it

	mu        sync.Mutex
	keys      map[string]*ecdsa.PrivateKey // by kid, made on first use
	published []string                     // the kids the JWKS lists
	status    int                          // answered instead of the JWKS when not 200
	gate      chan struct{}                // when set, JWKS requests wait until it is closed

	arrived  chan struct{} // one value for each JWKS request that waits at the gate
	requests atomic.Int32  // JWKS requests served
}

func newTestIssuer(tb testing.TB, published ...string) *testIssuer {
	is := &testIssuer{tb: tb, start: time.Now(), keys: map[string]*ecdsa.PrivateKey{}, published: published,
		status: http.StatusOK, arrived: make(chan struct{}, 64)}
	is.srv = httptest.NewServer(http.HandlerFunc(is.serveJWKS))
	tb.Cleanup(is.srv.Close)
	return is
}

func (is *testIssuer) serveJWKS(w http.ResponseWriter, r *http.Request) {
	is.requests.Add(1)
	is.mu.Lock()
	gate := is.gate
	is.mu.Unlock()
	if gate != nil {
		select {
		case is.arrived <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.status != http.StatusOK {
		http.Error(w, "keys unavailable", is.status)
		return
	}
	var set jose.JSONWebKeySet
	for _, kid := range is.published {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &is.keyLocked(kid).PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(set)
}

// publish makes the JWKS list exactly kids.
func (is *testIssuer) publish(kids ...string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.published = kids
}

// answer makes the JWKS endpoint answer status (200: the keys).
func (is *testIssuer) answer(status int) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.status = status
}

// hold makes JWKS requests wait at the server until release is called
// (release may be called more than once, from any goroutine).
func (is *testIssuer) hold() (release func()) {
	gate := make(chan struct{})
	is.mu.Lock()
	is.gate = gate
	is.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			is.mu.Lock()
			is.gate = nil
			is.mu.Unlock()
			close(gate)
		})
	}
}

func (is *testIssuer) keyLocked(kid string) *ecdsa.PrivateKey {
	k, ok := is.keys[kid]
	if !ok {
		var err error
		if k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			is.tb.Fatal(err)
		}
		is.keys[kid] = k
	}
	return k
}

// token is an access token for testResource signed with the key kid,
// whether or not the JWKS lists it.
func (is *testIssuer) token(kid string) string {
	is.mu.Lock()
	key := is.keyLocked(kid)
	is.mu.Unlock()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		is.tb.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(jwt.Claims{
		Issuer:   is.srv.URL,
		Subject:  "alice",
		Audience: jwt.Audience{testResource},
		IssuedAt: jwt.NewNumericDate(is.start),
		Expiry:   jwt.NewNumericDate(is.start.Add(24 * time.Hour)),
	}).Serialize()
	if err != nil {
		is.tb.Fatal(err)
	}
	return tok
}

// verifier is a JWTVerifier of the issuer's tokens that reads its JWKS
// directly and lives by clock; cfg sets the bounds.
func (is *testIssuer) verifier(cfg JWTConfig, clock *testClock) *JWTVerifier {
	cfg.Issuer, cfg.Resource = is.srv.URL, testResource
	cfg.JWKSURL, cfg.HTTPClient, cfg.Now = is.srv.URL+"/jwks", is.srv.Client(), clock.Now
	v, err := NewJWTVerifier(cfg)
	if err != nil {
		is.tb.Fatal(err)
	}
	return v
}

// testClock is a clock that moves only when told to.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock(start time.Time) *testClock { return &testClock{now: start} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// verifyAsync verifies token in a goroutine; the channel gets its error.
func verifyAsync(ctx context.Context, v *JWTVerifier, token string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := v.VerifyToken(ctx, token)
		done <- err
	}()
	return done
}
