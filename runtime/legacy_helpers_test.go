package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The generator's golden tests take -update; go test ./... passes it to every
// test binary, so this one defines it too.
var _ = flag.Bool("update", false, "rewrite golden files (used by the generator package)")

// noLeaks fails the test if goroutines outlive it. Registered first, it runs
// last, after servers and clients are closed.
func noLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// legacyServer starts a Server with tools on a loopback httptest server.
func legacyServer(t *testing.T, opts Options, tools ...Tool) (*Server, *httptest.Server) {
	t.Helper()
	noLeaks(t)
	s := NewServer(opts)
	for _, tool := range tools {
		if err := s.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		_ = s.Close()
		ts.CloseClientConnections()
		ts.Close()
	})
	return s, ts
}

// toolOf builds a tool from its inputSchema and handler.
func toolOf(name, inputSchema string, h ToolHandler, forms ...*Elicitation) Tool {
	def := fmt.Sprintf(`{"name":%q,"description":"test tool","inputSchema":%s}`, name, inputSchema)
	return Tool{Name: name, Definition: json.RawMessage(def), Handler: h, Elicitations: forms}
}

// client is a hand-rolled legacy Streamable HTTP client.
type client struct {
	t       *testing.T
	url     string
	hc      *http.Client
	session string
	version string
}

func newClient(t *testing.T, ts *httptest.Server) *client {
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	return &client{t: t, url: ts.URL, hc: hc}
}

// initialize opens a session with the given version and capabilities.
func (c *client) initialize(version, caps string) {
	c.t.Helper()
	resp := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"test","version":"1"}}}`, version, caps))
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		c.t.Fatalf("initialize: status %d", resp.StatusCode)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	var m struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		c.t.Fatal(err)
	}
	c.version = m.Result.ProtocolVersion
	r := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.Body.Close()
	if r.StatusCode != http.StatusAccepted {
		c.t.Fatalf("initialized: status %d", r.StatusCode)
	}
}

// request builds a POST with the session's headers; edit adjusts it.
func (c *client) request(method, body string, edit ...func(*http.Request)) *http.Request {
	req, err := http.NewRequest(method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	for _, e := range edit {
		e(req)
	}
	return req
}

func (c *client) do(req *http.Request) *http.Response {
	c.t.Helper()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (c *client) post(body string, edit ...func(*http.Request)) *http.Response {
	c.t.Helper()
	return c.do(c.request(http.MethodPost, body, edit...))
}

// answer posts a response to a server-to-client request and returns the status.
func (c *client) answer(id json.RawMessage, result string) int {
	c.t.Helper()
	resp := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result))
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// rpc is a decoded JSON-RPC message as the tests see it.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// jsonBody decodes a plain JSON response.
func jsonBody(t *testing.T, resp *http.Response) rpc {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	var m rpc
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// event is one SSE event.
type event struct {
	id   string
	data string
	msg  rpc
}

// events reads the SSE events of resp on a goroutine that ends with the body.
func events(t *testing.T, resp *http.Response) <-chan event {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	ch := make(chan event, 1024)
	go func() {
		defer close(ch)
		br := bufio.NewReader(resp.Body)
		var ev event
		var data []string
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case line == "":
				if ev.id != "" || data != nil {
					ev.data = strings.Join(data, "\n")
					if ev.data != "" {
						_ = json.Unmarshal([]byte(ev.data), &ev.msg)
					}
					ch <- ev
				}
				ev, data = event{}, nil
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "data: "):
				data = append(data, line[6:])
			case strings.HasPrefix(line, "data:"):
				data = append(data, line[5:])
			}
		}
	}()
	return ch
}

// next returns the next event that carries a message (priming events are
// skipped), failing after a few seconds.
func next(t *testing.T, ch <-chan event) event {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("the stream ended")
			}
			if ev.data == "" {
				continue
			}
			return ev
		case <-timeout:
			t.Fatal("no event within 5s")
		}
	}
}

// resultText returns the first text block of a tools/call result.
func resultText(t *testing.T, m rpc) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d: %s", m.Error.Code, m.Error.Message)
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("result %s: %v", m.Result, err)
	}
	if r.IsError {
		return "ERROR: " + r.Content[0].Text
	}
	return r.Content[0].Text
}

// callBody is a tools/call request.
func callBody(id int, name, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
}

// confirmForm is a one-field form.
var confirmForm = &Elicitation{Name: "confirm", Mode: "form", Message: "Sure?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"},"note":{"type":"string","default":"none"}},"required":["confirm"]}`)}

type confirmAnswer struct {
	Confirm bool   `json:"confirm"`
	Note    string `json:"note"`
}

// confirmTool elicits confirmForm and reports the answer.
func confirmTool() Tool {
	return toolOf("confirm", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		var a confirmAnswer
		if err := call.Elicit(ctx, confirmForm, "", &a); err != nil {
			return nil, err
		}
		return ContentResult(call, []Content{Text(fmt.Sprintf("confirm=%v note=%s", a.Confirm, a.Note))}), nil
	}, confirmForm)
}
