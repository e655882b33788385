package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// TestBadInputAtTheHTTPBoundary: each bad request gets the right status and
// a JSON-RPC error carrying the request's ID (when it could be read), and the
// server keeps serving.
func TestBadInputAtTheHTTPBoundary(t *testing.T) {
	_, ts := legacyServer(t, Options{MaxBodyBytes: 1024}, echoTool())
	c := newClient(t, ts)
	c.initialize(Version20250618, `{}`)
	set := func(k, v string) func(*http.Request) { return func(r *http.Request) { r.Header.Set(k, v) } }
	del := func(k string) func(*http.Request) { return func(r *http.Request) { r.Header.Del(k) } }
	for _, tc := range []struct {
		name   string
		body   string
		edit   []func(*http.Request)
		status int
		code   int
		id     string
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,`, nil, 400, CodeParseError, "null"},
		{"not an object", `"hello"`, nil, 400, CodeInvalidRequest, "null"},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":2,"method":"ping"}`, nil, 400, CodeInvalidRequest, "2"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, 400, CodeInvalidRequest, "null"},
		{"params not an object", `{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}`, nil, 400, CodeInvalidRequest, "3"},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"no/such"}`, nil, 200, CodeMethodNotFound, "4"},
		{"bad params", `{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"loud"}}`, nil, 200, CodeInvalidParams, "5"},
		{"arguments not an object", callBody(6, "echo", `[1,2]`), nil, 200, CodeInvalidParams, "6"},
		{"wrong content type", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, []func(*http.Request){set("Content-Type", "text/plain")}, 415, CodeInvalidRequest, "7"},
		{"missing Accept", `{"jsonrpc":"2.0","id":8,"method":"ping"}`, []func(*http.Request){del("Accept")}, 406, CodeInvalidRequest, "8"},
		{"oversize body", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("a", 2000) + `"}}`, nil, 413, CodeInvalidRequest, "null"},
		{"unknown session", `{"jsonrpc":"2.0","id":10,"method":"ping"}`, []func(*http.Request){set("Mcp-Session-Id", "nope")}, 404, CodeInvalidRequest, "10"},
		{"missing session", `{"jsonrpc":"2.0","id":11,"method":"ping"}`, []func(*http.Request){del("Mcp-Session-Id"), del("MCP-Protocol-Version")}, 400, CodeInvalidRequest, "11"},
		{"bad protocol version", `{"jsonrpc":"2.0","id":12,"method":"ping"}`, []func(*http.Request){set("MCP-Protocol-Version", "1999-01-01")}, 400, CodeInvalidRequest, "12"},
		{"batch after 2025-03-26", `[{"jsonrpc":"2.0","id":13,"method":"ping"}]`, nil, 400, CodeInvalidRequest, "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := c.post(tc.body, tc.edit...)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			m := jsonBody(t, resp)
			if m.Error == nil || m.Error.Code != tc.code {
				t.Fatalf("error %+v, want code %d", m.Error, tc.code)
			}
			if id := string(m.ID); id != tc.id {
				t.Fatalf("id %s, want %s", id, tc.id)
			}
		})
	}
	// Still serving.
	if m := jsonBody(t, c.post(callBody(99, "echo", `{"text":"alive"}`))); resultText(t, m) != "alive" {
		t.Fatalf("after bad input: %+v", m)
	}
}

// TestOriginAndHostChecks: a foreign Origin or, on loopback, a foreign Host
// is 403 (DNS rebinding); loopback ones pass.
func TestOriginAndHostChecks(t *testing.T) {
	_, ts := legacyServer(t, Options{AllowedOrigins: []string{"https://app.example"}})
	c := newClient(t, ts)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		origin, host string
		status       int
	}{
		{"http://evil.example.com", "", 403},
		{"", "evil.example.com", 403},
		{"http://localhost:1234", "", 200},
		{"https://app.example", "", 200},
		{"", "localhost:80", 200},
	} {
		resp := c.post(init, func(r *http.Request) {
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if tc.host != "" {
				r.Host = tc.host
			}
		})
		if resp.StatusCode != tc.status {
			t.Errorf("origin %q host %q: %d, want %d", tc.origin, tc.host, resp.StatusCode, tc.status)
		}
	}
}

