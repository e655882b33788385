package runtime

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
)

// TestSupportedProtocolVersions: a server offers the versions
// Options.SupportedProtocolVersions names, on its one endpoint and over
// stdio: initialize negotiates among the session versions it offers (and
// fails, listing what it offers, when it offers none), a 2026-07-28
// request of a version it does not offer is -32022, and server/discover
// lists exactly the offered ones.
func TestSupportedProtocolVersions(t *testing.T) {
	noLeaks(t)
	initialize := func(v string) string {
		return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	}

	// Sessions only, and only 2025-06-18.
	s, ts := legacyServer(t, Options{SupportedProtocolVersions: []string{Version20250618}}, echoTool())
	c := newClient(t, ts)
	if m := jsonBody(t, c.post(initialize(Version20251125))); !strings.Contains(string(m.Result), `"protocolVersion":"2025-06-18"`) {
		t.Errorf("initialize 2025-11-25 on a 2025-06-18 server: %s %+v", m.Result, m.Error)
	}
	r := modernServer(t, s).call("server/discover", nil)
	if r.status != http.StatusBadRequest || r.errCode(t) != CodeUnsupportedVersion || !strings.Contains(r.body, "serves sessions only: initialize with one of 2025-06-18") {
		t.Errorf("a 2026-07-28 request to a sessions-only server: %d %s", r.status, r.body)
	}
	stdio := startStdio(t, s)
	stdio.send(initialize(Version20250326))
	if m := stdio.recv(); !strings.Contains(string(m.Result), `"protocolVersion":"2025-06-18"`) {
		t.Errorf("stdio initialize 2025-03-26: %s %+v", m.Result, m.Error)
	}

	// 2026-07-28 only.
	s, ts = legacyServer(t, Options{SupportedProtocolVersions: []string{Version20260728}}, echoTool())
	c = newClient(t, ts)
	if m := jsonBody(t, c.post(initialize(Version20251125))); m.Error == nil || m.Error.Code != CodeInvalidParams || !strings.Contains(string(jsonOf(m.Error.Data)), `"supported":["2026-07-28"]`) {
		t.Errorf("initialize on a 2026-07-28 server: %s %+v", m.Result, m.Error)
	}
	d := modernServer(t, s).call("server/discover", nil).result(t)
	if got := jsonOf(d["supportedVersions"]); got != `["2026-07-28"]` {
		t.Errorf("server/discover lists %s", got)
	}

	// Every version, the default.
	_, ts = legacyServer(t, Options{}, echoTool())
	if m := jsonBody(t, newClient(t, ts).post(initialize(Version20250326))); !strings.Contains(string(m.Result), `"protocolVersion":"2025-03-26"`) {
		t.Errorf("initialize 2025-03-26 by default: %s", m.Result)
	}

	for _, bad := range [][]string{{}, {"2024-11-05"}} {
		if err := (Options{SupportedProtocolVersions: bad}).Validate(); err == nil || !strings.Contains(err.Error(), "SupportedProtocolVersions") {
			t.Errorf("Validate of %q: %v", bad, err)
		}
	}
}

// TestBehindAReverseProxy: a reverse proxy on loopback that passes the
// client's Host on is refused by the DNS-rebinding check with a message
// naming the Options.AllowedHosts value that would admit it; with that
// value the server works through the proxy in both eras. A refused Origin
// names its Options.AllowedOrigins value too.
func TestBehindAReverseProxy(t *testing.T) {
	for _, allowed := range [][]string{nil, {"mcp.example.com"}} {
		s, backend := legacyServer(t, Options{AllowedHosts: allowed}, echoTool())
		target, _ := url.Parse(backend.URL)
		proxy := httputil.NewSingleHostReverseProxy(target)
		direct := proxy.Director
		proxy.Director = func(r *http.Request) {
			host := r.Host
			direct(r)
			r.Host = host // the proxy keeps the client's Host, as nginx's proxy_set_header Host $host does
		}
		front := httptest.NewServer(proxy)
		t.Cleanup(front.Close)
		c := newClient(t, front)
		public := func(r *http.Request) { r.Host = "mcp.example.com" }
		resp := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, public)
		m := jsonBody(t, resp)
		if allowed == nil {
			if resp.StatusCode != http.StatusForbidden || m.Error == nil || !strings.Contains(m.Error.Message, `add "mcp.example.com" to Options.AllowedHosts`) {
				t.Errorf("through a proxy without AllowedHosts: %d %+v", resp.StatusCode, m.Error)
			}
			mc := &modernClient{t: t, url: front.URL, hc: c.hc, caps: map[string]any{}}
			if r := mc.call("tools/list", nil, withHeader("Host", "mcp.example.com")); r.status != http.StatusForbidden || !strings.Contains(r.body, "Options.AllowedHosts") {
				t.Errorf("2026-07-28 through a proxy without AllowedHosts: %d %s", r.status, r.body)
			}
			resp = c.post(`{"jsonrpc":"2.0","id":0,"method":"ping"}`, func(r *http.Request) { r.Header.Set("Origin", "https://app.example.com") })
			if m := jsonBody(t, resp); resp.StatusCode != http.StatusForbidden || !strings.Contains(m.Error.Message, `add "https://app.example.com" to Options.AllowedOrigins`) {
				t.Errorf("a foreign Origin: %d %+v", resp.StatusCode, m.Error)
			}
			continue
		}
		if resp.StatusCode != http.StatusOK || m.Error != nil {
			t.Errorf("through a proxy with AllowedHosts: %d %+v", resp.StatusCode, m.Error)
		}
		mc := &modernClient{t: t, url: front.URL, hc: c.hc, caps: map[string]any{}}
		if r := mc.call("tools/list", nil, withHeader("Host", "mcp.example.com")); r.status != http.StatusOK || r.errCode(t) != 0 {
			t.Errorf("2026-07-28 through the proxy: %d %s", r.status, r.body)
		}
		_ = s
	}
}
