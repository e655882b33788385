package devissuer_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/oauth"
	"github.com/mcpgen/mcpgen/oauth/devissuer"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const resource = "http://127.0.0.1:8080/mcp"

// start serves an issuer over real HTTP on a free loopback port.
func start(t *testing.T, cfg devissuer.Config) *devissuer.Issuer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	is, err := devissuer.New("http://"+ln.Addr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: is, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return is
}

// noRedirect is a client that stops at a redirect, as a test of where it goes.
var noRedirect = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

type tokenAnswer struct {
	AccessToken      string `json:"access_token"`
	TokenType        string `json:"token_type"`
	ExpiresIn        int64  `json:"expires_in"`
	Scope            string `json:"scope"`
	RefreshToken     string `json:"refresh_token"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

func postToken(t *testing.T, is *devissuer.Issuer, form url.Values, basic ...string) (int, tokenAnswer) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, is.URL()+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(basic[0], basic[1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a tokenAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("token response: %v", err)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("token response Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	return resp.StatusCode, a
}

func verifier(t *testing.T, is *devissuer.Issuer) *oauth.JWTVerifier {
	t.Helper()
	v, err := oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: is.URL(), Resource: resource, HTTPClient: noRedirect})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A script's token (client credentials) is a JWT that oauth.JWTVerifier,
// finding the keys through the metadata, accepts for the resource asked
// for, with the scopes asked for and the configured lifetime.
func TestClientCredentialsTokenVerifies(t *testing.T) {
	is := start(t, devissuer.Config{TokenTTL: 2 * time.Minute})
	status, tok := postToken(t, is, url.Values{"grant_type": {"client_credentials"}, "scope": {"notes:read notes:write"}, "resource": {resource}},
		devissuer.DefaultClientID, devissuer.DefaultClientSecret)
	if status != 200 || tok.TokenType != "Bearer" || tok.ExpiresIn != 120 || tok.Scope != "notes:read notes:write" || tok.RefreshToken != "" {
		t.Fatalf("token: %d %+v", status, tok)
	}
	p, err := verifier(t, is).VerifyToken(t.Context(), tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != devissuer.DefaultClientID || !slices.Equal(p.Scopes, []string{"notes:read", "notes:write"}) || time.Until(p.Expiry) > 2*time.Minute {
		t.Errorf("principal %+v", p)
	}
	// Another audience is refused by a server of another resource.
	other, _ := oauth.NewJWTVerifier(oauth.JWTConfig{Issuer: is.URL(), Resource: "http://127.0.0.1:9999/mcp", HTTPClient: noRedirect})
	if _, err := other.VerifyToken(t.Context(), tok.AccessToken); err == nil {
		t.Error("a token for one resource was accepted by another")
	}
}

func TestTokenRefusals(t *testing.T) {
	is := start(t, devissuer.Config{})
	cc := func(extra ...string) url.Values {
		f := url.Values{"grant_type": {"client_credentials"}, "resource": {resource}}
		for i := 0; i+1 < len(extra); i += 2 {
			f.Set(extra[i], extra[i+1])
		}
		return f
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		basic  []string
		status int
		code   string
		says   string
	}{
		{"no client", cc(), nil, 401, "invalid_client", "curl -u dev-client:dev-secret"},
		{"wrong secret", cc(), []string{devissuer.DefaultClientID, "nope"}, 401, "invalid_client", "wrong secret"},
		{"no resource", cc("resource", ""), []string{devissuer.DefaultClientID, devissuer.DefaultClientSecret}, 400, "invalid_target", "resource is required"},
		{"bad resource", cc("resource", "mcp"), []string{devissuer.DefaultClientID, devissuer.DefaultClientSecret}, 400, "invalid_target", "absolute"},
		{"bad scope", cc("scope", `a "b"`), []string{devissuer.DefaultClientID, devissuer.DefaultClientSecret}, 400, "invalid_scope", "scope"},
		{"no grant", cc("grant_type", ""), []string{devissuer.DefaultClientID, devissuer.DefaultClientSecret}, 400, "invalid_request", "grant_type is missing"},
		{"password grant", cc("grant_type", "password"), []string{devissuer.DefaultClientID, devissuer.DefaultClientSecret}, 400, "unsupported_grant_type", "password"},
	} {
		status, a := postToken(t, is, tc.form, tc.basic...)
		if status != tc.status || a.Error != tc.code || !strings.Contains(a.ErrorDescription, tc.says) || a.AccessToken != "" {
			t.Errorf("%s: %d %+v, want %d %s saying %q", tc.name, status, a, tc.status, tc.code, tc.says)
		}
	}
}

// The metadata is RFC 8414's, at both discovery paths, and names S256 PKCE
// and registration; browser clients may read it from another origin.
func TestMetadata(t *testing.T) {
	is := start(t, devissuer.Config{})
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		req, _ := http.NewRequest(http.MethodGet, is.URL()+p, nil)
		req.Header.Set("Origin", "http://localhost:6274")
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		err = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if err != nil || md["issuer"] != is.URL() || md["registration_endpoint"] != is.URL()+"/register" ||
			md["token_endpoint"] != is.URL()+"/token" || md["jwks_uri"] != is.URL()+"/jwks" {
			t.Errorf("%s: %v %v", p, md, err)
		}
		if got := md["code_challenge_methods_supported"]; len(got.([]any)) != 1 || got.([]any)[0] != "S256" {
			t.Errorf("%s: code_challenge_methods_supported %v", p, got)
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: no CORS header", p)
		}
	}
}

// pkce returns a verifier and its S256 challenge.
func pkce(seed string) (string, string) {
	v := strings.Repeat(seed, 43/len(seed)+1)[:43]
	sum := sha256.Sum256([]byte(v))
	return v, base64.RawURLEncoding.EncodeToString(sum[:])
}

// register registers a public client with one redirect URI.
func register(t *testing.T, is *devissuer.Issuer, redirect string) string {
	t.Helper()
	body := `{"client_name":"test client","redirect_uris":["` + redirect + `"],"grant_types":["authorization_code","refresh_token"],"token_endpoint_auth_method":"none"}`
	resp, err := noRedirect.Post(is.URL()+"/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != 201 || c.ClientID == "" || c.ClientSecret != "" {
		t.Fatalf("register: %d %+v %v", resp.StatusCode, c, err)
	}
	return c.ClientID
}

var hiddenRequest = regexp.MustCompile(`name="request" value="([^"]+)"`)

