package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// refetchEvery is the tests' KeyRefreshInterval; their clock moves past it
// when a test wants a token to be allowed a fetch again.
const refetchEvery = time.Minute

// deadlock bounds a wait that the code under test must end by itself while
// a JWKS request is held at the server. It is no timing: held requests stay
// held until the wait is over, so a verification that waits for one never
// returns, and the bound turns that deadlock into a failure.
const deadlock = 10 * time.Second

// mustReturn waits for a verification that must not wait for a held JWKS
// request and returns its error.
func mustReturn(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(deadlock):
		t.Fatalf("%s waited for a JWKS fetch that is held until it returns", what)
		return nil
	}
}

// fetchedSince fails the test unless the JWKS endpoint was asked want times
// after it had been asked before times.
func fetchedSince(t *testing.T, is *testIssuer, before int32, want int32, what string) {
	t.Helper()
	if n := is.requests.Load() - before; n != want {
		t.Errorf("%s: %d JWKS fetches, want %d", what, n, want)
	}
}

// A token with an unknown key makes the verifier fetch the JWKS; a valid
// token with a known key sent meanwhile is verified without waiting for it.
func TestKnownKeyDoesNotWaitForKeyFetch(t *testing.T) {
	is := newTestIssuer(t, "k1")
	clock := newTestClock(is.start)
	v := is.verifier(JWTConfig{KeyRefreshInterval: refetchEvery}, clock)
	valid := is.token("k1")
	if _, err := v.VerifyToken(t.Context(), valid); err != nil {
		t.Fatal(err)
	}
	clock.Advance(refetchEvery)

	release := is.hold()
	defer release()
	unknown := verifyAsync(t.Context(), v, is.token("unpublished"))
	<-is.arrived // its fetch is at the JWKS endpoint, held there
	for i := range 3 {
		if err := mustReturn(t, verifyAsync(t.Context(), v, valid), "a valid token"); err != nil {
			t.Errorf("valid token %d: %v", i, err)
		}
	}
	release()
	if err := <-unknown; !errors.Is(err, runtime.ErrInvalidToken) {
		t.Errorf("the unknown key: %v, want ErrInvalidToken", err)
	}
}

// Tokens naming unknown keys at the same time share one JWKS fetch and all
// get its outcome: the keys it brings, or the outage it met.
func TestConcurrentUnknownKeysShareOneFetch(t *testing.T) {
	const n = 16
	for _, tc := range []struct {
		name    string
		prepare func(*testIssuer)
		kid     func(i int) string // of token i
		want    error              // nil: every token is valid
	}{
		{"the fetch brings the new key", func(is *testIssuer) { is.publish("k1", "k2") },
			func(int) string { return "k2" }, nil},
		{"the fetch fails", func(is *testIssuer) { is.answer(http.StatusServiceUnavailable) },
			func(i int) string { return fmt.Sprintf("forged-%d", i) }, runtime.ErrAuthUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := newTestIssuer(t, "k1")
			clock := newTestClock(is.start)
			v := is.verifier(JWTConfig{KeyRefreshInterval: refetchEvery}, clock)
			if _, err := v.VerifyToken(t.Context(), is.token("k1")); err != nil {
				t.Fatal(err)
			}
			tc.prepare(is)
			clock.Advance(refetchEvery)
			before := is.requests.Load()

			release := is.hold()
			defer release()
			var started sync.WaitGroup
			done := make([]chan error, n)
			for i := range n {
				started.Add(1)
				token := is.token(tc.kid(i))
				done[i] = make(chan error, 1)
				go func() {
					started.Done()
					_, err := v.VerifyToken(t.Context(), token)
					done[i] <- err
				}()
			}
			<-is.arrived
			started.Wait()
			release()
			for i := range n {
				if err := <-done[i]; !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
					t.Errorf("token %d: %v, want %v", i, err, tc.want)
				}
			}
			fetchedSince(t, is, before, 1, fmt.Sprintf("%d concurrent tokens with unknown keys", n))
		})
	}
}

