package oauth

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// The verifiers are tested against a real authorization server in the
// repository's authtest module; these are the parts that need none.

func TestMetadataURLs(t *testing.T) {
	for _, tc := range []struct {
		issuer string
		want   []string
	}{
		{"https://as.example", []string{"https://as.example/.well-known/oauth-authorization-server", "https://as.example/.well-known/openid-configuration"}},
		{"https://as.example/", []string{"https://as.example/.well-known/oauth-authorization-server", "https://as.example/.well-known/openid-configuration"}},
		{"https://as.example/tenant1", []string{
			"https://as.example/.well-known/oauth-authorization-server/tenant1",
			"https://as.example/.well-known/openid-configuration/tenant1",
			"https://as.example/tenant1/.well-known/openid-configuration"}},
	} {
		got, err := metadataURLs(tc.issuer)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v %v, want %v", tc.issuer, got, err, tc.want)
		}
	}
	for _, bad := range []string{"as.example", "https://as.example?x=1", "https://as.example#f", "ftp://as.example"} {
		if _, err := metadataURLs(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: got %v, want an error naming it", bad, err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	if _, err := NewJWTVerifier(JWTConfig{Issuer: "https://as.example"}); err == nil || !strings.Contains(err.Error(), "Resource") {
		t.Errorf("no resource: %v", err)
	}
	if _, err := NewJWTVerifier(JWTConfig{Issuer: "https://as.example", Resource: "https://r/mcp", Algorithms: []string{"HS256"}}); err == nil || !strings.Contains(err.Error(), "HS256") {
		t.Errorf("HS256: %v", err)
	}
	if _, err := NewIntrospectionVerifier(IntrospectionConfig{Issuer: "https://as.example", Resource: "https://r/mcp"}); err == nil || !strings.Contains(err.Error(), "ClientID") {
		t.Errorf("no client: %v", err)
	}
}

func TestScopesOf(t *testing.T) {
	if got := scopesOf("a  b", nil); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("string: %v", got)
	}
	if got := scopesOf(nil, []any{"a", 1, "b"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("scp: %v", got)
	}
}

// An authorization server nobody listens for is an outage, never a pass.
func TestUnreachableIssuer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	j, err := NewJWTVerifier(JWTConfig{Issuer: "http://" + addr, Resource: "http://127.0.0.1:1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.VerifyToken(context.Background(), "a.b.c"); err == nil {
		t.Error("a malformed token passed")
	}
	if err := j.Discover(context.Background()); !errors.Is(err, runtime.ErrAuthUnavailable) {
		t.Errorf("JWT discovery: %v, want ErrAuthUnavailable", err)
	}
	iv, err := NewIntrospectionVerifier(IntrospectionConfig{Issuer: "http://" + addr, Endpoint: "http://" + addr + "/introspect",
		Resource: "http://127.0.0.1:1/mcp", ClientID: "rs", ClientSecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := iv.VerifyToken(context.Background(), "opaque"); !errors.Is(err, runtime.ErrAuthUnavailable) {
		t.Errorf("introspection: %v, want ErrAuthUnavailable", err)
	}
}
