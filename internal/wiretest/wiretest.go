// Package wiretest speaks MCP on the wire to a runtime.Server, for the
// tests of packages built on the runtime (extensions): a legacy session
// over Streamable HTTP, stateless 2026-07-28 over HTTP, and either over
// stdio. It sends raw JSON-RPC and hands back raw messages, so a test sees
// exactly what a client would, and it answers the server's own requests
// with what the test says. It is test support, not a client library: a
// failure fails the test.
package wiretest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"go.uber.org/goleak"
)

// NoLeaks fails t if goroutines outlive it. Registered first, it runs
// last, after servers and clients are closed.
func NoLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// Message is one JSON-RPC message.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *runtime.Error  `json:"error,omitempty"`
}

// IsRequest reports whether m is a request (the server's, to the client).
func (m Message) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// Response is what one request got: its HTTP status (0 over stdio), the
// response message, and the notifications that came before it.
type Response struct {
	Status        int
	Header        http.Header
	Message       Message
	Notifications []Message
}

// Answer answers a server-to-client request with a result (raw JSON); ""
// answers it with a JSON-RPC error instead.
type Answer func(req Message) string

// Conn is one client of one era over one transport.
type Conn struct {
	// Name names the era and transport, for subtests.
	Name string
	// Modern is true for 2026-07-28.
	Modern bool

	send func(t *testing.T, method string, params map[string]any, answer Answer) Response
	del  func(t *testing.T) int
}

// Delete ends a legacy HTTP session (DELETE) and returns the HTTP status.
func (c *Conn) Delete(t *testing.T) int {
	t.Helper()
	if c.del == nil {
		t.Fatalf("%s has no session to delete", c.Name)
	}
	return c.del(t)
}

// Send sends one request and returns its response, answering the server's
// requests on the way with answer (nil: with an error).
func (c *Conn) Send(t *testing.T, method string, params map[string]any, answer Answer) Response {
	t.Helper()
	return c.send(t, method, params, answer)
}

// Call is Send for a request that asks the client nothing.
func (c *Conn) Call(t *testing.T, method string, params map[string]any) Message {
	t.Helper()
	return c.send(t, method, params, nil).Message
}

// RequestLine encodes one request, with meta's members added to
// params._meta when meta is not nil.
func RequestLine(id any, method string, params, meta map[string]any) []byte {
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	if meta != nil {
		merged := map[string]any{}
		if own, ok := p["_meta"].(map[string]any); ok {
			for k, v := range own {
				merged[k] = v
			}
		}
		for k, v := range meta {
			merged[k] = v
		}
		p["_meta"] = merged
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": p})
	if err != nil {
		panic(err)
	}
	return b
}

// ModernMeta is the _meta of a 2026-07-28 request declaring caps.
func ModernMeta(caps any) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    runtime.Version20260728,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "wiretest", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
}

// NameParams are the members of params that a 2026-07-28 request's
// Mcp-Name header repeats, by method; ModernHTTP sends the header for
// these (and for any method whose params have a taskId).
var NameParams = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

func nameOf(method string, params map[string]any) (string, bool) {
	key, ok := NameParams[method]
	if !ok {
		key = "taskId"
	}
	v, ok := params[key].(string)
	return v, ok
}

// Options are the settings of a Conn.
type Options struct {
	// Token is sent as a bearer token (HTTP only).
	Token string
	// Headers are sent with every HTTP request.
	Headers http.Header
}

func (o Options) apply(r *http.Request) {
	if o.Token != "" {
		r.Header.Set("Authorization", "Bearer "+o.Token)
	}
	for k, vs := range o.Headers {
		r.Header[k] = vs
	}
}

