// Package oauth holds ready token verifiers for an mcpgen server that is an
// OAuth 2.1 resource server (runtime.Options.Auth):
//
//   - JWTVerifier checks JWT access tokens locally: the signature against
//     the issuer's JWKS (found through its RFC 8414 or OpenID Connect
//     metadata and cached), the issuer, the expiry and that the audience is
//     the server's canonical resource URI (RFC 8707);
//   - IntrospectionVerifier asks the authorization server about opaque
//     tokens (RFC 7662) and applies the same issuer, expiry and audience
//     checks to its answer.
//
// Both return a runtime.Principal and wrap runtime.ErrInvalidToken when a
// token is refused and runtime.ErrAuthUnavailable when the authorization
// server cannot be reached. Neither keeps a token beyond the cache of
// introspection answers (kept under its SHA-256, never in clear) or sends it
// anywhere but to the introspection endpoint.
//
// A JWTVerifier's keys are fetched so that no token can hold up another:
//
//   - a token whose key is cached is verified at once, never waiting for a
//     fetch, also when the keys are older than KeyMaxAge (their refresh then
//     runs meanwhile; if it fails, the old keys serve no more);
//   - at most one fetch runs at a time, and every token that needs new keys
//     waits for that one, for as long as its own context allows; the fetch
//     does not end with the request that started it, only when done or
//     after 30 seconds;
//   - a token can start a fetch (by naming a key the cached set lacks, or
//     after a failed fetch) only KeyRefreshInterval (default 10 seconds)
//     after the last fetch ended; sooner, it is refused at once with
//     runtime.ErrInvalidToken, or runtime.ErrAuthUnavailable if that fetch
//     failed. Tokens with made-up key IDs thus cause at most one JWKS fetch
//     per interval.
//
// JWT parsing and signatures are go-jose's (github.com/go-jose/go-jose/v4):
// it has no dependencies, makes the algorithm allow-list mandatory and leaves
// discovery and key caching to this package, which needs them to follow
// MCP's rules (RFC 8414 paths as well as OpenID Connect, an issuer echo
// check, a JWKS refetch only for an unknown key and at most once per
// interval). go-oidc was the alternative; it discovers only OpenID Connect
// metadata, refetches the JWKS on every failed signature and would bring
// golang.org/x/oauth2.
package oauth
