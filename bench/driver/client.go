// Package driver is an MCP client over Streamable HTTP written for load: it
// keeps connections alive, builds request bodies without reflection and reads
// JSON and SSE responses. It speaks just enough of both eras (a legacy
// session, stateless 2026-07-28 requests) to drive the benchmark's two tools.
package driver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Protocol versions the driver speaks.
const (
	LegacyVersion = "2025-11-25"
	ModernVersion = "2026-07-28"
)

// Client talks to one MCP endpoint over keep-alive connections.
type Client struct {
	URL  string
	HTTP *http.Client
}

// NewClient returns a client for url with room for conns idle keep-alive
// connections.
func NewClient(url string, conns int) *Client {
	tr := &http.Transport{
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
	return &Client{URL: url, HTTP: &http.Client{Transport: tr}}
}

// Close drops the idle connections.
func (c *Client) Close() { c.HTTP.CloseIdleConnections() }

// Message is any JSON-RPC message the server may send.
type Message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// toolResult is the part of a CallToolResult the driver checks.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	ResultType        string          `json:"resultType"`
}

// Session is one legacy (2025-11-25) session.
type Session struct {
	c      *Client
	ID     string
	nextID int64
	body   []byte    // reused request body buffer
	slow   *slowConn // W5's hand-written connection, when this is a slow client
}

// header sets what every request of the legacy era carries.
func (s *Session) header(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if s.ID != "" {
		h.Set("Mcp-Session-Id", s.ID)
	}
	h.Set("Mcp-Protocol-Version", LegacyVersion)
}

// Initialize opens a legacy session: initialize, then notifications/initialized.
// elicit declares the form elicitation capability.
func (c *Client) Initialize(ctx context.Context, elicit bool) (*Session, error) {
	caps := `{}`
	if elicit {
		caps = `{"elicitation":{"form":{}}}`
	}
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + LegacyVersion +
		`","capabilities":` + caps + `,"clientInfo":{"name":"mcpgen-bench","version":"0.1.0"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	s := &Session{c: c, ID: resp.Header.Get("Mcp-Session-Id"), nextID: 1}
	if _, err := ReadResponse(resp, []byte("0"), nil); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := s.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return s, nil
}

// post sends a notification or a response and expects 202 (or 200) with
// nothing to read.
func (s *Session) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.c.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	s.header(req.Header)
	resp, err := s.c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

// appendAddCall appends a tools/call add request with arguments {a, b:2}.
func appendAddCall(b []byte, id int64, a int64, meta string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":"add","arguments":{"a":`...)
	b = strconv.AppendInt(b, a, 10)
	b = append(b, `,"b":2}`...)
	b = append(b, meta...)
	return append(b, `}}`...)
}

// modernMeta is the per-request _meta every 2026-07-28 request carries.
const modernMeta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"` + ModernVersion +
	`","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpgen-bench","version":"0.1.0"}}`

// CallAdd calls add(a, 2) in the session and checks the sum.
func (s *Session) CallAdd(ctx context.Context, a int64) error {
	id := s.nextID
	s.nextID++
	s.body = appendAddCall(s.body[:0], id, a, "")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.c.URL, bytes.NewReader(s.body))
	if err != nil {
		return err
	}
	s.header(req.Header)
	resp, err := s.c.HTTP.Do(req)
	if err != nil {
		return err
	}
	res, err := ReadResponse(resp, strconv.AppendInt(nil, id, 10), nil)
	if err != nil {
		return err
	}
	return checkSum(res, a+2)
}

// Stateless sends 2026-07-28 requests: no session, _meta on every request.
type Stateless struct {
	c      *Client
	nextID int64
	body   []byte
}

// Stateless returns a 2026-07-28 requester.
func (c *Client) Stateless() *Stateless { return &Stateless{c: c, nextID: 1} }

