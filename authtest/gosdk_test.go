package authtest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// The Go SDK's client does the same discovery from the bare URL: the 401,
// the metadata (whose resource it compares byte for byte with the URL it
// dialed), registration, PKCE with resource, and on the 403
// insufficient_scope a step-up with the union of the scopes.
func TestGoSDKDiscoveryAndStepUp(t *testing.T) {
	as := startAS(t)
	m := startServer(t, as, useJWT)
	const redirect = "http://127.0.0.1:1/callback" // never contacted
	// A transport with its own dialer: the SDK then fetches the metadata
	// through it too (instead of a clone with SSRF guards whose connections
	// nothing closes), so closing its idle connections leaves none behind.
	tr := &http.Transport{DialContext: (&net.Dialer{}).DialContext}
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	browser := &http.Client{Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var authorizations []string
	fetch := func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		u, _ := url.Parse(args.URL)
		authorizations = append(authorizations, u.Query().Get("scope"))
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := browser.Do(req)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		loc, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || resp.StatusCode != http.StatusFound {
			return nil, fmt.Errorf("authorize: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		return &auth.AuthorizationResult{Code: loc.Query().Get("code"), State: loc.Query().Get("state")}, nil
	}
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none", ClientName: "mcpgen-authtest-go",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: fetch,
		Client:                   hc,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-authtest-go", Version: "1.0.0"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: m.url, OAuthHandler: h, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer func() {
		if err := sess.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		tr.CloseIdleConnections()
	}()
	text := func(name string) string {
		t.Helper()
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	if got := text("read"); got != "alice mcp:read" {
		t.Errorf("read: %q", got)
	}
	if got := text("write"); !strings.HasPrefix(got, "alice ") || !strings.Contains(got, "mcp:write") {
		t.Errorf("write after step-up: %q", got)
	}
	if len(authorizations) != 2 || authorizations[0] != "mcp:read" || !strings.Contains(authorizations[1], "mcp:read") || !strings.Contains(authorizations[1], "mcp:write") {
		t.Errorf("authorization scopes %q: want mcp:read, then mcp:read and mcp:write", authorizations)
	}
}
