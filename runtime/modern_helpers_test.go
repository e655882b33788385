package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// leakCheck fails the test if it leaves goroutines behind. It registers the
// first cleanup, so it runs last, after the servers and clients are closed.
func leakCheck(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// seamHandler drives the 2026-07-28 seam the way the transport's ServeHTTP
// does; tests use the Server itself once it is an http.Handler.
type seamHandler struct{ s *Server }

func (h seamHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		if r.Header.Get(headerSessionID) == "" && h.s.http.isModernNoSession(r) {
			h.s.http.serveModernNoSession(w, r)
			return
		}
		http.Error(w, "legacy GET/DELETE not served by this test handler", http.StatusBadRequest)
		return
	}
	var msg message
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !h.s.http.isModernHTTP(r, &msg) {
		http.Error(w, "legacy request not served by this test handler", http.StatusBadRequest)
		return
	}
	h.s.http.serveModernHTTP(w, r, &msg)
}

// handlerOf returns the Server's own http.Handler when the transport has
// one, else the seam driver.
func handlerOf(s *Server) http.Handler {
	if h, ok := any(s).(http.Handler); ok {
		return h
	}
	return seamHandler{s}
}

// modernServer starts s on a loopback httptest server.
func modernServer(t *testing.T, s *Server) *modernClient {
	t.Helper()
	ts := httptest.NewUnstartedServer(handlerOf(s))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.Listener = ln
	ts.Start()
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		ts.Close()
	})
	return &modernClient{t: t, url: ts.URL, hc: &http.Client{Transport: tr}, caps: map[string]any{}}
}

func newTestServer(t *testing.T, tools ...Tool) *Server {
	t.Helper()
	s := NewServer(Options{Name: "modern-test", Version: "1.2.3"})
	for _, tool := range tools {
		if err := s.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// modernClient speaks 2026-07-28 over raw HTTP, like the conformance harness.
type modernClient struct {
	t    *testing.T
	url  string
	hc   *http.Client
	caps any // clientCapabilities sent in _meta
	id   int
}

// reqOpt changes one request: its headers, its _meta, its body.
type reqOpt func(*modernCall)

type modernCall struct {
	method  string
	id      any
	params  map[string]any
	meta    map[string]any // nil: send no _meta at all
	headers http.Header
	ctx     context.Context
}

func withHeader(k, v string) reqOpt      { return func(c *modernCall) { c.headers.Set(k, v) } }
func withoutHeader(k string) reqOpt      { return func(c *modernCall) { c.headers.Del(k) } }
func withMeta(k string, v any) reqOpt    { return func(c *modernCall) { c.meta[k] = v } }
func withoutMeta(k string) reqOpt        { return func(c *modernCall) { delete(c.meta, k) } }
func withNoMeta() reqOpt                 { return func(c *modernCall) { c.meta = nil } }
func withCaps(caps any) reqOpt           { return withMeta(metaClientCapabilities, caps) }
func withID(id any) reqOpt               { return func(c *modernCall) { c.id = id } }
func withCtx(ctx context.Context) reqOpt { return func(c *modernCall) { c.ctx = ctx } }

// modernResp is one POST's answer: every JSON-RPC message it carried, in
// order (one for a JSON response, several for SSE).
type modernResp struct {
	status int
	header http.Header
	msgs   []map[string]any
	body   string
}

// final is the response message (the one with an id).
func (r *modernResp) final(t *testing.T) map[string]any {
	t.Helper()
	for _, m := range r.msgs {
		if _, ok := m["id"]; ok {
			return m
		}
	}
	t.Fatalf("no response message; status %d, body %q", r.status, r.body)
	return nil
}

func (r *modernResp) result(t *testing.T) map[string]any {
	t.Helper()
	f := r.final(t)
	res, ok := f["result"].(map[string]any)
	if !ok {
		t.Fatalf("want a result, got %v", f)
	}
	return res
}

// errCode returns the JSON-RPC error code of the response (0 when none).
func (r *modernResp) errCode(t *testing.T) int {
	t.Helper()
	e, ok := r.final(t)["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

func (r *modernResp) errData(t *testing.T) map[string]any {
	t.Helper()
	e, _ := r.final(t)["error"].(map[string]any)
	d, _ := e["data"].(map[string]any)
	return d
}

func (r *modernResp) notifications(method string) []map[string]any {
	var out []map[string]any
	for _, m := range r.msgs {
		if m["method"] == method {
			out = append(out, m)
		}
	}
	return out
}

// call sends one request with conformant headers and _meta, then applies opts.
func (c *modernClient) call(method string, params map[string]any, opts ...reqOpt) *modernResp {
	c.t.Helper()
	resp, body := c.send(method, params, opts...)
	defer body.Close()
	return readModernResp(c.t, resp, body)
}

// send posts the request and returns the open response.
func (c *modernClient) send(method string, params map[string]any, opts ...reqOpt) (*http.Response, io.ReadCloser) {
	c.t.Helper()
	c.id++
	mc := &modernCall{
		method: method, id: c.id, params: map[string]any{},
		meta: map[string]any{
			metaProtocolVersion:    Version20260728,
			metaClientInfo:         map[string]any{"name": "modern-test-client", "version": "1.0.0"},
			metaClientCapabilities: c.caps,
		},
		headers: http.Header{},
		ctx:     context.Background(),
	}
	for k, v := range params {
		mc.params[k] = v
	}
	mc.headers.Set("Content-Type", "application/json")
	mc.headers.Set("Accept", "application/json, text/event-stream")
	mc.headers.Set(headerProtocolVersion, Version20260728)
	mc.headers.Set(headerMethod, method)
	if name, ok := params["name"].(string); ok && (method == "tools/call" || method == "prompts/get") {
		mc.headers.Set(headerName, name)
	}
	if uri, ok := params["uri"].(string); ok && method == "resources/read" {
		mc.headers.Set(headerName, uri)
	}
	for _, o := range opts {
		o(mc)
	}
	if mc.meta != nil {
		mc.params["_meta"] = mc.meta
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": mc.id, "method": method, "params": mc.params})
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(mc.ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header = mc.headers
	if h := mc.headers.Get("Host"); h != "" {
		req.Host = h // Go sends req.Host, never a Host header
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("POST %s: %v", method, err)
	}
	return resp, resp.Body
}

func readModernResp(t *testing.T, resp *http.Response, body io.Reader) *modernResp {
	t.Helper()
	out := &modernResp{status: resp.StatusCode, header: resp.Header}
	raw, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	out.body = string(raw)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "id:") {
				t.Errorf("2026-07-28 streams carry no event IDs: %q", line)
			}
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(d), &m); err != nil {
					t.Fatalf("SSE data is not JSON: %q", d)
				}
				out.msgs = append(out.msgs, m)
			}
		}
		return out
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("JSON body: %v: %q", err, raw)
		}
		out.msgs = append(out.msgs, m)
	}
	return out
}

// sseReader reads one SSE message at a time off an open response.
type sseReader struct {
	sc *bufio.Scanner
}

func newSSEReader(body io.Reader) *sseReader { return &sseReader{sc: bufio.NewScanner(body)} }

// next returns the next data message, or nil at the end of the stream.
func (r *sseReader) next(t *testing.T) map[string]any {
	t.Helper()
	for r.sc.Scan() {
		d, ok := strings.CutPrefix(r.sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("SSE data is not JSON: %q", d)
		}
		return m
	}
	return nil
}

// jsonOf re-encodes v for comparisons in failure messages.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