// CallAdd calls add(a, 2) statelessly and checks the sum.
func (m *Stateless) CallAdd(ctx context.Context, a int64) error {
	id := m.nextID
	m.nextID++
	m.body = appendAddCall(m.body[:0], id, a, modernMeta)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.c.URL, bytes.NewReader(m.body))
	if err != nil {
		return err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", ModernVersion)
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", "add")
	resp, err := m.c.HTTP.Do(req)
	if err != nil {
		return err
	}
	res, err := ReadResponse(resp, strconv.AppendInt(nil, id, 10), nil)
	if err != nil {
		return err
	}
	var tr toolResult
	if err := json.Unmarshal(res, &tr); err != nil {
		return fmt.Errorf("decoding the result: %w", err)
	}
	if tr.ResultType != "" && tr.ResultType != "complete" {
		return fmt.Errorf("resultType %q, want complete", tr.ResultType)
	}
	return checkSum(res, a+2)
}

// checkSum checks that a tools/call result of add carries sum want.
func checkSum(res json.RawMessage, want int64) error {
	var tr toolResult
	if err := json.Unmarshal(res, &tr); err != nil {
		return fmt.Errorf("decoding the result: %w", err)
	}
	if tr.IsError {
		return fmt.Errorf("tool error: %s", firstText(tr))
	}
	var out struct {
		Sum *float64 `json:"sum"`
	}
	if err := json.Unmarshal(tr.StructuredContent, &out); err != nil || out.Sum == nil {
		return fmt.Errorf("structuredContent %s has no sum", tr.StructuredContent)
	}
	if *out.Sum != float64(want) {
		return fmt.Errorf("sum %v, want %d", *out.Sum, want)
	}
	return nil
}

func firstText(tr toolResult) string {
	if len(tr.Content) == 0 {
		return ""
	}
	return tr.Content[0].Text
}

