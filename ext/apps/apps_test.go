package apps_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/ext/apps"
	"github.com/mcpgen/mcpgen/runtime"
	board "github.com/mcpgen/mcpgen/testdata/golden/mcp-apps/want"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tasks answers the tools of the mcp-apps golden package; show_tasks says
// whether its host renders the page.
type tasks struct{ board.UnimplementedHandler }

func (tasks) ShowTasks(_ context.Context, call board.ShowTasksCall, _ board.ShowTasksInput) ([]runtime.Content, error) {
	return []runtime.Content{runtime.Text(fmt.Sprintf("page rendered: %v", call.HostRendersPage()))}, nil
}

func (tasks) MoveTask(_ context.Context, _ board.MoveTaskCall, in board.MoveTaskInput) ([]runtime.Content, error) {
	return []runtime.Content{runtime.Text("moved " + in.ID + " to " + in.Column)}, nil
}

func (tasks) ReadWeeklyReport(context.Context, board.WeeklyReportResourceCall) (string, error) {
	return "<!DOCTYPE html><p>report</p>", nil
}

func newServer(t *testing.T) *runtime.Server {
	t.Helper()
	s := runtime.NewServer(runtime.Options{Name: "apps-test", Version: "1"})
	t.Cleanup(func() { s.Close() })
	if err := board.Register(s, tasks{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// A client is one way of talking to the server: HTTP or stdio, a legacy
// session or 2026-07-28, declaring MCP Apps or not. call returns the result
// of a request (failing the test on a JSON-RPC error); capabilities returns
// the server's capabilities (initialize or server/discover).
type client interface {
	call(method string, params map[string]any) json.RawMessage
	capabilities() json.RawMessage
}

const legacyVersion, modernVersion = "2025-11-25", "2026-07-28"

// clientCaps are the capabilities of a host with MCP Apps, or of one without.
func clientCaps(apps bool) map[string]any {
	if !apps {
		return map[string]any{}
	}
	return map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}}
}

func result(t *testing.T, raw []byte) json.RawMessage {
	t.Helper()
	var msg struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		t.Fatalf("response %s: %v", raw, err)
	}
	if msg.Error != nil {
		t.Fatalf("JSON-RPC error %d: %s", msg.Error.Code, msg.Error.Message)
	}
	return msg.Result
}

// httpClient speaks Streamable HTTP to a server on loopback.
type httpClient struct {
	t       *testing.T
	url     string
	modern  bool
	apps    bool
	session string
	id      int
	caps    json.RawMessage
}

func newHTTPClient(t *testing.T, url string, modern, apps bool) *httpClient {
	c := &httpClient{t: t, url: url, modern: modern, apps: apps}
	if modern {
		c.caps = field(t, c.call("server/discover", map[string]any{}), "capabilities")
		return c
	}
	res := c.call("initialize", map[string]any{"protocolVersion": legacyVersion, "capabilities": clientCaps(apps),
		"clientInfo": map[string]any{"name": "apps-test", "version": "1"}})
	c.caps = field(t, res, "capabilities")
	c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, "notifications/initialized", "")
	return c
}

func (c *httpClient) capabilities() json.RawMessage { return c.caps }

func (c *httpClient) call(method string, params map[string]any) json.RawMessage {
	c.id++
	name := ""
	if n, ok := params["name"].(string); ok {
		name = n
	} else if u, ok := params["uri"].(string); ok {
		name = u
	}
	if c.modern {
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": modernVersion,
			"io.modelcontextprotocol/clientCapabilities": clientCaps(c.apps)}
	}
	return result(c.t, c.post(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params}, method, name))
}

func (c *httpClient) post(msg map[string]any, method, name string) []byte {
	c.t.Helper()
	body, _ := json.Marshal(msg)
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	switch {
	case c.modern:
		req.Header.Set("MCP-Protocol-Version", modernVersion)
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	case c.session != "":
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", legacyVersion)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.session = sid
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	if resp.StatusCode >= 300 {
		c.t.Fatalf("%s: HTTP %d: %s", method, resp.StatusCode, data)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var last []byte
		for _, line := range strings.Split(string(data), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id"`) {
				last = []byte(d)
			}
		}
		return last
	}
	return data
}

// stdioClient runs each request through ServeStdio: the legacy one after an
// initialize of its own, the modern one with its _meta.
type stdioClient struct {
	t      *testing.T
	s      *runtime.Server
	modern bool
	apps   bool
	caps   json.RawMessage
}

func newStdioClient(t *testing.T, s *runtime.Server, modern, apps bool) *stdioClient {
	c := &stdioClient{t: t, s: s, modern: modern, apps: apps}
	if modern {
		c.caps = field(t, c.call("server/discover", map[string]any{}), "capabilities")
	} else {
		c.caps = field(t, c.exchange(nil), "capabilities")
	}
	return c
}

func (c *stdioClient) capabilities() json.RawMessage { return c.caps }

func (c *stdioClient) call(method string, params map[string]any) json.RawMessage {
	return c.exchange(map[string]any{"jsonrpc": "2.0", "id": 2, "method": method, "params": params})
}