// LegacyHTTP opens a session of version with capabilities caps (a JSON
// object) at url.
func LegacyHTTP(t *testing.T, url, version, caps string, o Options) *Conn {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	var session string
	post := func(body []byte) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", version)
		}
		o.apply(req)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post(RequestLine(0, "initialize", map[string]any{"protocolVersion": version, "capabilities": json.RawMessage(caps),
		"clientInfo": map[string]any{"name": "wiretest", "version": "1"}}, nil))
	init := readBody(t, resp, nil)
	if resp.StatusCode != http.StatusOK || init.Message.Error != nil {
		t.Fatalf("initialize: HTTP %d %+v", resp.StatusCode, init.Message.Error)
	}
	session = resp.Header.Get("Mcp-Session-Id")
	r := post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	r.Body.Close()
	id := 0
	c := &Conn{Name: version + " HTTP"}
	c.del = func(t *testing.T) int {
		req, _ := http.NewRequest(http.MethodDelete, url, nil)
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", version)
		o.apply(req)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	c.send = func(t *testing.T, method string, params map[string]any, answer Answer) Response {
		t.Helper()
		id++
		resp := post(RequestLine(id, method, params, nil))
		return readBody(t, resp, func(m Message) {
			r := post(reply(m, answer))
			r.Body.Close()
		})
	}
	return c
}

