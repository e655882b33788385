package authtest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/oauth"
	"github.com/mcpgen/mcpgen/runtime"
)

// Every test starts a real authorization server (oauth2-mock-server, as.mjs)
// and an mcpgen server on loopback whose tokens it issues.

// clientRun is what client.mjs reports.
type clientRun struct {
	OK    bool     `json:"ok"`
	Steps []string `json:"steps"`
	Tools []string `json:"tools"`
	Read  string   `json:"read"`
	// ReadAfterExpiry is the read after the first token expired (--outlive).
	ReadAfterExpiry string `json:"readAfterExpiry"`
	Write           string `json:"write"`
	Error           string `json:"error"`
}

func runClient(t *testing.T, args ...string) clientRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node(t), append([]string{"client.mjs"}, args...)...).Output()
	var r clientRun
	if jerr := json.Unmarshal(out, &r); err != nil || jerr != nil {
		t.Fatalf("client.mjs %v: %v %v: %s", args, err, jerr, out)
	}
	if !r.OK {
		t.Fatalf("client.mjs %v failed: %s\nsteps: %v", args, r.Error, r.Steps)
	}
	return r
}

// hs256 signs payload with HMAC, the algorithm-confusion attack on servers
// that let the token pick the algorithm.
func hs256(payload, key string) string {
	in := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + payload
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(in))
	return in + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// A TypeScript SDK client goes from the bare URL to a scoped tool call
// through discovery alone, then steps up from mcp:read to mcp:write on the
// 403.
func TestDiscoveryAndStepUp(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		refresh bool
	}{
		// v1 replaces its scope with the challenged one and, while it holds a
		// refresh token, refreshes instead of re-authorizing (typescript-sdk
		// #2255): the step-up runs with refresh tokens off.
		{"ts-sdk-v1", []string{"--sdk", "v1"}, false},
		{"ts-client-v2", []string{"--sdk", "v2"}, true},
		{"ts-client-v2-2026-07-28", []string{"--sdk", "v2", "--era", "modern"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := startAS(t)
			m := startServer(t, as, useJWT)
			as.config(map[string]any{"refresh": tc.refresh})
			r := runClient(t, append(tc.args, "--url", m.url)...)
			if r.Read != "alice mcp:read" || !strings.HasPrefix(r.Write, "alice ") || !strings.Contains(r.Write, "mcp:write") {
				t.Errorf("read %q, write %q (steps %v)", r.Read, r.Write, r.Steps)
			}
			if !slices.Equal(r.Tools, []string{"confirm", "read"}) {
				t.Errorf("tools/list with mcp:read: %v, want the tools that scope allows", r.Tools)
			}
			// The authorization server saw MCP's discovery: metadata, registration,
			// then authorize (PKCE S256, resource) and token requests naming the
			// resource, first for mcp:read (the 401's scope), then with mcp:write.
			var authorize, tokens []asEvent
			sawMetadata, sawRegister := false, false
			for _, e := range as.takeLog() {
				switch e.Path {
				case "/.well-known/oauth-authorization-server":
					sawMetadata = true
				case "/register":
					sawRegister = true
				case "/authorize":
					authorize = append(authorize, e)
				case "/token":
					tokens = append(tokens, e)
				}
			}
			if !sawMetadata || !sawRegister || len(authorize) != 2 || len(tokens) != 2 {
				t.Fatalf("metadata %v, register %v, authorize %+v, token %+v", sawMetadata, sawRegister, authorize, tokens)
			}
			for _, e := range authorize {
				if e.Resource != m.url || e.CodeChallengeMethod != "S256" {
					t.Errorf("authorize %+v: want resource %s and S256", e, m.url)
				}
			}
			for _, e := range tokens {
				if e.Resource != m.url || e.GrantType != "authorization_code" {
					t.Errorf("token %+v: want an authorization_code grant for %s", e, m.url)
				}
			}
			if authorize[0].Scope != "mcp:read" || !strings.Contains(authorize[1].Scope, "mcp:write") || !strings.Contains(authorize[1].Scope, "mcp:read") {
				t.Errorf("authorize scopes %q then %q: want mcp:read, then mcp:read and mcp:write", authorize[0].Scope, authorize[1].Scope)
			}
		})
	}
}

