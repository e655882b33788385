package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// parityTransport sends one request (method and params, without _meta) the
// way one era over one transport does, and returns the response message.
type parityTransport struct {
	name string
	send func(t *testing.T, id int, method string, params map[string]any) rpc
}

// TestMethodParity: the same method with the same input gives the same
// outcome (result, error code, message and data) in a legacy session over
// HTTP, in 2026-07-28 over HTTP, and in both eras over stdio. Only the
// framing 2026-07-28 adds (resultType, ttlMs, cacheScope, _meta) differs.
func TestMethodParity(t *testing.T) {
	noLeaks(t)
	tools := []Tool{
		echoTool(),
		toolOf("fails", `{"type":"object"}`, func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
			return nil, errors.New("the disk is full")
		}),
		toolOf("refuses", `{"type":"object"}`, func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
			return nil, &Error{Code: CodeInvalidParams, Message: "no such note", Data: map[string]string{"title": "x"}}
		}),
		toolOf("panics", `{"type":"object"}`, func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
			panic("boom")
		}),
		toolOf("samples", `{"type":"object"}`, func(ctx context.Context, c *Call, _ json.RawMessage) (*ToolResult, error) {
			_, err := c.CreateMessage(ctx, UserText("hi", 10))
			return nil, err
		}),
		toolOf("quiet", `{"type":"object"}`, func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
			return nil, ErrInputRequired
		}),
	}
	transports := parityTransports(t, tools)
	for _, tc := range methodParityCases {
		t.Run(tc.name, func(t *testing.T) { checkParity(t, transports, tc.method, tc.params, tc.want) })
	}
}

// parityCase is one request every era and transport must answer alike.
type parityCase struct {
	name   string
	method string
	params map[string]any
	want   string // "result" or the error code every transport must agree on
}

// methodParityCases are TestMethodParity's.
var methodParityCases = []parityCase{
	{"tools/list", "tools/list", nil, "result"},
	{"tools/list bad cursor", "tools/list", map[string]any{"cursor": "nope"}, "-32602"},
	{"tools/list cursor not a string", "tools/list", map[string]any{"cursor": 7}, "-32602"},
	{"call", "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, "result"},
	{"call without arguments", "tools/call", map[string]any{"name": "fails"}, "result"},
	{"call with null arguments", "tools/call", map[string]any{"name": "fails", "arguments": nil}, "result"},
	{"arguments not an object", "tools/call", map[string]any{"name": "echo", "arguments": []int{1}}, "-32602"},
	{"arguments against the schema", "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": 5}}, "result"},
	{"unknown tool", "tools/call", map[string]any{"name": "nope"}, "-32602"},
	{"no name", "tools/call", map[string]any{"arguments": map[string]any{}}, "-32602"},
	{"name not a string", "tools/call", map[string]any{"name": 5}, "-32602"},
	{"handler error", "tools/call", map[string]any{"name": "fails"}, "result"},
	{"handler JSON-RPC error", "tools/call", map[string]any{"name": "refuses"}, "-32602"},
	{"handler panic", "tools/call", map[string]any{"name": "panics"}, "-32603"},
	{"missing capability", "tools/call", map[string]any{"name": "samples"}, "-32021"},
	{"ErrInputRequired without a question", "tools/call", map[string]any{"name": "quiet"}, "-32603"},
	{"unknown method", "unknown/method", nil, "-32601"},
}

// checkParity sends one request over every transport: each must answer
// want ("result" or an error code), all of them the same.
func checkParity(t *testing.T, transports []parityTransport, method string, params map[string]any, want string) {
	t.Helper()
	var first, firstName string
	for i, tr := range transports {
		m := tr.send(t, 100+i, method, params)
		got := parityOutcome(t, m)
		if (want == "result") != (m.Error == nil) || (m.Error != nil && fmt.Sprint(m.Error.Code) != want) {
			t.Errorf("%s: got %s, want %s", tr.name, got, want)
		}
		if i == 0 {
			first, firstName = got, tr.name
		} else if got != first {
			t.Errorf("%s and %s differ:\n%s: %s\n%s: %s", firstName, tr.name, firstName, first, tr.name, got)
		}
	}
}

