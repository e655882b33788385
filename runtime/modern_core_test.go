package runtime

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestModernRouting(t *testing.T) {
	s := NewServer(Options{})
	modernMeta := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	cases := []struct {
		name    string
		method  string
		params  string
		headers map[string]string
		want    bool
	}{
		{"modern _meta and header", "tools/list", modernMeta, map[string]string{headerProtocolVersion: "2026-07-28"}, true},
		{"modern _meta only", "tools/list", modernMeta, nil, true},
		{"modern header only (malformed _meta is the modern era's to reject)", "server/discover", `{}`, map[string]string{headerProtocolVersion: "2026-07-28"}, true},
		{"unknown version header", "server/discover", `{}`, map[string]string{headerProtocolVersion: "v999.0.0"}, true},
		{"initialize without _meta", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, nil, false},
		{"initialize with modern _meta (removed method, answered 404 by the modern era)", "initialize", modernMeta, map[string]string{headerProtocolVersion: "2026-07-28"}, true},
		{"legacy session", "tools/list", modernMeta, map[string]string{headerSessionID: "abc", headerProtocolVersion: "2026-07-28"}, false},
		{"legacy header without _meta", "tools/list", `{}`, map[string]string{headerProtocolVersion: "2025-06-18"}, false},
		{"nothing at all", "tools/list", `{}`, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			for k, v := range c.headers {
				r.Header.Set(k, v)
			}
			msg := &message{JSONRPC: "2.0", ID: json.RawMessage("1"), Method: c.method, Params: json.RawMessage(c.params)}
			if got := s.http.isModernHTTP(r, msg); got != c.want {
				t.Errorf("isModernHTTP = %v, want %v", got, c.want)
			}
		})
	}
}

func TestModernMetaValidation(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t))
	cases := []struct {
		name string
		opts []reqOpt
	}{
		{"missing _meta", []reqOpt{withNoMeta()}},
		{"missing protocolVersion", []reqOpt{withoutMeta(metaProtocolVersion)}},
		{"missing clientCapabilities", []reqOpt{withoutMeta(metaClientCapabilities)}},
		{"clientCapabilities not an object", []reqOpt{withCaps([]string{"sampling"})}},
		{"bad logLevel", []reqOpt{withMeta(metaLogLevel, "loud")}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := 100 + i
			r := c.call("server/discover", nil, append(tc.opts, withID(id))...)
			if r.status != http.StatusBadRequest || r.errCode(t) != CodeInvalidParams {
				t.Fatalf("got HTTP %d code %d, want 400 -32602: %s", r.status, r.errCode(t), r.body)
			}
			if got := r.final(t)["id"]; got != float64(id) {
				t.Errorf("id %v not echoed (want %d)", got, id)
			}
		})
	}
	t.Run("clientInfo is optional", func(t *testing.T) {
		r := c.call("server/discover", nil, withoutMeta(metaClientInfo))
		if r.status != http.StatusOK || r.errCode(t) != 0 {
			t.Fatalf("got HTTP %d: %s", r.status, r.body)
		}
	})
}

func TestModernDiscover(t *testing.T) {
	leakCheck(t)
	s := NewServer(Options{Name: "disco", Version: "9.9.9", Title: "Disco", Instructions: "Use the tools."})
	c := modernServer(t, s)
	r := c.call("server/discover", nil)
	if r.status != http.StatusOK {
		t.Fatalf("HTTP %d: %s", r.status, r.body)
	}
	res := r.result(t)
	if res["resultType"] != "complete" {
		t.Errorf("resultType = %v", res["resultType"])
	}
	if v, _ := res["supportedVersions"].([]any); !slices.Contains(v, any(Version20260728)) {
		t.Errorf("supportedVersions = %v", res["supportedVersions"])
	}
	// Capabilities follow registration: this server has registered nothing.
	caps, _ := res["capabilities"].(map[string]any)
	if _, ok := caps["logging"]; len(caps) != 1 || !ok {
		t.Errorf("capabilities = %v", caps)
	}
	if res["instructions"] != "Use the tools." {
		t.Errorf("instructions = %v", res["instructions"])
	}
	if _, ok := res["ttlMs"].(float64); !ok || res["cacheScope"] != "public" {
		t.Errorf("ttlMs/cacheScope = %v/%v", res["ttlMs"], res["cacheScope"])
	}
	meta, _ := res["_meta"].(map[string]any)
	info, _ := meta[metaServerInfo].(map[string]any)
	if info["name"] != "disco" || info["version"] != "9.9.9" || info["title"] != "Disco" {
		t.Errorf("_meta serverInfo = %v", meta[metaServerInfo])
	}
}