// Each refused token gets the exact status and challenge.
func TestRefusedTokens(t *testing.T) {
	as := startAS(t)
	m := startServer(t, as, useJWT)
	meta := fmt.Sprintf(`resource_metadata=%q`, m.metadata)
	invalid := func(desc string) string {
		return `Bearer error="invalid_token", error_description="invalid token: ` + desc + `", scope="mcp:read", ` + meta
	}
	good := as.token("alice", "mcp:read", m.url)
	tamper := func(tok string) string { // widen the scope after signing
		parts := strings.Split(tok, ".")
		payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
		payload = []byte(strings.Replace(string(payload), `"scope":"mcp:read"`, `"scope":"mcp:read mcp:write"`, 1))
		parts[1] = base64.RawURLEncoding.EncodeToString(payload)
		return strings.Join(parts, ".")
	}
	flip := func(tok string) string {
		i := strings.LastIndex(tok, ".") + 1
		sig, _ := base64.RawURLEncoding.DecodeString(tok[i:])
		sig[len(sig)-1] ^= 1
		return tok[:i] + base64.RawURLEncoding.EncodeToString(sig)
	}
	payload := strings.Split(good, ".")[1]
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + payload + "."
	for _, tc := range []struct {
		name, token string
		status      int
		challenge   string
	}{
		{"no token", "", 401, `Bearer scope="mcp:read", ` + meta},
		{"expired", as.token("alice", "mcp:read", m.url, "test_exp", "-60"), 401, invalid("the token has expired")},
		{"no expiry", as.token("alice", "mcp:read", m.url, "test_no_exp", "1"), 401, invalid("the token has no expiry")},
		{"not valid yet", as.token("alice", "mcp:read", m.url, "test_nbf", "120"), 401, invalid("the token is not valid yet")},
		{"wrong audience", as.token("alice", "mcp:read", strings.TrimSuffix(m.url, "/mcp")+"/other"), 401, invalid("the audience is not " + m.url)},
		{"audience with a path beyond", as.token("alice", "mcp:read", m.url+"/extra"), 401, invalid("the audience is not " + m.url)},
		{"no audience", as.token("alice", "mcp:read", ""), 401, invalid("the audience is not " + m.url)},
		{"wrong issuer", as.token("alice", "mcp:read", m.url, "test_iss", strings.Replace(as.issuer, "127.0.0.1", "localhost", 1)),
			401, invalid("issued by " + strings.Replace(as.issuer, "127.0.0.1", "localhost", 1) + ", not by " + as.issuer)},
		{"payload edited after signing", tamper(good), 401, invalid("bad signature")},
		{"signature flipped", flip(good), 401, invalid("bad signature")},
		{"alg none", none, 401, invalid("not a JWT signed with an accepted algorithm")},
		{"HS256 keyed with a public value", hs256(payload, m.metadata), 401, invalid("not a JWT signed with an accepted algorithm")},
		{"unknown signing key", as.foreignToken("alice", "mcp:read", m.url), 401, ""}, // checked below
		{"not a JWT", "opaque-garbage", 401, invalid("not a JWT signed with an accepted algorithm")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := m.post(t, tc.token, initialize)
			if tc.challenge == "" {
				if r.status != 401 || len(r.challenge) != 1 || !strings.HasPrefix(r.challenge[0], `Bearer error="invalid_token", error_description="invalid token: the issuer publishes no key `) {
					t.Errorf("got %d %q", r.status, r.challenge)
				}
				return
			}
			if r.status != tc.status || len(r.challenge) != 1 || r.challenge[0] != tc.challenge {
				t.Errorf("got %d %q\nwant %d %q", r.status, r.challenge, tc.status, tc.challenge)
			}
		})
	}
	// Forged tokens cannot make the server fetch the JWKS again and again.
	before := m.jwt.KeyFetches()
	for range 5 {
		m.post(t, as.foreignToken("alice", "mcp:read", m.url), initialize)
	}
	if n := m.jwt.KeyFetches() - before; n > 1 {
		t.Errorf("5 tokens with an unknown key caused %d JWKS fetches, want at most 1", n)
	}
	if r := m.post(t, good, initialize); r.status != 200 {
		t.Errorf("the good token: %d %s", r.status, r.body)
	}
}

