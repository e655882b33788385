package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// maxDocumentBytes bounds a metadata, JWKS or introspection answer.
const maxDocumentBytes = 1 << 20

// defaultHTTPClient bounds every request to the authorization server.
var defaultHTTPClient = &http.Client{Timeout: 10 * time.Second}

// serverMetadata is the part of RFC 8414 / OpenID Connect discovery metadata
// the verifiers use.
type serverMetadata struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

// metadataURLs are the discovery URLs of issuer in the order MCP asks
// clients to try (2025-11-25 onwards): RFC 8414 with the path inserted,
// OpenID Connect with the path inserted, OpenID Connect appended.
func metadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("oauth: issuer %q is not an absolute http(s) URL without query or fragment", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}, nil
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration",
	}, nil
}

// discover fetches issuer's metadata and checks that it names issuer.
func discover(ctx context.Context, hc *http.Client, issuer string) (*serverMetadata, error) {
	urls, err := metadataURLs(issuer)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, u := range urls {
		var md serverMetadata
		status, err := getJSON(ctx, hc, u, &md)
		if err != nil {
			errs = append(errs, err)
			if status >= 400 && status < 500 {
				continue // not here: try the next path
			}
			return nil, fmt.Errorf("%w: %w", runtime.ErrAuthUnavailable, errors.Join(errs...))
		}
		if md.Issuer != issuer {
			// A misconfiguration, not a bad token: every token fails alike, so
			// the server answers 503 rather than blame the client's token.
			return nil, fmt.Errorf("%w: the metadata at %s names issuer %q, not %q", runtime.ErrAuthUnavailable, u, md.Issuer, issuer)
		}
		return &md, nil
	}
	return nil, fmt.Errorf("%w: no metadata for issuer %q: %w", runtime.ErrAuthUnavailable, issuer, errors.Join(errs...))
}

// getJSON GETs url into v and returns the HTTP status.
func getJSON(ctx context.Context, hc *http.Client, url string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	switch {
	case err != nil:
		return resp.StatusCode, fmt.Errorf("GET %s: %w", url, err)
	case len(body) > maxDocumentBytes:
		return resp.StatusCode, fmt.Errorf("GET %s: the document exceeds %d bytes", url, maxDocumentBytes)
	case resp.StatusCode != http.StatusOK:
		return resp.StatusCode, fmt.Errorf("GET %s: status %d", url, resp.StatusCode)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return resp.StatusCode, fmt.Errorf("GET %s: %w", url, err)
	}
	return resp.StatusCode, nil
}

// scopesOf reads the scope claim (RFC 8693 / RFC 9068: one space-separated
// string) or, as some servers send it, an "scp" array.
func scopesOf(scope any, scp any) []string {
	if s, ok := scope.(string); ok {
		return strings.Fields(s)
	}
	var out []string
	if list, ok := scp.([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}
