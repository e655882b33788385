package servercard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// The adapter over a real runtime.Server, served by Serve on loopback:
// the routes are the runtime's, the card follows the server's changes.

func echoTool(name string) runtime.Tool {
	return runtime.Tool{Name: name,
		Definition: json.RawMessage(`{"name":"` + name + `","description":"echo","inputSchema":{"type":"object"}}`),
		Handler: func(_ context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
			return runtime.ContentResult(call, []runtime.Content{runtime.Text("ok")}), nil
		}}
}

// serveServer runs s with Serve on a loopback port until the test ends
// and returns its base URL.
func serveServer(t *testing.T, s *runtime.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// rpc posts one JSON-RPC request to the MCP endpoint and returns the
// response body (JSON or the SSE stream), and its headers.
func rpc(t *testing.T, url, body string, headers ...string) (http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.Header, b.String()
}

func TestEnableServesTheCardOfTheServer(t *testing.T) {
	s := runtime.NewServer(runtime.Options{Name: "weather", Title: "Weather", Version: "1.4.0"})
	t.Cleanup(func() { _ = s.Close() })
	if err := s.AddTool(echoTool("forecast")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Name: "io.github.example/weather", Description: "Forecasts for any city."}
	if err := Enable(s, opts); err != nil {
		t.Fatal(err)
	}
	if err := Enable(s, opts); !errors.Is(err, runtime.ErrExtensionAdded) {
		t.Errorf("a second Enable: %v, want ErrExtensionAdded", err)
	}
	url := serveServer(t, s)

	resp, body := get(t, "GET", url+"/mcp/server-card", "Origin", "https://elsewhere.example")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != MediaType {
		t.Fatalf("card: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	mustBeValidCard(t, body)
	var card Card
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatal(err)
	}
	if card.Name != opts.Name || card.Version != "1.4.0" || card.Title != "Weather" || len(card.Remotes) != 1 || card.Remotes[0].URL != url+"/mcp" {
		t.Errorf("card %s", body)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Expose-Headers") != "ETag" {
		t.Errorf("CORS headers %v", resp.Header)
	}
	etag := resp.Header.Get("ETag")
	if r, _ := get(t, "GET", url+"/mcp/server-card", "If-None-Match", etag); r.StatusCode != http.StatusNotModified || r.Header.Get("ETag") != etag {
		t.Errorf("If-None-Match: %d %q", r.StatusCode, r.Header.Get("ETag"))
	}
	pre, _ := get(t, "OPTIONS", url+"/mcp/server-card", "Origin", "https://elsewhere.example",
		"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "if-none-match")
	if pre.StatusCode/100 != 2 || !strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), "GET") ||
		!strings.Contains(strings.ToLower(pre.Header.Get("Access-Control-Allow-Headers")), "if-none-match") {
		t.Errorf("preflight: %d %v", pre.StatusCode, pre.Header)
	}
	for _, p := range []string{WellKnownCardPath, WellKnownLegacyPath, WellKnownLegacyJSONPath} {
		if r, b := get(t, "GET", url+p); r.StatusCode != 200 || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s", p, r.StatusCode, b)
		}
	}

	// Declared in both eras.
	_, legacy := rpc(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	_, modern := rpc(t, url, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover")
	for era, b := range map[string]string{"initialize": legacy, "server/discover": modern} {
		if !strings.Contains(b, `"`+ExtensionID+`":{}`) {
			t.Errorf("%s does not declare the extension: %s", era, b)
		}
	}

	// A tool added later: the enumerating document lists it under a new
	// ETag, and the old ETag no longer matches.
	_, before := get(t, "GET", url+WellKnownLegacyPath)
	lr, _ := get(t, "GET", url+WellKnownLegacyPath)
	oldTag := lr.Header.Get("ETag")
	if !strings.Contains(string(before), `"forecast"`) || strings.Contains(string(before), `"alerts"`) {
		t.Fatalf("legacy document before the change: %s", before)
	}
	if err := s.AddTool(echoTool("alerts")); err != nil {
		t.Fatal(err)
	}
	after, body := get(t, "GET", url+WellKnownLegacyPath, "If-None-Match", oldTag)
	if after.StatusCode != 200 || !strings.Contains(string(body), `"alerts"`) || after.Header.Get("ETag") == oldTag {
		t.Errorf("legacy document after AddTool: %d, ETag %q (was %q): %s", after.StatusCode, after.Header.Get("ETag"), oldTag, body)
	}
}

// TestEnableWithListsByPrincipal: a server whose lists vary by principal
// lists none of its tools publicly, even when Options ask for them, and
// names its authorization.
func TestEnableWithListsByPrincipal(t *testing.T) {
	refuse := runtime.TokenVerifierFunc(func(context.Context, string) (*runtime.Principal, error) {
		return nil, errors.New("no tokens in this test")
	})
	s := runtime.NewServer(runtime.Options{Name: "private", Version: "1.0.0", Auth: &runtime.Auth{
		Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"https://issuer.example.com"},
		Verifier: refuse, FilterLists: true,
	}})
	t.Cleanup(func() { _ = s.Close() })
	secret := echoTool("payroll")
	secret.Scopes = []string{"hr"}
	if err := s.AddTool(secret); err != nil {
		t.Fatal(err)
	}
	if err := Enable(s, Options{Name: "io.github.example/private", Description: "Payroll.", Primitives: PrimitivesListed}); err != nil {
		t.Fatal(err)
	}
	url := serveServer(t, s)
	_, card := get(t, "GET", url+"/mcp/server-card")
	if !strings.Contains(string(card), `"https://mcp.example.com/mcp"`) || !strings.Contains(string(card), "issuer.example.com") {
		t.Errorf("card: %s", card)
	}
	r, legacy := get(t, "GET", url+WellKnownLegacyPath)
	if r.StatusCode != 200 || strings.Contains(string(legacy), "payroll") {
		t.Errorf("the public legacy document lists a principal's tools: %d %s", r.StatusCode, legacy)
	}
}

func TestEnableRefusesBadOptions(t *testing.T) {
	s := runtime.NewServer(runtime.Options{Name: "x"})
	t.Cleanup(func() { _ = s.Close() })
	if err := Enable(s, Options{Name: "no-slash", Description: "x"}); !errors.Is(err, ErrOptions) {
		t.Errorf("Enable with a bad name: %v", err)
	}
	if got := s.Describe().Extensions; len(got) != 0 {
		t.Errorf("a refused Enable added %v", got)
	}
}
