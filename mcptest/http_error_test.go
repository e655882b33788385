package mcptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// newAuthServer is a server with Options.Auth whose tool write needs
// notes:write; the token "reader" grants notes:read only.
func newAuthServer(t *testing.T) *runtime.Server {
	const issuer = "https://as.example"
	verifier := runtime.TokenVerifierFunc(func(_ context.Context, token string) (*runtime.Principal, error) {
		if token != "reader" {
			return nil, fmt.Errorf("%w: unknown token", runtime.ErrInvalidToken)
		}
		return &runtime.Principal{Issuer: issuer, Subject: "ann", Scopes: []string{"notes:read"}, Expiry: time.Now().Add(time.Hour)}, nil
	})
	s := runtime.NewServer(runtime.Options{Name: "auth", Auth: &runtime.Auth{
		Resource: "https://notes.example/mcp", AuthorizationServers: []string{issuer}, Verifier: verifier,
	}})
	write := tool("write", noArgs, nil, func(_ context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		return runtime.ContentResult(call, []runtime.Content{runtime.Text("written")}), nil
	})
	write.Scopes = []string{"notes:write"}
	if err := s.AddTool(write); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHTTPError: a request refused with a status other than 2xx fails with
// an *HTTPError that keeps the status and the headers (the 403 and
// insufficient_scope challenge of a token without a tool's scope; the 404
// of an unknown method in 2026-07-28), its JSON-RPC error still reachable
// with errors.As. A session answers an unknown method with 200 and a
// JSON-RPC error alone.
func TestHTTPError(t *testing.T) {
	mcptest.Run(t, newAuthServer, func(t *testing.T, c *mcptest.Client) {
		_, err := c.CallTool(t.Context(), "write", nil)
		var refused *mcptest.HTTPError
		var rpc *runtime.Error
		if !errors.As(err, &refused) || refused.StatusCode != http.StatusForbidden ||
			!strings.Contains(refused.Header.Get("WWW-Authenticate"), `error="insufficient_scope"`) ||
			!errors.As(err, &rpc) || !strings.Contains(rpc.Message, "insufficient_scope") {
			t.Errorf("write without notes:write: %v, want an HTTPError with 403 and an insufficient_scope challenge", err)
		}
		_, err = c.Request(t.Context(), "notes/unknown", nil)
		refused = nil
		errors.As(err, &refused)
		if !errors.As(err, &rpc) || rpc.Code != runtime.CodeMethodNotFound {
			t.Errorf("an unknown method: %v, want -32601", err)
		}
		switch {
		case c.Era() == mcptest.Modern && (refused == nil || refused.StatusCode != http.StatusNotFound):
			t.Errorf("an unknown method in 2026-07-28: %v, want 404", err)
		case c.Era() == mcptest.Legacy && refused != nil:
			t.Errorf("an unknown method in a session: %v, want a JSON-RPC error with 200", err)
		}
	}, mcptest.Header("Authorization", "Bearer reader"))
}
