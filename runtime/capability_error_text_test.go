package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestMissingCapabilitySaysItOnce: a tool that asks a client lacking the
// capability fails with -32021 whose message names what is missing once,
// in both eras, without the Go error's "mcpgen:" prefix and without a
// second "did not declare" in front of it.
func TestMissingCapabilitySaysItOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	form := &runtime.Elicitation{Name: "confirm_delete", Mode: "form",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)}
	srv := runtime.NewServer(runtime.Options{})
	tools := []runtime.Tool{
		{Name: "delete_note", Definition: json.RawMessage(`{"name":"delete_note","inputSchema":{"type":"object"}}`), Elicitations: []*runtime.Elicitation{form},
			Handler: func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
				var answer struct{ Confirm bool }
				return nil, call.Elicit(ctx, form, "Delete it?", &answer)
			}},
		{Name: "summarize", Definition: json.RawMessage(`{"name":"summarize","inputSchema":{"type":"object"}}`),
			Handler: func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
				_, err := call.CreateMessage(ctx, &runtime.SamplingRequest{MaxTokens: 10})
				return nil, err
			}},
	}
	for _, tool := range tools {
		if err := srv.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()

	post := func(headers map[string]string, body string) (string, http.Header) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(data), resp.Header
	}
	errorMessage := func(body string) string {
		t.Helper()
		var m struct {
			Error *struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil || m.Error == nil || m.Error.Code != runtime.CodeMissingCapability {
			t.Fatalf("want a -32021 error, got %s (%v)", body, err)
		}
		return m.Error.Message
	}
	want := map[string]string{
		"delete_note": `the client did not declare the capability this request needs: elicitation (form mode), for "confirm_delete"`,
		"summarize":   `the client did not declare the capability this request needs: sampling`,
	}

	// A 2025-11-25 session whose client declared no capabilities.
	_, h := post(nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := map[string]string{"Mcp-Session-Id": h.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for tool, msg := range want {
		body, _ := post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`)
		if got := errorMessage(body); got != msg {
			t.Errorf("2025-11-25 %s: message\n%q, want\n%q", tool, got, msg)
		}
	}

	// A 2026-07-28 request without those capabilities.
	for tool, msg := range want {
		body, _ := post(map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool},
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+tool+`","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		if got := errorMessage(body); got != msg {
			t.Errorf("2026-07-28 %s: message\n%q, want\n%q", tool, got, msg)
		}
	}
}