func TestModernVersionErrors(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t))
	t.Run("unsupported version", func(t *testing.T) {
		r := c.call("server/discover", nil, withHeader(headerProtocolVersion, "v999.0.0"), withMeta(metaProtocolVersion, "v999.0.0"), withID(301))
		if r.status != http.StatusBadRequest || r.errCode(t) != CodeUnsupportedVersion {
			t.Fatalf("got HTTP %d code %d: %s", r.status, r.errCode(t), r.body)
		}
		d := r.errData(t)
		if d["requested"] != "v999.0.0" || !slices.Equal(d["supported"].([]any), []any{Version20260728}) {
			t.Errorf("data = %v", d)
		}
		if r.final(t)["id"] != float64(301) {
			t.Errorf("id not echoed: %v", r.final(t)["id"])
		}
	})
	t.Run("header differs from _meta", func(t *testing.T) {
		r := c.call("server/discover", nil, withMeta(metaProtocolVersion, "v999.0.0"))
		if r.status != http.StatusBadRequest || r.errCode(t) != CodeHeaderMismatch {
			t.Fatalf("got HTTP %d code %d, want 400 -32020: %s", r.status, r.errCode(t), r.body)
		}
	})
	t.Run("header missing comes before _meta errors", func(t *testing.T) {
		r := c.call("server/discover", nil, withoutHeader(headerProtocolVersion), withoutMeta(metaClientCapabilities))
		if r.status != http.StatusBadRequest || r.errCode(t) != CodeHeaderMismatch {
			t.Fatalf("got HTTP %d code %d, want 400 -32020: %s", r.status, r.errCode(t), r.body)
		}
	})
	t.Run("_meta errors come before a header mismatch", func(t *testing.T) {
		r := c.call("server/discover", nil, withHeader(headerProtocolVersion, "v1"), withoutMeta(metaClientCapabilities))
		if r.status != http.StatusBadRequest || r.errCode(t) != CodeInvalidParams {
			t.Fatalf("got HTTP %d code %d, want 400 -32602: %s", r.status, r.errCode(t), r.body)
		}
	})
}

func TestModernMethodNotFound(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t))
	for i, m := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "unknown/method"} {
		t.Run(m, func(t *testing.T) {
			id := "req-" + m
			r := c.call(m, map[string]any{"uri": "test://x", "level": "info"}, withID(id))
			if r.status != http.StatusNotFound || r.errCode(t) != CodeMethodNotFound {
				t.Fatalf("#%d got HTTP %d code %d, want 404 -32601: %s", i, r.status, r.errCode(t), r.body)
			}
			if r.final(t)["id"] != id {
				t.Errorf("id not echoed: %v", r.final(t)["id"])
			}
		})
	}
}

func TestModernGetDeleteNotAllowed(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t))
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, c.url, nil)
		req.Header.Set(headerProtocolVersion, Version20260728)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(resp.Header.Get("Allow"), "POST") {
			t.Errorf("%s: HTTP %d Allow %q, want 405 with Allow: POST", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

func TestModernToolsList(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t, elicitationTool(), samplingTool("test_missing_capability"), rootsTool()))
	r := c.call("tools/list", nil)
	res := r.result(t)
	if res["resultType"] != "complete" || res["cacheScope"] != "public" {
		t.Errorf("resultType/cacheScope = %v/%v", res["resultType"], res["cacheScope"])
	}
	if ttl, ok := res["ttlMs"].(float64); !ok || ttl != float64(int64(ttl)) || ttl < 0 {
		t.Errorf("ttlMs = %v, want a non-negative integer", res["ttlMs"])
	}
	var names []string
	for _, tool := range res["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	want := []string{"test_input_required_result_elicitation", "test_missing_capability", "test_input_required_result_list_roots"}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v (registration order)", names, want)
	}
	if r := c.call("tools/list", map[string]any{"cursor": "bogus"}); r.errCode(t) != CodeInvalidParams {
		t.Errorf("bogus cursor: %s", r.body)
	}
}

func TestModernCapabilityMissing(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t, samplingTool("test_missing_capability"), elicitationTool()))
	r := c.call("tools/call", map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}})
	if r.status != http.StatusBadRequest || r.errCode(t) != CodeMissingCapability {
		t.Fatalf("got HTTP %d code %d, want 400 -32021: %s", r.status, r.errCode(t), r.body)
	}
	if got := jsonOf(r.errData(t)); got != `{"requiredCapabilities":{"sampling":{}}}` {
		t.Errorf("data = %s", got)
	}
	// Only sampling declared: the elicitation tool must not ask, nor complete.
	r = c.call("tools/call", map[string]any{"name": "test_input_required_result_elicitation"}, withCaps(map[string]any{"sampling": map[string]any{}}))
	if r.errCode(t) != CodeMissingCapability || strings.Contains(r.body, "elicitation/create") {
		t.Fatalf("want -32021 without an elicitation/create: %s", r.body)
	}
	if got := jsonOf(r.errData(t)); got != `{"requiredCapabilities":{"elicitation":{"form":{}}}}` {
		t.Errorf("data = %s", got)
	}
}

func TestModernNotificationAccepted(t *testing.T) {
	leakCheck(t)
	c := modernServer(t, newTestServer(t))
	body := `{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(headerProtocolVersion, Version20260728)
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("HTTP %d, want 202", resp.StatusCode)
	}
}