// consent opens the consent page of an authorization request and answers
// it as a user clicking decision; it returns the redirect's query.
func consent(t *testing.T, is *devissuer.Issuer, q url.Values, decision, user string) url.Values {
	t.Helper()
	resp, err := noRedirect.Get(is.URL() + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "Authorize test client") || resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("consent page: %d %s", resp.StatusCode, page)
	}
	for _, s := range strings.Fields(q.Get("scope")) {
		if !strings.Contains(string(page), "<code>"+s+"</code>") {
			t.Errorf("the consent page does not name scope %s", s)
		}
	}
	m := hiddenRequest.FindSubmatch(page)
	if m == nil {
		t.Fatalf("no request field on the consent page:\n%s", page)
	}
	resp, err = noRedirect.PostForm(is.URL()+"/authorize", url.Values{"request": {string(m[1])}, "decision": {decision}, "user": {user}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(loc.String(), q.Get("redirect_uri")) {
		t.Fatalf("consent answer: %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The same page cannot be answered twice.
	again, err := noRedirect.PostForm(is.URL()+"/authorize", url.Values{"request": {string(m[1])}, "decision": {"approve"}})
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != 400 {
		t.Errorf("a consent page answered twice: %d", again.StatusCode)
	}
	return loc.Query()
}

// The authorization code flow of an MCP client: registration, the consent
// page approved, the code redeemed once with its PKCE verifier for a token
// the server's verifier accepts, and a refresh token that rotates.
func TestAuthorizationCodeWithPKCE(t *testing.T) {
	is := start(t, devissuer.Config{})
	const redirect = "http://127.0.0.1:1/callback"
	id := register(t, is, redirect)
	verifierStr, challenge := pkce("abc")
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "state": {"xyz"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "scope": {"notes:read"}, "resource": {resource}}
	back := consent(t, is, q, "approve", "alice")
	if back.Get("state") != "xyz" || back.Get("iss") != is.URL() || back.Get("code") == "" {
		t.Fatalf("redirect query %v", back)
	}
	code := func(v string) url.Values {
		return url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "code": {back.Get("code")}, "redirect_uri": {redirect},
			"code_verifier": {v}, "resource": {resource}}
	}
	if status, a := postToken(t, is, code("wrong-verifier-wrong-verifier-wrong-verifier")); status != 400 || a.Error != "invalid_grant" {
		t.Errorf("a wrong verifier: %d %+v", status, a)
	}
	// The failed attempt spent the code: authorize again.
	back = consent(t, is, q, "approve", "alice")
	status, tok := postToken(t, is, code(verifierStr))
	if status != 200 || tok.Scope != "notes:read" || tok.RefreshToken == "" {
		t.Fatalf("code exchange: %d %+v", status, tok)
	}
	if status, a := postToken(t, is, code(verifierStr)); status != 400 || a.Error != "invalid_grant" {
		t.Errorf("a code redeemed twice: %d %+v", status, a)
	}
	v := verifier(t, is)
	p, err := v.VerifyToken(t.Context(), tok.AccessToken)
	if err != nil || p.Subject != "alice" || !slices.Equal(p.Scopes, []string{"notes:read"}) {
		t.Fatalf("principal %+v, %v", p, err)
	}
	refresh := url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {tok.RefreshToken}}
	status, next := postToken(t, is, refresh)
	if status != 200 || next.RefreshToken == "" || next.RefreshToken == tok.RefreshToken {
		t.Fatalf("refresh: %d %+v", status, next)
	}
	if _, err := v.VerifyToken(t.Context(), next.AccessToken); err != nil {
		t.Errorf("refreshed token: %v", err)
	}
	if status, a := postToken(t, is, refresh); status != 400 || a.Error != "invalid_grant" {
		t.Errorf("a refresh token used twice: %d %+v", status, a)
	}
	// A wider scope needs a new authorization.
	refresh.Set("refresh_token", next.RefreshToken)
	refresh.Set("scope", "notes:read notes:write")
	if status, a := postToken(t, is, refresh); status != 400 || a.Error != "invalid_scope" {
		t.Errorf("refresh to a wider scope: %d %+v", status, a)
	}
}

func TestAuthorizationRefusals(t *testing.T) {
	is := start(t, devissuer.Config{})
	const redirect = "http://127.0.0.1:1/callback"
	id := register(t, is, redirect)
	_, challenge := pkce("xyz")
	base := func(extra ...string) url.Values {
		q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "state": {"s"},
			"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "resource": {resource}}
		for i := 0; i+1 < len(extra); i += 2 {
			q.Set(extra[i], extra[i+1])
		}
		return q
	}
	// Errors the client can be told of go back to its redirect URI.
	for _, tc := range []struct {
		q    url.Values
		code string
	}{
		{base("code_challenge_method", "plain"), "invalid_request"},
		{base("code_challenge", ""), "invalid_request"},
		{base("response_type", "token"), "unsupported_response_type"},
		{base("resource", "not a uri"), "invalid_target"},
	} {
		resp, err := noRedirect.Get(is.URL() + "/authorize?" + tc.q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusFound || loc.Query().Get("error") != tc.code || loc.Query().Get("state") != "s" {
			t.Errorf("%v: %d %s, want a redirect with error %s", tc.q, resp.StatusCode, resp.Header.Get("Location"), tc.code)
		}
	}
	// An unknown client or redirect URI gets a page, never a redirect.
	for _, q := range []url.Values{base("client_id", "nobody"), base("redirect_uri", "http://127.0.0.1:2/elsewhere")} {
		resp, err := noRedirect.Get(is.URL() + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
			t.Errorf("%v: %d Location %q", q, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	// Deny on the consent page: access_denied, no code.
	if back := consent(t, is, base(), "deny", ""); back.Get("error") != "access_denied" || back.Get("code") != "" {
		t.Errorf("denied: %v", back)
	}
	// Registration refuses an http redirect to another host.
	resp, err := noRedirect.Post(is.URL()+"/register", "application/json",
		strings.NewReader(`{"redirect_uris":["http://example.com/cb"],"token_endpoint_auth_method":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("registering an http redirect off loopback: %d", resp.StatusCode)
	}
	// A public client cannot use client credentials.
	if status, a := postToken(t, is, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "resource": {resource}}); status != 401 || a.Error != "unauthorized_client" {
		t.Errorf("client_credentials by a public client: %d %+v", status, a)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8090": true, "[::1]:0": true, "localhost:8090": true, "127.0.0.2:1": true,
		":8090": false, "0.0.0.0:8090": false, "[::]:8090": false, "192.168.1.1:8090": false, "example.com:80": false, "8090": false,
	} {
		if err := devissuer.CheckLoopback(addr); (err == nil) != ok {
			t.Errorf("CheckLoopback(%q) = %v", addr, err)
		}
	}
	for _, u := range []string{"http://0.0.0.0:8090", "https://127.0.0.1:8090", "http://127.0.0.1:8090/path", "http://example.com"} {
		if _, err := devissuer.New(u, devissuer.Config{}); err == nil {
			t.Errorf("New(%q) accepted a non-loopback or non-http issuer", u)
		}
	}
	if _, err := devissuer.New("http://127.0.0.1:8090", devissuer.Config{TokenTTL: 48 * time.Hour}); err == nil {
		t.Error("New accepted a token lifetime beyond MaxTokenTTL")
	}
}