// Insufficient scope is 403 with a step-up challenge, in both eras.
func TestInsufficientScope(t *testing.T) {
	as := startAS(t)
	m := startServer(t, as, useJWT)
	read := as.token("alice", "mcp:read", m.url)
	want := fmt.Sprintf(`Bearer error="insufficient_scope", error_description="tool 'write' requires scope mcp:write", scope="mcp:write mcp:read", resource_metadata=%q`, m.metadata)
	init := m.post(t, read, initialize)
	if init.status != 200 || init.session == "" {
		t.Fatalf("initialize: %d %s", init.status, init.body)
	}
	for name, r := range map[string]rawResp{
		"2025-11-25": m.post(t, read, callBody("write", ""), "Mcp-Session-Id", init.session, "MCP-Protocol-Version", "2025-11-25"),
		"2026-07-28": m.modernCall(t, read, "write", ""),
	} {
		if r.status != 403 || len(r.challenge) != 1 || r.challenge[0] != want || !strings.Contains(r.body, "insufficient_scope") {
			t.Errorf("%s: got %d %q %s\nwant 403 %q", name, r.status, r.challenge, r.body, want)
		}
	}
	// A token without the server-wide scope is refused whatever it asks.
	other := as.token("alice", "profile", m.url)
	if r := m.post(t, other, initialize); r.status != 403 || r.challenge[0] != fmt.Sprintf(`Bearer error="insufficient_scope", error_description="this server requires scope mcp:read", scope="mcp:read", resource_metadata=%q`, m.metadata) {
		t.Errorf("no mcp:read: %d %q", r.status, r.challenge)
	}
}

// Another principal's token on a session ID gets 404, like an unknown session.
func TestSessionHijack(t *testing.T) {
	as := startAS(t)
	m := startServer(t, as, useJWT)
	alice := as.token("alice", "mcp:read", m.url)
	bob := as.token("bob", "mcp:read", m.url)
	init := m.post(t, alice, initialize)
	if init.status != 200 || init.session == "" {
		t.Fatalf("initialize: %d %s", init.status, init.body)
	}
	hdr := []string{"Mcp-Session-Id", init.session, "MCP-Protocol-Version", "2025-11-25"}
	if r := m.post(t, bob, callBody("read", ""), hdr...); r.status != 404 || !strings.Contains(r.body, "session not found") {
		t.Errorf("bob on alice's session: %d %s, want 404", r.status, r.body)
	}
	if r := m.post(t, as.token("alice", "mcp:read", m.url), callBody("read", ""), hdr...); r.status != 200 || !strings.Contains(r.body, "alice mcp:read") {
		t.Errorf("alice with a new token on her session: %d %s", r.status, r.body)
	}
}

