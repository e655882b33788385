package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkModernToolsCall measures one stateless tools/call through the
// Server's handler, without the network.
func BenchmarkModernToolsCall(b *testing.B) {
	s := NewServer(Options{})
	add := Tool{Name: "add", Definition: toolDef("add", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
		Handler: func(_ context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
			var in struct{ A, B int }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return ContentResult(call, []Content{Text("sum")}), nil
		}}
	if err := s.AddTool(add); err != nil {
		b.Fatal(err)
	}
	h := handlerOf(s)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set(headerProtocolVersion, Version20260728)
		r.Header.Set(headerMethod, "tools/call")
		r.Header.Set(headerName, "add")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("HTTP %d: %s", w.Code, w.Body)
		}
	}
}
