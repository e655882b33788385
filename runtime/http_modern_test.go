package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func b64(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }

func TestModernStandardHeaders(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t, elicitationTool(), headerParamTool(),
		Tool{Name: "outil_été", Definition: toolDef("outil_été", ""), Handler: func(_ context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			return ContentResult(call, []Content{Text("ok")}), nil
		}}))
	c.caps = allCaps
	tool := map[string]any{"name": "test_header_params", "arguments": map[string]any{}}
	reject := []struct {
		name   string
		method string
		params map[string]any
		opts   []reqOpt
	}{
		{"Mcp-Method differs from the body", "tools/list", nil, []reqOpt{withHeader("Mcp-Method", "prompts/list")}},
		{"Mcp-Method missing", "tools/list", nil, []reqOpt{withoutHeader("Mcp-Method")}},
		{"Mcp-Method value is case-sensitive", "tools/list", nil, []reqOpt{withHeader("Mcp-Method", "TOOLS/LIST")}},
		{"Mcp-Name differs from params.name", "tools/call", tool, []reqOpt{withHeader("Mcp-Name", "wrong_tool_name")}},
		{"Mcp-Name missing", "tools/call", tool, []reqOpt{withoutHeader("Mcp-Name")}},
		{"Mcp-Name with invalid base64", "tools/call", tool, []reqOpt{withHeader("Mcp-Name", "=?base64?dGVzdF9oZWFkZXJfcGFyYW1z?=x?=")}},
		{"MCP-Protocol-Version missing", "tools/list", nil, []reqOpt{withoutHeader(headerProtocolVersion)}},
	}
	for _, tc := range reject {
		t.Run(tc.name, func(t *testing.T) {
			r := c.call(tc.method, tc.params, tc.opts...)
			if r.status != http.StatusBadRequest || r.errCode(t) != CodeHeaderMismatch {
				t.Fatalf("got HTTP %d code %d, want 400 -32020: %s", r.status, r.errCode(t), r.body)
			}
		})
	}
	accept := []struct {
		name   string
		method string
		params map[string]any
		opts   []reqOpt
	}{
		{"lowercase header name", "tools/list", nil, []reqOpt{withRawHeader("mcp-method", "tools/list")}},
		{"uppercase header name", "tools/list", nil, []reqOpt{withRawHeader("MCP-METHOD", "tools/list")}},
		{"padded Mcp-Name", "tools/call", tool, []reqOpt{withHeader("Mcp-Name", "  test_header_params  ")}},
		{"base64 Mcp-Name", "tools/call", tool, []reqOpt{withHeader("Mcp-Name", b64("test_header_params"))}},
		{"non-ASCII name in base64", "tools/call", map[string]any{"name": "outil_été"}, []reqOpt{withHeader("Mcp-Name", b64("outil_été"))}},
	}
	for _, tc := range accept {
		t.Run(tc.name, func(t *testing.T) {
			r := c.call(tc.method, tc.params, tc.opts...)
			if r.status != http.StatusOK || r.errCode(t) != 0 {
				t.Fatalf("got HTTP %d: %s", r.status, r.body)
			}
		})
	}
}

// withRawHeader sets a header under exactly the given name, bypassing Go's
// canonicalisation, to show that names are case-insensitive.
func withRawHeader(k, v string) reqOpt {
	return func(c *modernCall) {
		c.headers.Del(k)
		c.headers[k] = []string{v}
	}
}