// reply is the client's answer to the server's request m.
func reply(m Message, answer Answer) []byte {
	res := ""
	if answer != nil {
		res = answer(m)
	}
	if res == "" {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"the test does not answer %s"}}`, m.ID, m.Method))
	}
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, res))
}

// ModernHTTP speaks 2026-07-28 to url, declaring caps in every request.
func ModernHTTP(t *testing.T, url string, caps any, o Options) *Conn {
	t.Helper()
	tr := &http.Transport{}
	hc := &http.Client{Transport: tr}
	t.Cleanup(tr.CloseIdleConnections)
	id := 0
	c := &Conn{Name: runtime.Version20260728 + " HTTP", Modern: true}
	c.send = func(t *testing.T, method string, params map[string]any, _ Answer) Response {
		t.Helper()
		id++
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(RequestLine(id, method, params, ModernMeta(caps))))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", runtime.Version20260728)
		req.Header.Set("Mcp-Method", method)
		if name, ok := nameOf(method, params); ok {
			req.Header.Set("Mcp-Name", name)
		}
		o.apply(req)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return readBody(t, resp, func(m Message) { t.Errorf("2026-07-28: the server sent a request on a response stream: %s", m.Method) })
	}
	return c
}

// readBody reads one POST's response, JSON or SSE, calling request for
// every server-to-client request on the way.
func readBody(t *testing.T, resp *http.Response, request func(Message)) Response {
	t.Helper()
	defer resp.Body.Close()
	out := Response{Status: resp.StatusCode, Header: resp.Header}
	ct := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "text/event-stream") {
		raw, _ := io.ReadAll(resp.Body)
		if len(bytes.TrimSpace(raw)) > 0 {
			if err := json.Unmarshal(raw, &out.Message); err != nil {
				t.Fatalf("HTTP %d, body %q: %v", resp.StatusCode, raw, err)
			}
		}
		return out
	}
	r := NewSSE(resp.Body)
	for {
		m, ok := r.Next()
		if !ok {
			t.Fatalf("the event stream ended before the response (HTTP %d)", resp.StatusCode)
		}
		switch {
		case m.IsRequest():
			if request != nil {
				request(m)
			}
		case m.Method != "":
			out.Notifications = append(out.Notifications, m)
		default:
			out.Message = m
			return out
		}
	}
}

// SSE reads the messages of an event stream one at a time.
type SSE struct {
	br *bufio.Reader
}

// NewSSE reads body.
func NewSSE(body io.Reader) *SSE { return &SSE{br: bufio.NewReader(body)} }

// Next returns the next event's message (events without data, such as a
// priming event, are skipped), or false at the end of the stream.
func (s *SSE) Next() (Message, bool) {
	var data []string
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			return Message{}, false
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if len(data) > 0 {
				var m Message
				if json.Unmarshal([]byte(strings.Join(data, "\n")), &m) == nil {
					return m, true
				}
			}
			data = nil
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

// Stdio serves a connection of s over pipes, as a client started it as a
// subprocess: a legacy session of version (initialized with caps), or,
// with version 2026-07-28, stateless requests declaring caps. The
// connection ends with the test.
func Stdio(t *testing.T, s *runtime.Server, version string, caps any) *Conn {
	t.Helper()
	p := StartStdio(t, s)
	modern := version == runtime.Version20260728
	var meta map[string]any
	if modern {
		meta = ModernMeta(caps)
	} else {
		capsJSON, _ := json.Marshal(caps)
		p.Write(RequestLine(0, "initialize", map[string]any{"protocolVersion": version, "capabilities": json.RawMessage(capsJSON),
			"clientInfo": map[string]any{"name": "wiretest", "version": "1"}}, nil))
		if m := p.Read(t); m.Error != nil {
			t.Fatalf("initialize over stdio: %+v", m.Error)
		}
		p.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	}
	id := 0
	c := &Conn{Name: version + " stdio", Modern: modern}
	c.send = func(t *testing.T, method string, params map[string]any, answer Answer) Response {
		t.Helper()
		id++
		p.Write(RequestLine(id, method, params, meta))
		var out Response
		for {
			m := p.Read(t)
			switch {
			case m.IsRequest():
				p.Write(reply(m, answer))
			case m.Method != "":
				out.Notifications = append(out.Notifications, m)
			default:
				out.Message = m
				return out
			}
		}
	}
	return c
}

// Pipe is a stdio connection to a Server: what the client writes, and
// each line the server writes.
type Pipe struct {
	in    *io.PipeWriter
	lines chan []byte
	mu    sync.Mutex
}

// StartStdio runs s.ServeStdio on pipes until the test ends (EOF).
func StartStdio(t *testing.T, s *runtime.Server) *Pipe {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &Pipe{in: inW, lines: make(chan []byte, 256)}
	done := make(chan error, 1)
	go func() {
		err := s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		done <- err
	}()
	go func() {
		defer close(p.lines)
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return after EOF")
		}
	})
	return p
}

// Write writes one line.
func (p *Pipe) Write(line []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.in.Write(append(line, '\n'))
}

// Read returns the server's next message, failing the test after 10s.
func (p *Pipe) Read(t *testing.T) Message {
	t.Helper()
	m, ok := p.Next(10 * time.Second)
	if !ok {
		t.Fatal("no message from the server within 10s")
	}
	return m
}

// Next returns the server's next message, or false when none came within
// wait (or the connection ended).
func (p *Pipe) Next(wait time.Duration) (Message, bool) {
	select {
	case line, ok := <-p.lines:
		if !ok {
			return Message{}, false
		}
		var m Message
		if err := json.Unmarshal(line, &m); err != nil {
			return Message{Method: "wiretest/unreadable", Params: json.RawMessage(fmt.Sprintf("%q", line))}, true
		}
		return m, true
	case <-time.After(wait):
		return Message{}, false
	}
}

// Result decodes m's result into dst, failing the test on an error
// response.
func Result(t *testing.T, m Message, dst any) {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d: %s", m.Error.Code, m.Error.Message)
	}
	if err := json.Unmarshal(m.Result, dst); err != nil {
		t.Fatalf("result %s: %v", m.Result, err)
	}
}

// Text is the first text block of a tools/call result ("ERROR: " before it
// for a tool error).
func Text(t *testing.T, m Message) string {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	Result(t, m, &r)
	if len(r.Content) == 0 {
		t.Fatalf("result without content: %s", m.Result)
	}
	if r.IsError {
		return "ERROR: " + r.Content[0].Text
	}
	return r.Content[0].Text
}

// Serve serves h on a loopback port (never the wildcard address that
// httptest would pick) until the test ends, and returns its URL.
func Serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	return ts.URL
}