// requestState issued to one principal is refused under another.
func TestRequestStateReplay(t *testing.T) {
	as := startAS(t)
	m := startServer(t, as, useJWT)
	alice := as.token("alice", "mcp:read", m.url)
	first := m.modernCall(t, alice, "confirm", "")
	var res struct {
		Result struct {
			ResultType   string `json:"resultType"`
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(first.body), &res); err != nil || res.Result.ResultType != "input_required" {
		t.Fatalf("first round: %d %s", first.status, first.body)
	}
	retry := fmt.Sprintf(`,"requestState":%q,"inputResponses":{"confirm_it":{"action":"accept","content":{"confirm":true}}}`, res.Result.RequestState)
	r := m.modernCall(t, as.token("bob", "mcp:read", m.url), "confirm", retry)
	if r.status != 200 || !strings.Contains(r.body, `"code":-32602`) || !strings.Contains(r.body, "requestState was issued to another principal") {
		t.Errorf("bob's retry: %d %s", r.status, r.body)
	}
	r = m.modernCall(t, as.token("alice", "mcp:read", m.url), "confirm", retry)
	if r.status != 200 || !strings.Contains(r.body, "alice confirm=true") {
		t.Errorf("alice's retry with a fresh token: %d %s", r.status, r.body)
	}
}

// Opaque tokens through RFC 7662 introspection get the same checks.
func TestIntrospection(t *testing.T) {
	as := startAS(t)
	m := startServer(t, as, useIntrospection)
	meta := fmt.Sprintf(`resource_metadata=%q`, m.metadata)
	if r := m.post(t, as.token("alice", "mcp:read", m.url), callBody("read", "")); r.status != 400 { // no session: the token passed
		t.Errorf("good token: %d %q %s", r.status, r.challenge, r.body)
	}
	for _, tc := range []struct{ name, token, desc string }{
		{"unknown token", "never-issued", "the token is not active"},
		{"wrong audience", as.token("alice", "mcp:read", "http://127.0.0.1:1/mcp"), "the audience is not " + m.url},
		{"expired", as.token("alice", "mcp:read", m.url, "test_exp", "-60"), "the token is not active"},
	} {
		r := m.post(t, tc.token, initialize)
		want := `Bearer error="invalid_token", error_description="invalid token: ` + tc.desc + `", scope="mcp:read", ` + meta
		if r.status != 401 || len(r.challenge) != 1 || r.challenge[0] != want {
			t.Errorf("%s: got %d %q\nwant 401 %q", tc.name, r.status, r.challenge, want)
		}
	}
	if !slices.ContainsFunc(as.takeLog(), func(e asEvent) bool { return e.Path == "/introspect" }) {
		t.Error("the authorization server saw no introspection request")
	}
}

// A key the issuer starts publishing is picked up with one JWKS fetch; the
// old key keeps working while it is published.
func TestKeyRotation(t *testing.T) {
	as := startAS(t)
	m := startServerWith(t, as, useJWT, time.Millisecond, 0)
	if r := m.post(t, as.token("alice", "mcp:read", m.url), initialize); r.status != 200 {
		t.Fatalf("before rotation: %d %s", r.status, r.body)
	}
	before := m.jwt.KeyFetches()
	resp, err := http.PostForm(as.issuer+"/test/rotate", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	var rotated struct{ Kid string }
	err = json.NewDecoder(resp.Body).Decode(&rotated)
	resp.Body.Close()
	if err != nil || rotated.Kid == "" {
		t.Fatalf("rotate: %v", err)
	}
	// The authorization server signs with its keys in turn, an id_token and
	// an access token per password grant: a client_credentials grant (one
	// token) in between makes the next access token use the other key.
	var newTok, oldTok string
	for i := range 4 {
		if i%2 == 1 {
			as.post("/token", url.Values{"grant_type": {"client_credentials"}, "scope": {"x"}})
			continue
		}
		tok := as.token("alice", "mcp:read", m.url)
		hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
		var h struct{ Kid string }
		_ = json.Unmarshal(hdr, &h)
		if h.Kid == rotated.Kid {
			newTok = tok
		} else {
			oldTok = tok
		}
	}
	if newTok == "" || oldTok == "" {
		t.Fatalf("want one token per key, got new %v old %v", newTok != "", oldTok != "")
	}
	if r := m.post(t, newTok, initialize); r.status != 200 {
		t.Errorf("token with the new key: %d %q", r.status, r.challenge)
	}
	if n := m.jwt.KeyFetches() - before; n != 1 {
		t.Errorf("the new key took %d JWKS fetches, want 1", n)
	}
	if r := m.post(t, oldTok, initialize); r.status != 200 {
		t.Errorf("token with the old key: %d %q", r.status, r.challenge)
	}
}

// A verifier configured with another spelling of the issuer than the one
// the authorization server's metadata names refuses to use it (the server
// then answers 503: a misconfiguration, not a bad token).
func TestIssuerMismatchAtDiscovery(t *testing.T) {
	as := startAS(t)
	other := strings.Replace(as.issuer, "127.0.0.1", "localhost", 1)
	v, err := oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: other, Resource: "http://127.0.0.1:1/mcp", HTTPClient: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}})
	if err != nil {
		t.Fatal(err)
	}
	err = v.Discover(context.Background())
	if !errors.Is(err, runtime.ErrAuthUnavailable) || !strings.Contains(err.Error(), fmt.Sprintf("names issuer %q, not %q", as.issuer, other)) {
		t.Errorf("discovery: %v", err)
	}
}

// A client whose token expires refreshes it (with the resource indicator)
// when the server answers 401 invalid_token, and goes on.
func TestExpiredTokenRefresh(t *testing.T) {
	as := startAS(t)
	m := startServerWith(t, as, useJWT, time.Hour, -1) // no leeway: expired means expired
	as.config(map[string]any{"ttl": 2, "refresh": true})
	// The wait lets the 2-second token expire: the passing of time is what
	// is tested here.
	r := runClient(t, "--sdk", "v2", "--outlive", "3000", "--url", m.url)
	if r.Read != "alice mcp:read" || r.ReadAfterExpiry != "alice mcp:read" {
		t.Errorf("read %q, after expiry %q (steps %v)", r.Read, r.ReadAfterExpiry, r.Steps)
	}
	if log := m.logged(); !strings.Contains(log, `error=invalid_token reason="invalid token: the token has expired"`) {
		t.Errorf("the server did not refuse the expired token:\n%s", log)
	}
	refreshed := false
	for _, e := range as.takeLog() {
		if e.Path == "/token" && e.GrantType == "refresh_token" {
			refreshed = true
			if e.Resource != m.url {
				t.Errorf("refresh without the resource indicator: %+v", e)
			}
		}
	}
	if !refreshed {
		t.Error("the client did not refresh its token")
	}
}