// parityOutcome is the comparable part of a response: its error, or its
// result without the 2026-07-28 framing.
func parityOutcome(t *testing.T, m rpc) string {
	t.Helper()
	if m.Error != nil {
		b, _ := json.Marshal(m.Error)
		return "error " + string(b)
	}
	var res map[string]any
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatalf("result %s: %v", m.Result, err)
	}
	for _, k := range []string{"resultType", "ttlMs", "cacheScope", "_meta"} {
		delete(res, k)
	}
	b, _ := json.Marshal(res)
	return "result " + string(b)
}

// parityTransports are the four era/transport pairs, each with its own
// server holding tools and whatever register adds.
func parityTransports(t *testing.T, tools []Tool, register ...func(*testing.T, *Server)) []parityTransport {
	return parityTransportsWith(t, Options{}, tools, register...)
}

// parityTransportsWith is parityTransports with servers made from opts.
func parityTransportsWith(t *testing.T, opts Options, tools []Tool, register ...func(*testing.T, *Server)) []parityTransport {
	setup := func(s *Server) {
		for _, r := range register {
			r(t, s)
		}
	}
	// Clients of every transport declare no capability, so a tool that needs
	// one fails the same way everywhere.
	legacyHTTP := func() parityTransport {
		s, ts := legacyServer(t, opts, tools...)
		setup(s)
		c := newClient(t, ts)
		c.initialize(Version20251125, `{}`)
		return parityTransport{"legacy HTTP", func(t *testing.T, id int, method string, params map[string]any) rpc {
			return jsonBody(t, c.post(requestLine(t, id, method, params, nil)))
		}}
	}
	modernHTTP := func() parityTransport {
		mo := opts
		mo.Name, mo.Version = "modern-test", "1.2.3"
		s := NewServer(mo)
		for _, tool := range tools {
			if err := s.AddTool(tool); err != nil {
				t.Fatal(err)
			}
		}
		setup(s)
		ts := httptest.NewServer(s)
		t.Cleanup(ts.Close)
		return parityTransport{"2026-07-28 HTTP", func(t *testing.T, id int, method string, params map[string]any) rpc {
			req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(requestLine(t, id, method, params, modernMeta())))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set(headerProtocolVersion, Version20260728)
			req.Header.Set(headerMethod, method)
			if name, ok := params["name"].(string); ok {
				req.Header.Set(headerName, name)
			}
			if uri, ok := params["uri"].(string); ok && method == "resources/read" {
				req.Header.Set(headerName, uri)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var m rpc
			if err := json.Unmarshal(bytes.TrimPrefix(body, []byte("data: ")), &m); err != nil {
				t.Fatalf("HTTP %d %q: %v", resp.StatusCode, body, err)
			}
			return m
		}}
	}
	stdio := func(name string, meta map[string]any, initialize bool) parityTransport {
		s := NewServer(opts)
		t.Cleanup(func() { s.Close() })
		for _, tool := range tools {
			if err := s.AddTool(tool); err != nil {
				t.Fatal(err)
			}
		}
		setup(s)
		p := startStdio(t, s)
		if initialize {
			p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"parity","version":"1"}}}`)
			p.recv()
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		return parityTransport{name, func(t *testing.T, id int, method string, params map[string]any) rpc {
			p.send(requestLine(t, id, method, params, meta))
			return p.recv()
		}}
	}
	return []parityTransport{
		legacyHTTP(),
		modernHTTP(),
		stdio("legacy stdio", nil, true),
		stdio("2026-07-28 stdio", modernMeta(), false),
	}
}

func modernMeta() map[string]any {
	return map[string]any{metaProtocolVersion: Version20260728, metaClientCapabilities: map[string]any{}}
}

// requestLine encodes one request, with _meta when meta is not nil.
func requestLine(t *testing.T, id int, method string, params map[string]any, meta map[string]any) string {
	t.Helper()
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	if meta != nil {
		p["_meta"] = meta
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": p})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