// Confirm calls confirm, answers its elicitation/create (read off the call's
// own SSE stream) with a second POST accepting {"confirm": true}, and checks
// the result the first stream then carries. It is the POST-only client: no
// GET stream is ever opened.
func (s *Session) Confirm(ctx context.Context) error {
	id := s.nextID
	s.nextID++
	body := []byte(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) +
		`,"method":"tools/call","params":{"name":"confirm","arguments":{"item":"bench"}}}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.c.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	s.header(req.Header)
	resp, err := s.c.HTTP.Do(req)
	if err != nil {
		return err
	}
	asked := 0
	res, err := ReadResponse(resp, strconv.AppendInt(nil, id, 10), func(m *Message) error {
		if m.Method != "elicitation/create" {
			return fmt.Errorf("unexpected server request %s", m.Method)
		}
		asked++
		answer := make([]byte, 0, 96)
		answer = append(answer, `{"jsonrpc":"2.0","id":`...)
		answer = append(answer, m.ID...)
		answer = append(answer, `,"result":{"action":"accept","content":{"confirm":true}}}`...)
		return s.post(ctx, answer)
	})
	if err != nil {
		return err
	}
	if asked != 1 {
		return fmt.Errorf("%d elicitation/create requests on the call's stream, want 1", asked)
	}
	var tr toolResult
	if err := json.Unmarshal(res, &tr); err != nil {
		return fmt.Errorf("decoding the result: %w", err)
	}
	if tr.IsError || firstText(tr) != "confirmed" {
		return fmt.Errorf("result %s, want the text confirmed", res)
	}
	return nil
}

var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// ReadResponse reads the answer to request id from a JSON or SSE response,
// handing server-to-client requests met on the way to onRequest, and returns
// the result. It consumes and closes the body so the connection is reused.
func ReadResponse(resp *http.Response, id []byte, onRequest func(*Message) error) (json.RawMessage, error) {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(b))
	}
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/json") {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		var m Message
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("decoding the response: %w", err)
		}
		return resultOf(&m, id)
	}
	if !strings.HasPrefix(ct, "text/event-stream") {
		return nil, fmt.Errorf("unexpected Content-Type %q", ct)
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(resp.Body)
	defer func() { br.Reset(nil); readers.Put(br) }()
	var data []byte
	for {
		line, err := br.ReadSlice('\n')
		if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
			if errors.Is(err, io.EOF) {
				return nil, errors.New("SSE stream ended before the response")
			}
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0: // end of event
			if len(data) == 0 {
				continue // priming event or keep-alive
			}
			var m Message
			if err := json.Unmarshal(data, &m); err != nil {
				return nil, fmt.Errorf("decoding an SSE event: %w", err)
			}
			data = data[:0]
			switch {
			case m.Method != "" && len(m.ID) > 0: // a server-to-client request
				if onRequest == nil {
					return nil, fmt.Errorf("unexpected server request %s", m.Method)
				}
				if err := onRequest(&m); err != nil {
					return nil, err
				}
			case m.Method != "": // a notification
			default:
				res, err := resultOf(&m, id)
				if err != nil {
					return nil, err
				}
				// The stream ends after the response; read to its end so the
				// connection goes back to the pool.
				_, _ = io.Copy(io.Discard, io.LimitReader(br, 1<<16))
				return res, nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[5:], []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, d...)
		}
	}
}

func resultOf(m *Message, id []byte) (json.RawMessage, error) {
	if !bytes.Equal(m.ID, id) {
		return nil, fmt.Errorf("response for id %s, want %s", m.ID, id)
	}
	if m.Error != nil {
		return nil, m.Error
	}
	if m.Result == nil {
		return nil, errors.New("response without a result")
	}
	return m.Result, nil
}

// AddCallBody returns a tools/call add(a, 2) request with the given id; modern
// adds the 2026-07-28 per-request _meta.
func AddCallBody(id, a int64, modern bool) []byte {
	meta := ""
	if modern {
		meta = modernMeta
	}
	return appendAddCall(nil, id, a, meta)
}

// CheckSum checks that a tools/call result of add carries sum want.
func CheckSum(res json.RawMessage, want int64) error { return checkSum(res, want) }

// GETStream is a session's standalone GET stream, open.
type GETStream struct {
	resp *http.Response
	br   *bufio.Reader
}

// OpenGET opens the session's GET stream and reads it up to its priming
// event (2025-11-25).
func (s *Session) OpenGET(ctx context.Context) (*GETStream, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.c.URL, nil)
	if err != nil {
		return nil, err
	}
	s.header(req.Header)
	req.Header.Del("Content-Type")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := s.c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET: HTTP %d", resp.StatusCode)
	}
	g := &GETStream{resp: resp, br: bufio.NewReader(resp.Body)}
	primed := false
	for !primed {
		line, err := g.br.ReadString('\n')
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("GET stream before its priming event: %w", err)
		}
		primed = strings.HasPrefix(line, "id:")
	}
	return g, nil
}

// NextRequest reads the stream up to the next server-to-client request (a
// keep-alive ping, an elicitation) and returns it.
func (g *GETStream) NextRequest() (*Message, error) {
	var data []byte
	for {
		line, err := g.br.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && len(data) > 0:
			var m Message
			if err := json.Unmarshal(data, &m); err != nil {
				return nil, fmt.Errorf("decoding an SSE event: %w", err)
			}
			data = data[:0]
			if m.Method != "" && len(m.ID) > 0 {
				return &m, nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			data = append(data, bytes.TrimPrefix(line[5:], []byte(" "))...)
		}
	}
}

// Close closes the stream's connection.
func (g *GETStream) Close() { g.resp.Body.Close() }

// AnswerEmpty answers the server's request id with an empty result (what
// a keep-alive ping wants).
func (s *Session) AnswerEmpty(ctx context.Context, id json.RawMessage) error {
	return s.post(ctx, []byte(`{"jsonrpc":"2.0","id":`+string(id)+`,"result":{}}`))
}

// Delete ends the session (HTTP DELETE).
func (s *Session) Delete(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.c.URL, nil)
	if err != nil {
		return err
	}
	s.header(req.Header)
	resp, err := s.c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("DELETE: HTTP %d", resp.StatusCode)
	}
	return nil
}