// TestBatchIn20250326: a 2025-03-26 session may batch; the answers come as
// one array (in any order, as JSON-RPC allows).
func TestBatchIn20250326(t *testing.T) {
	_, ts := legacyServer(t, Options{}, echoTool())
	c := newClient(t, ts)
	c.initialize(Version20250326, `{}`)
	resp := c.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` + callBody(2, "echo", `{"text":"b"}`) + `,{"jsonrpc":"2.0","id":3}]`)
	var out []rpc
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	byID := map[string]rpc{}
	for _, m := range out {
		byID[string(m.ID)] = m
	}
	if len(out) != 3 || string(byID["1"].Result) != "{}" || resultText(t, byID["2"]) != "b" || byID["3"].Error == nil {
		t.Fatalf("got %+v", out)
	}
}

// TestHandlerPanicIsRecovered: a panicking handler becomes an internal
// error and the server keeps serving.
func TestHandlerPanicIsRecovered(t *testing.T) {
	boom := toolOf("boom", `{"type":"object"}`, func(context.Context, *Call, json.RawMessage) (*ToolResult, error) { panic("boom") })
	_, ts := legacyServer(t, Options{}, boom, echoTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	m := jsonBody(t, c.post(callBody(1, "boom", `{}`)))
	if m.Error == nil || m.Error.Code != CodeInternalError {
		t.Fatalf("got %+v", m)
	}
	if got := resultText(t, jsonBody(t, c.post(callBody(2, "echo", `{"text":"ok"}`)))); got != "ok" {
		t.Fatal(got)
	}
}

// FuzzDecodeMessages: decoding never panics, and whatever decodes as valid
// has a shape the dispatcher can rely on.
func FuzzDecodeMessages(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"x"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2}]`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}`,
		`[]`, `[1]`, `{`, ``, `null`, `"x"`, " \n\t{} ",
		"{\"jsonrpc\":\"2.0\",\"method\":\"\x88\"}", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, bad, batch, err := decodeMessages(body)
		if err != nil {
			if msgs != nil {
				t.Fatal("messages with a top-level error")
			}
			return
		}
		if len(msgs) != len(bad) || len(msgs) == 0 || (!batch && len(msgs) != 1) {
			t.Fatalf("%d messages, %d errors, batch %v", len(msgs), len(bad), batch)
		}
		// The member scanner agrees with encoding/json on what it reads.
		if !batch && bad[0] == nil && exactKeys(body) {
			var ref message
			if json.Unmarshal(body, &ref) == nil && (ref.Method != msgs[0].Method || string(trimSpace(ref.ID)) != string(msgs[0].ID)) {
				t.Fatalf("scanner read method %q id %s, encoding/json %q %s", msgs[0].Method, msgs[0].ID, ref.Method, ref.ID)
			}
		}
		for i, m := range msgs {
			if len(m.ID) > 0 && !validID(m.ID) {
				t.Fatalf("invalid ID %s kept", m.ID)
			}
			// Whatever the runtime echoes is valid JSON text: an error reply
			// carries the ID, a method-not-found reply the method.
			reply := encodeError(m.ID, &Error{Code: CodeMethodNotFound, Message: "method not found: " + m.Method})
			if !utf8.Valid(reply) || !json.Valid(reply) {
				t.Fatalf("reply %q is not valid JSON text", reply)
			}
			if bad[i] != nil {
				continue
			}
			n := 0
			for _, ok := range []bool{m.isRequest(), m.isNotification(), m.isResponse()} {
				if ok {
					n++
				}
			}
			if n != 1 || m.JSONRPC != "2.0" {
				t.Fatalf("valid message %+v is %d kinds", m, n)
			}
			if len(m.Params) > 0 && !bytes.HasPrefix(trimSpace(m.Params), []byte("{")) {
				t.Fatalf("params %s", m.Params)
			}
		}
	})
}

// exactKeys reports whether body's top-level keys are plain (no escapes) and
// never a case variant of an envelope key, which encoding/json would match.
func exactKeys(body []byte) bool {
	return jsonscan.EachMember(body, func(k, _ []byte) bool {
		for _, known := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
			if strings.EqualFold(string(k), known) && string(k) != known {
				return false
			}
		}
		return true
	})
}
