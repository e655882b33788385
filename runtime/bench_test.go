package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// addTool is the benchmark's plain tool: two numbers in, their sum out.
// Its outputSchema is the bench module's, so the output check runs too.
func addTool() Tool {
	t := toolOf("add", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`,
		func(ctx context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
			var in struct{ A, B float64 }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return StructuredResult(call, struct {
				Sum float64 `json:"sum"`
			}{in.A + in.B})
		})
	t.Definition = json.RawMessage(strings.TrimSuffix(string(t.Definition), "}") +
		`,"outputSchema":{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"],"additionalProperties":false}}`)
	return t
}

// BenchmarkToolsCallJSON measures one plain tools/call through ServeHTTP
// (in-process, no sockets): the JSON fast path.
func BenchmarkToolsCallJSON(b *testing.B) {
	s := NewServer(Options{KeepAlive: -1})
	defer s.Close()
	if err := s.AddTool(addTool()); err != nil {
		b.Fatal(err)
	}
	sess, err := s.sessions.createSession(context.Background(), SessionState{ProtocolVersion: Version20251125, ClientCapabilities: json.RawMessage(`{}`)})
	if err != nil {
		b.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sess.id)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
