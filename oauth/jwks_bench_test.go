package oauth

import (
	"flag"
	"testing"
	"time"
)

var jwksDelay = flag.Duration("jwks-delay", 4*time.Second,
	"how long the JWKS endpoint takes to answer in BenchmarkKnownKeyDuringSlowKeyFetch")

// BenchmarkKnownKeyDuringSlowKeyFetch measures how long verifying a valid
// token takes while a token naming an unknown key has the verifier fetch
// the JWKS from an endpoint that answers after -jwks-delay (4s by default,
// as in the report that found the stall). Each iteration starts one such
// fetch, verifies the valid token while it runs and then lets the endpoint
// answer; "valid-ns/op" is the valid token's verification alone. A
// verifier that makes valid tokens wait for the fetch takes the whole
// delay per iteration, so run it with -benchtime=Nx:
//
//	go test -run '^$' -bench KnownKeyDuringSlowKeyFetch -benchtime 5x
func BenchmarkKnownKeyDuringSlowKeyFetch(b *testing.B) {
	is := newTestIssuer(b, "k1")
	clock := newTestClock(is.start)
	v := is.verifier(JWTConfig{KeyRefreshInterval: refetchEvery}, clock)
	valid, unknown := is.token("k1"), is.token("unpublished")
	if _, err := v.VerifyToken(b.Context(), valid); err != nil {
		b.Fatal(err)
	}
	var waited time.Duration
	for b.Loop() {
		clock.Advance(refetchEvery) // the unknown key may fetch again
		release := is.hold()
		answer := time.AfterFunc(*jwksDelay, release)
		fetching := verifyAsync(b.Context(), v, unknown)
		<-is.arrived
		start := time.Now()
		if _, err := v.VerifyToken(b.Context(), valid); err != nil {
			b.Fatal(err)
		}
		waited += time.Since(start)
		answer.Stop()
		release()
		<-fetching
	}
	b.ReportMetric(float64(waited.Nanoseconds())/float64(b.N), "valid-ns/op")
}