// exchange sends msg (nil: none) after the session's start and returns the
// result of request 2 (or, with no msg, of the initialize).
func (c *stdioClient) exchange(msg map[string]any) json.RawMessage {
	c.t.Helper()
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	want := 2
	if !c.modern {
		enc.Encode(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
			"protocolVersion": legacyVersion, "capabilities": clientCaps(c.apps), "clientInfo": map[string]any{"name": "apps-test", "version": "1"}}})
		enc.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	}
	if msg == nil {
		want = 1
	} else {
		if c.modern {
			msg["params"].(map[string]any)["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": modernVersion,
				"io.modelcontextprotocol/clientCapabilities": clientCaps(c.apps)}
		}
		enc.Encode(msg)
	}
	var out bytes.Buffer
	if err := c.s.ServeStdio(context.Background(), &in, &out); err != nil {
		c.t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var probe struct{ ID *int }
		if json.Unmarshal(sc.Bytes(), &probe) == nil && probe.ID != nil && *probe.ID == want {
			return result(c.t, sc.Bytes())
		}
	}
	c.t.Fatalf("no response %d in %s", want, out.Bytes())
	return nil
}

func field(t *testing.T, obj json.RawMessage, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatalf("%s: %v", obj, err)
	}
	return m[key]
}

// TestAppsInEveryEraAndTransport checks what the server says about MCP
// Apps to a legacy session and to 2026-07-28, over HTTP and stdio, for a
// host with MCP Apps and one without.
func TestAppsInEveryEraAndTransport(t *testing.T) {
	page, err := os.ReadFile("../../testdata/golden/mcp-apps/want/input/board.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{"http", "stdio"} {
		for _, era := range []string{"legacy", "modern"} {
			for _, declared := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/apps=%v", transport, era, declared), func(t *testing.T) {
					s := newServer(t)
					var c client
					if transport == "http" {
						mux := http.NewServeMux()
						mux.Handle("/mcp", s)
						ts := httptest.NewServer(mux)
						defer ts.Close()
						c = newHTTPClient(t, ts.URL+"/mcp", era == "modern", declared)
					} else {
						c = newStdioClient(t, s, era == "modern", declared)
					}
					checkApps(t, c, page, declared)
				})
			}
		}
	}
}

func checkApps(t *testing.T, c client, page []byte, declared bool) {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	json.Unmarshal(c.capabilities(), &caps)
	if got := string(caps.Extensions[apps.ExtensionID]); got != "{}" {
		t.Errorf("capabilities.extensions[%s] = %q, want {}", apps.ExtensionID, got)
	}

	var list struct {
		Tools []struct {
			Name string
			Meta map[string]json.RawMessage `json:"_meta"`
		}
	}
	json.Unmarshal(c.call("tools/list", map[string]any{}), &list)
	metas := map[string]map[string]json.RawMessage{}
	for _, tool := range list.Tools {
		metas[tool.Name] = tool.Meta
	}
	if got := string(metas["show_tasks"]["ui/resourceUri"]); got != `"ui://tasks/board.html"` {
		t.Errorf("show_tasks: _meta[ui/resourceUri] = %s", got)
	}
	if got := string(metas["show_tasks"]["ui"]); !strings.Contains(got, `"resourceUri":"ui://tasks/board.html"`) {
		t.Errorf("show_tasks: _meta.ui = %s", got)
	}
	if got := string(metas["move_task"]["ui"]); !strings.Contains(got, `"visibility":["app"]`) {
		t.Errorf("the app-only move_task is not listed with its visibility: _meta.ui = %s", got)
	}

	var read struct {
		Contents []struct {
			URI, MIMEType, Text string
			Meta                json.RawMessage `json:"_meta"`
		}
	}
	json.Unmarshal(c.call("resources/read", map[string]any{"uri": "ui://tasks/board.html"}), &read)
	if len(read.Contents) != 1 {
		t.Fatalf("resources/read: %d contents", len(read.Contents))
	}
	got := read.Contents[0]
	wantMeta := `{"ui":{"csp":{"connectDomains":["https://api.tasks.example"],"resourceDomains":["https://cdn.tasks.example","https://*.fonts.example:8443"]},"permissions":{"clipboardWrite":{}},"prefersBorder":true}}`
	if got.URI != "ui://tasks/board.html" || got.MIMEType != apps.MIMEType || got.Text != string(page) || string(got.Meta) != wantMeta {
		t.Errorf("resources/read of the page: %s %s _meta %s, %d characters (want %d)", got.URI, got.MIMEType, got.Meta, len(got.Text), len(page))
	}

	if text := toolText(t, c.call("tools/call", map[string]any{"name": "move_task", "arguments": map[string]any{"id": "t1", "column": "done"}})); text != "moved t1 to done" {
		t.Errorf("the app-only move_task answered %q", text)
	}
	want := fmt.Sprintf("page rendered: %v", declared)
	if text := toolText(t, c.call("tools/call", map[string]any{"name": "show_tasks", "arguments": map[string]any{}})); text != want {
		t.Errorf("show_tasks answered %q, want %q", text, want)
	}
}

func toolText(t *testing.T, res json.RawMessage) string {
	t.Helper()
	var r struct {
		Content []struct{ Text string }
		IsError bool
	}
	json.Unmarshal(res, &r)
	if r.IsError || len(r.Content) == 0 {
		t.Fatalf("tool result %s", res)
	}
	return r.Content[0].Text
}

// TestEnableTwice: two generated packages with pages on one server each
// enable MCP Apps; the second finds it enabled.
func TestEnableTwice(t *testing.T) {
	s := runtime.NewServer(runtime.Options{})
	defer s.Close()
	if err := apps.Enable(s); err != nil {
		t.Fatal(err)
	}
	if err := apps.Enable(s); err != nil {
		t.Errorf("enabling MCP Apps again: %v", err)
	}
	if err := s.AddExtension(runtime.Extension{ID: apps.ExtensionID}); !errors.Is(err, runtime.ErrExtensionAdded) {
		t.Errorf("adding the extension itself again: %v", err)
	}
}
