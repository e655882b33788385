package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/ext/apps"
)

// The probe: before it serves the host page, preview asks the server what
// it is and which of its tools have pages, so that a wrong URL, a server
// that is not running or one that wants a token fails at once with a hint,
// and the terminal lists what there is to preview.

const (
	// modernVersion is the stateless protocol version (no session).
	modernVersion = "2026-07-28"
	// sessionVersion is the session version the probe and the page ask for.
	sessionVersion = "2025-11-25"
	// probeMaxResponse bounds one response the probe reads.
	probeMaxResponse = 8 << 20
	// probeMaxPages bounds the tools/list pages the probe follows.
	probeMaxPages = 50
)

// serverSummary is what the probe learned.
type serverSummary struct {
	name, version string   // serverInfo, when a session told it
	versions      []string // protocol versions the server offers (server/discover), or the one initialize agreed on
	modern        bool     // it speaks 2026-07-28
	session       bool     // it speaks a session version
	apps          bool     // it declares io.modelcontextprotocol/ui
	tools         int      // every tool it lists
	appTools      []appTool
}

// appTool is a tool that names a page.
type appTool struct {
	name, page string
	appOnly    bool // its visibility leaves "model" out: only the page calls it
}

// era is the protocol era the page starts in: a session when the server
// has one (what most hosts speak today), else 2026-07-28.
func (s *serverSummary) era() string {
	if s.session {
		return "session"
	}
	return "modern"
}

// describe is the summary's line on the terminal.
func (s *serverSummary) describe(url string) string {
	who := "the server"
	if s.name != "" {
		who = strings.TrimSpace(s.name + " " + s.version)
	}
	ext := "declares " + apps.ExtensionID
	if !s.apps {
		ext = "does not declare " + apps.ExtensionID + " (hosts may not render its pages)"
	}
	return fmt.Sprintf("%s at %s (protocol %s; %d tools; %s)", who, url, strings.Join(s.versions, ", "), s.tools, ext)
}

// prober speaks just enough MCP over Streamable HTTP to list the tools.
type prober struct {
	client  *http.Client
	url     string
	headers http.Header // --header values, sent on every request
	sid     string      // the session, once initialize made one
	version string      // the session's protocol version
}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (JSON-RPC error %d)", e.Message, e.Code) }

// httpStatusError is a request the server answered with an HTTP error.
type httpStatusError struct {
	method string
	status int
	body   string
	auth   string // WWW-Authenticate
}

func (e *httpStatusError) Error() string {
	return fmt.Sprintf("%s: HTTP %d %s", e.method, e.status, e.body)
}

// probeServer lists the server's tools: statelessly when it answers
// server/discover with 2026-07-28 among its versions, else in a session
// that it ends afterwards.
func probeServer(ctx context.Context, client *http.Client, url string, headers http.Header) (*serverSummary, error) {
	p := &prober{client: client, url: url, headers: headers}
	s := &serverSummary{}
	var discover struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
		Meta              struct {
			ServerInfo serverInfo `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	res, err := p.request(ctx, "server/discover", map[string]any{}, true)
	var transport *transportError
	switch {
	case errors.As(err, &transport):
		return nil, err
	case err == nil && json.Unmarshal(res, &discover) == nil && slices.Contains(discover.SupportedVersions, modernVersion):
		s.versions, s.modern = discover.SupportedVersions, true
		s.session = slices.ContainsFunc(discover.SupportedVersions, func(v string) bool { return v != modernVersion })
		s.apps = declaresApps(discover.Capabilities)
		s.name, s.version = discover.Meta.ServerInfo.Name, discover.Meta.ServerInfo.Version
	default:
		// An older server: server/discover is not one of its methods (a
		// JSON-RPC error, or an HTTP 400 for the missing session).
		if err := p.initialize(ctx, s); err != nil {
			return nil, err
		}
		defer p.endSession()
	}
	if err := p.listTools(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// declaresApps reports whether capabilities.extensions names MCP Apps.
func declaresApps(caps map[string]json.RawMessage) bool {
	var ext map[string]json.RawMessage
	if json.Unmarshal(caps["extensions"], &ext) != nil {
		return false
	}
	_, ok := ext[apps.ExtensionID]
	return ok
}

func (p *prober) initialize(ctx context.Context, s *serverSummary) error {
	var init struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ServerInfo      serverInfo                 `json:"serverInfo"`
	}
	res, err := p.request(ctx, "initialize", map[string]any{
		"protocolVersion": sessionVersion,
		"capabilities":    clientCapabilities(),
		"clientInfo":      map[string]string{"name": "mcpgen-preview", "version": "1"},
	}, false)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(res, &init); err != nil || init.ProtocolVersion == "" {
		return fmt.Errorf("initialize: the answer is not an initialize result: %.200s", res)
	}
	p.version = init.ProtocolVersion
	s.name, s.version = init.ServerInfo.Name, init.ServerInfo.Version
	s.versions, s.session = []string{init.ProtocolVersion}, true
	s.apps = declaresApps(init.Capabilities)
	return p.notify(ctx, "notifications/initialized")
}

// serverInfo names the server (initialize's serverInfo; in 2026-07-28 the
// _meta of every result).
type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// clientCapabilities are the probe's and the page's: a host that renders
// MCP Apps pages.
func clientCapabilities() map[string]any {
	return map[string]any{"extensions": map[string]any{apps.ExtensionID: map[string]any{"mimeTypes": []string{apps.MIMEType}}}}
}

func (p *prober) listTools(ctx context.Context, s *serverSummary) error {
	cursor := ""
	for range probeMaxPages {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := p.request(ctx, "tools/list", params, s.modern)
		if err != nil {
			return err
		}
		var page struct {
			Tools []struct {
				Name string `json:"name"`
				Meta struct {
					UI struct {
						ResourceURI string   `json:"resourceUri"`
						Visibility  []string `json:"visibility"`
					} `json:"ui"`
					FlatURI string `json:"ui/resourceUri"`
				} `json:"_meta"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return fmt.Errorf("tools/list: the answer is not a list of tools: %v", err)
		}
		for _, t := range page.Tools {
			s.tools++
			uri := t.Meta.UI.ResourceURI
			if uri == "" {
				uri = t.Meta.FlatURI // the deprecated flat key, which some servers still send alone
			}
			if uri == "" {
				continue
			}
			vis := t.Meta.UI.Visibility
			s.appTools = append(s.appTools, appTool{name: t.Name, page: uri, appOnly: len(vis) > 0 && !slices.Contains(vis, "model")})
		}
		if page.NextCursor == "" {
			return nil
		}
		cursor = page.NextCursor
	}
	return fmt.Errorf("tools/list: more than %d pages; listed the first %d tools", probeMaxPages, s.tools)
}