func TestModernCustomHeaderParams(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t, headerParamTool()))
	call := func(args map[string]any, opts ...reqOpt) *modernResp {
		return c.call("tools/call", map[string]any{"name": "test_header_params", "arguments": args}, opts...)
	}
	cases := []struct {
		name   string
		args   map[string]any
		header map[string]string
		ok     bool
	}{
		{"literal value", map[string]any{"region": "Hello"}, map[string]string{"Mcp-Param-Region": "Hello"}, true},
		{"base64 value", map[string]any{"region": "Hello"}, map[string]string{"Mcp-Param-Region": b64("Hello")}, true},
		{"base64 of non-ASCII", map[string]any{"region": "Zürich"}, map[string]string{"Mcp-Param-Region": b64("Zürich")}, true},
		{"invalid base64 padding", map[string]any{"region": "Hello"}, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?="}, false},
		{"non-alphabet base64", map[string]any{"region": "Hello"}, map[string]string{"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="}, false},
		{"missing prefix is literal", map[string]any{"region": "SGVsbG8="}, map[string]string{"Mcp-Param-Region": "SGVsbG8="}, true},
		{"missing suffix is literal", map[string]any{"region": "=?base64?SGVsbG8="}, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8="}, true},
		{"header differs from body", map[string]any{"region": "Hello"}, map[string]string{"Mcp-Param-Region": "World"}, false},
		{"value case matters", map[string]any{"region": "Hello"}, map[string]string{"Mcp-Param-Region": "hello"}, false},
		{"header missing, value in body", map[string]any{"region": "Hello"}, nil, false},
		{"value absent, no header needed", map[string]any{"note": "x"}, nil, true},
		{"value null, no header needed", map[string]any{"region": nil}, nil, true},
		{"integer compared numerically", map[string]any{"count": 42}, map[string]string{"Mcp-Param-Count": "42.0"}, true},
		{"integer mismatch", map[string]any{"count": 42}, map[string]string{"Mcp-Param-Count": "43"}, false},
		{"boolean", map[string]any{"dry_run": true}, map[string]string{"Mcp-Param-Dry-Run": "true"}, true},
		{"boolean mismatch", map[string]any{"dry_run": true}, map[string]string{"Mcp-Param-Dry-Run": "false"}, false},
		{"nested property", map[string]any{"opts": map[string]any{"tenant": "acme"}}, map[string]string{"mcp-param-tenant": "acme"}, true},
		{"nested property missing header", map[string]any{"opts": map[string]any{"tenant": "acme"}}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts []reqOpt
			for k, v := range tc.header {
				opts = append(opts, withHeader(k, v))
			}
			r := call(tc.args, opts...)
			if tc.ok {
				if r.status != http.StatusOK || r.errCode(t) != 0 {
					t.Fatalf("want accepted, got HTTP %d: %s", r.status, r.body)
				}
				return
			}
			if r.status != http.StatusBadRequest || r.errCode(t) != CodeHeaderMismatch {
				t.Fatalf("want 400 -32020, got HTTP %d: %s", r.status, r.body)
			}
		})
	}
}

func TestParseHeaderParams(t *testing.T) {
	got, err := parseHeaderParams(json.RawMessage(`{"type":"object","properties":{
		"b":{"type":"integer","x-mcp-header":"B"},
		"a":{"type":"object","properties":{"c":{"type":"boolean","x-mcp-header":"C"}}},
		"list":{"type":"array","items":{"type":"string","x-mcp-header":"Ignored"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"Header":"C","Path":["a","c"],"Type":"boolean"},{"Header":"B","Path":["b"],"Type":"integer"}]`; jsonOf(got) != want {
		t.Errorf("got %s, want %s", jsonOf(got), want)
	}
	for _, bad := range []struct{ schema, want string }{
		{`{"properties":{"n":{"type":"number","x-mcp-header":"N"}}}`, "only on string, integer or boolean"},
		{`{"properties":{"a":{"type":"string","x-mcp-header":"Dup"},"b":{"type":"string","x-mcp-header":"dup"}}}`, "already used"},
		{`{"properties":{"a":{"type":"string","x-mcp-header":"has space"}}}`, "RFC 9110 token"},
		{`{"properties":{"a":{"type":"string","x-mcp-header":""}}}`, "RFC 9110 token"},
		{`{"x-mcp-header":"Root","properties":{}}`, "on a property"},
	} {
		if _, err := parseHeaderParams(json.RawMessage(bad.schema)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want %q", bad.schema, err, bad.want)
		}
	}
}

func TestDecodeHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "plain",
		b64("é"):             "é",
		"=?BASE64?aGk=?=":    "hi",
		"=?base64?":          "=?base64?",
		"=?base64?aGk=?= x":  "=?base64?aGk=?= x",
		"=?base64??=":        "",
		"=?base64?aGk=?=?=x": "=?base64?aGk=?=?=x",
	} {
		got, err := decodeHeaderValue(in)
		if err != nil || got != want {
			t.Errorf("decodeHeaderValue(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"=?base64?aGk?=", "=?base64?/w==?=", "a\x01b"} {
		if _, err := decodeHeaderValue(in); err == nil {
			t.Errorf("decodeHeaderValue(%q): want an error", in)
		}
	}
}