// Within KeyRefreshInterval of a fetch, tokens naming unknown keys are
// refused at once and fetch nothing, whether that fetch succeeded (the key
// does not exist: invalid token) or failed (the keys cannot be had now: an
// outage); once the interval has passed, the next one fetches again.
func TestUnknownKeyBurstWithinIntervalFetchesNothing(t *testing.T) {
	const burst = 20
	for _, tc := range []struct {
		name    string
		prepare func(*testIssuer)
		want    error
	}{
		{"after a fetch that succeeded", func(*testIssuer) {}, runtime.ErrInvalidToken},
		{"after a fetch that failed", func(is *testIssuer) { is.answer(http.StatusBadGateway) }, runtime.ErrAuthUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := newTestIssuer(t, "k1")
			clock := newTestClock(is.start)
			v := is.verifier(JWTConfig{KeyRefreshInterval: refetchEvery}, clock)
			valid := is.token("k1")
			if _, err := v.VerifyToken(t.Context(), valid); err != nil {
				t.Fatal(err)
			}
			tc.prepare(is)
			clock.Advance(refetchEvery)
			before := is.requests.Load()
			if _, err := v.VerifyToken(t.Context(), is.token("forged")); !errors.Is(err, tc.want) {
				t.Errorf("the first unknown key: %v, want %v", err, tc.want)
			}
			fetchedSince(t, is, before, 1, "the first unknown key")

			before = is.requests.Load()
			clock.Advance(refetchEvery - time.Second)
			var wg sync.WaitGroup
			for i := range burst {
				wg.Go(func() {
					if _, err := v.VerifyToken(t.Context(), is.token(fmt.Sprintf("forged-%d", i))); !errors.Is(err, tc.want) {
						t.Errorf("unknown key %d: %v, want %v", i, err, tc.want)
					}
				})
			}
			wg.Wait()
			fetchedSince(t, is, before, 0, fmt.Sprintf("%d unknown keys within the interval", burst))
			if _, err := v.VerifyToken(t.Context(), valid); err != nil {
				t.Errorf("the valid token after the burst: %v", err)
			}

			clock.Advance(time.Second)
			if _, err := v.VerifyToken(t.Context(), is.token("forged-late")); !errors.Is(err, tc.want) {
				t.Errorf("an unknown key after the interval: %v, want %v", err, tc.want)
			}
			fetchedSince(t, is, before, 1, "an unknown key after the interval")
		})
	}
}

// The fetch an unknown key starts is shared: the request that started it
// giving up does not end it for the others waiting for it.
func TestAbandonedRequestDoesNotCancelSharedFetch(t *testing.T) {
	is := newTestIssuer(t, "k1")
	clock := newTestClock(is.start)
	v := is.verifier(JWTConfig{KeyRefreshInterval: refetchEvery}, clock)
	if _, err := v.VerifyToken(t.Context(), is.token("k1")); err != nil {
		t.Fatal(err)
	}
	is.publish("k1", "k2")
	clock.Advance(refetchEvery)
	before := is.requests.Load()

	release := is.hold()
	defer release()
	ctx, cancel := context.WithCancel(t.Context())
	first := verifyAsync(ctx, v, is.token("k2"))
	<-is.arrived
	second := verifyAsync(t.Context(), v, is.token("k2"))
	cancel()
	if err := mustReturn(t, first, "a request whose context ended"); !errors.Is(err, context.Canceled) {
		t.Errorf("the request that gave up: %v, want context.Canceled", err)
	}
	release()
	if err := <-second; err != nil {
		t.Errorf("the request that waited: %v", err)
	}
	fetchedSince(t, is, before, 1, "two requests for one new key")
}

// Keys older than KeyMaxAge are fetched again; known keys are served while
// that refresh runs, and no longer once it has failed.
func TestScheduledRefreshServesKnownKeysWhileItRuns(t *testing.T) {
	const maxAge = time.Hour
	is := newTestIssuer(t, "k1")
	clock := newTestClock(is.start)
	v := is.verifier(JWTConfig{KeyRefreshInterval: refetchEvery, KeyMaxAge: maxAge}, clock)
	valid := is.token("k1")
	if _, err := v.VerifyToken(t.Context(), valid); err != nil {
		t.Fatal(err)
	}
	is.publish("k1", "k2")
	clock.Advance(maxAge + time.Second)
	before := is.requests.Load()

	release := is.hold()
	defer release()
	if err := mustReturn(t, verifyAsync(t.Context(), v, valid), "the valid token that found the keys old"); err != nil {
		t.Errorf("the valid token that found the keys old: %v", err)
	}
	<-is.arrived // the refresh it started, held at the JWKS endpoint
	if err := mustReturn(t, verifyAsync(t.Context(), v, valid), "a valid token during the refresh"); err != nil {
		t.Errorf("a valid token during the refresh: %v", err)
	}
	rotated := verifyAsync(t.Context(), v, is.token("k2"))
	release()
	if err := <-rotated; err != nil {
		t.Errorf("the new key, which waited for the refresh: %v", err)
	}
	fetchedSince(t, is, before, 1, "the refresh")

	// A refresh that fails: the old keys serve until it has ended, then the
	// verifier answers "unavailable" rather than trust keys it could not
	// check, until a refresh succeeds.
	is.answer(http.StatusServiceUnavailable)
	clock.Advance(maxAge + time.Second)
	if _, err := v.VerifyToken(t.Context(), valid); err != nil {
		t.Errorf("the valid token that started the failing refresh: %v", err)
	}
	if err := v.Discover(t.Context()); !errors.Is(err, runtime.ErrAuthUnavailable) {
		t.Errorf("Discover, which waits for the refresh: %v, want ErrAuthUnavailable", err)
	}
	if _, err := v.VerifyToken(t.Context(), valid); !errors.Is(err, runtime.ErrAuthUnavailable) {
		t.Errorf("a valid token after the failed refresh: %v, want ErrAuthUnavailable", err)
	}
	is.answer(http.StatusOK)
	clock.Advance(refetchEvery)
	if _, err := v.VerifyToken(t.Context(), valid); err != nil {
		t.Errorf("a valid token once the keys can be fetched again: %v", err)
	}
}