// transportError means nothing answered: no connection, or no HTTP answer.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// request sends one JSON-RPC request and returns its result.
func (p *prober) request(ctx context.Context, method string, params map[string]any, modern bool) (json.RawMessage, error) {
	if modern {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    modernVersion,
			"io.modelcontextprotocol/clientCapabilities": clientCapabilities(),
			"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "mcpgen-preview", "version": "1"},
		}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	resp, err := p.post(ctx, method, body, modern)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && method == "initialize" {
		p.sid = sid
	}
	msg, err := readAnswer(io.LimitReader(resp.Body, probeMaxResponse), resp.Header.Get("Content-Type"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if msg.Error != nil {
		return nil, fmt.Errorf("%s: %w", method, msg.Error)
	}
	return msg.Result, nil
}

func (p *prober) notify(ctx context.Context, method string) error {
	resp, err := p.post(ctx, method, []byte(`{"jsonrpc":"2.0","method":"`+method+`"}`), false)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// post sends one message; an HTTP error status is an httpStatusError.
func (p *prober) post(ctx context.Context, method string, body []byte, modern bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	p.setHeaders(req)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	switch {
	case modern:
		req.Header.Set("MCP-Protocol-Version", modernVersion)
		req.Header.Set("Mcp-Method", method)
	case p.sid != "":
		req.Header.Set("Mcp-Session-Id", p.sid)
		req.Header.Set("MCP-Protocol-Version", p.version)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, &transportError{err}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return nil, &httpStatusError{method: method, status: resp.StatusCode, body: strings.TrimSpace(string(b)), auth: resp.Header.Get("WWW-Authenticate")}
	}
	return resp, nil
}

func (p *prober) setHeaders(req *http.Request) {
	for k, vs := range p.headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}

// endSession deletes the probe's session, so that it does not wait for
// the server's idle timeout. It is best effort: the server may not allow
// DELETE (405), and the session then ends when it idles.
func (p *prober) endSession() {
	if p.sid == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeDeleteTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, p.url, nil)
	if err != nil {
		return
	}
	p.setHeaders(req)
	req.Header.Set("Mcp-Session-Id", p.sid)
	req.Header.Set("MCP-Protocol-Version", p.version)
	if resp, err := p.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// answer is a JSON-RPC response message.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// readAnswer reads the response to the probe's request (id 1) from a JSON
// body or an SSE stream, skipping what else a stream carries.
func readAnswer(r io.Reader, contentType string) (*answer, error) {
	if !strings.HasPrefix(contentType, "text/event-stream") {
		var m answer
		if err := json.NewDecoder(r).Decode(&m); err != nil {
			return nil, fmt.Errorf("the answer is not JSON-RPC (Content-Type %q): %v", contentType, err)
		}
		return &m, nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), probeMaxResponse)
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(v, " "))
			continue
		}
		if line != "" || data.Len() == 0 {
			continue
		}
		var m answer
		if err := json.Unmarshal([]byte(data.String()), &m); err != nil {
			return nil, fmt.Errorf("an event of the stream is not JSON-RPC: %v", err)
		}
		data.Reset()
		if m.Method == "" && string(m.ID) == "1" {
			return &m, nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the event stream: %v", err)
	}
	return nil, errors.New("the event stream ended without the answer")
}

// probeHint turns a failed probe into what to do about it.
func probeHint(url string, err error) error {
	var transport *transportError
	var status *httpStatusError
	switch {
	case errors.As(err, &transport):
		return fmt.Errorf("nothing answers at %s (%v): start the server first, such as go run . -addr 127.0.0.1:8080, and pass its MCP endpoint", url, transport.err)
	case errors.As(err, &status) && status.status == http.StatusUnauthorized:
		return fmt.Errorf("%s wants an access token (HTTP 401; %s): pass one with --header 'Authorization: Bearer TOKEN'", url, orDash(status.auth))
	case errors.As(err, &status) && status.status == http.StatusForbidden:
		return fmt.Errorf("%s refused the request (HTTP 403: %s): a token needs the scopes of the tools, and the server must admit a client on this machine", url, orDash(status.body))
	case errors.As(err, &status) && status.status == http.StatusNotFound:
		return fmt.Errorf("%s is not an MCP endpoint (HTTP 404); an mcpgen server serves it at /mcp, such as http://127.0.0.1:8080/mcp", url)
	}
	return fmt.Errorf("%s does not answer as an MCP server: %w", url, err)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
