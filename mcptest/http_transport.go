package mcptest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// httpTransport speaks Streamable HTTP, in either era: a session's
// requests carry Mcp-Session-Id and get their questions on their own event
// stream, answered with a second POST; 2026-07-28 requests carry the
// standard headers and get only notifications before their response.
type httpTransport struct {
	client *http.Client
	url    string
	era    Era
	header http.Header
	d      dispatcher
	inProc *inProcessTransport // nil for a URL

	mu        sync.Mutex
	sessionID string
	streams   sync.WaitGroup // the GET stream's reader
	stopGET   context.CancelFunc
}

func newHTTPTransport(client *http.Client, url string, cfg *config, era Era, d dispatcher, inProc *inProcessTransport) *httpTransport {
	return &httpTransport{client: client, url: url, era: era, header: cfg.header, d: d, inProc: inProc}
}

// newRequest builds a request with the headers of the era.
func (h *httpTransport) newRequest(ctx context.Context, method string, body []byte, x *exchange) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.url, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range h.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.era.stateless() {
		req.Header.Set("MCP-Protocol-Version", string(h.era))
		if x != nil {
			req.Header.Set("Mcp-Method", x.method)
			if x.hasName {
				req.Header.Set("Mcp-Name", encodeHeaderValue(x.name))
			}
			for k, vs := range x.header {
				for _, v := range vs {
					req.Header.Add(k, v) // canonical names, as the server looks them up
				}
			}
		}
		return req, nil
	}
	h.mu.Lock()
	sid := h.sessionID
	h.mu.Unlock()
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		if h.era.versionHeader() {
			req.Header.Set("MCP-Protocol-Version", string(h.era))
		}
	}
	return req, nil
}

func (h *httpTransport) post(ctx context.Context, m *message, x *exchange) (*http.Response, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	req, err := h.newRequest(ctx, http.MethodPost, body, x)
	if err != nil {
		return nil, err
	}
	return h.client.Do(req)
}

func (h *httpTransport) call(ctx context.Context, m *message, x *exchange) (*message, error) {
	resp, err := h.post(ctx, m, x)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if m.Method == "initialize" {
		h.mu.Lock()
		h.sessionID = resp.Header.Get("Mcp-Session-Id")
		h.mu.Unlock()
	}
	res, err := h.readResponse(ctx, resp, m.ID, x)
	if err != nil && ctx.Err() != nil && !h.era.stateless() {
		// Disconnecting is not cancelling in a session: say so.
		h.cancelled(m.ID)
	}
	return res, err
}

// readResponse reads messages off a POST's response until the one that
// answers id: a JSON body holds it alone, an event stream may carry
// notifications and (in a session) questions first.
func (h *httpTransport) readResponse(ctx context.Context, resp *http.Response, id json.RawMessage, x *exchange) (*message, error) {
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		events := newSSEReader(resp.Body)
		for {
			m, err := events.next()
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("the server ended the event stream without answering request %s", id)
			}
			if err != nil {
				return nil, fmt.Errorf("reading the event stream: %w", err)
			}
			switch {
			case m.isResponse() && bytes.Equal(m.ID, id):
				return m, nil
			case m.isRequest():
				if h.era.stateless() {
					return nil, fmt.Errorf("the server sent request %s on a %s response stream, which may carry only notifications", m.Method, h.era)
				}
				if err := h.answer(ctx, h.d.incoming(ctx, m, x)); err != nil {
					return nil, err
				}
			case m.isNotification():
				h.d.incoming(ctx, m, x)
			default:
				return nil, fmt.Errorf("the response stream of request %s carried a response to request %s", id, m.ID)
			}
		}
	case strings.HasPrefix(ct, "application/json"):
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxMessageBytes+1))
		if err != nil {
			return nil, fmt.Errorf("reading the response: %w", err)
		}
		m, err := decodeMessage(body)
		switch {
		case !succeeded(resp):
			e := &HTTPError{StatusCode: resp.StatusCode, Header: resp.Header}
			if err == nil && m.Error != nil {
				e.RPC = m.Error
			} else {
				e.Body = fmt.Sprintf("%.200s", bytes.TrimSpace(body))
			}
			return nil, e
		case err != nil:
			return nil, fmt.Errorf("HTTP %s: %w", resp.Status, err)
		case m.Error != nil || m.isResponse():
			return m, nil
		}
		return nil, fmt.Errorf("HTTP %s: the body is not a response: %.200s", resp.Status, body)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	if !succeeded(resp) {
		return nil, &HTTPError{StatusCode: resp.StatusCode, Header: resp.Header, Body: string(bytes.TrimSpace(body))}
	}
	return nil, fmt.Errorf("HTTP %s (Content-Type %q) answering request %s: %s", resp.Status, ct, id, bytes.TrimSpace(body))
}

// succeeded reports whether resp has a 2xx status.
func succeeded(resp *http.Response) bool { return resp.StatusCode >= 200 && resp.StatusCode < 300 }

// answer POSTs the client's response to a question of the server; the
// server accepts it with 202.
func (h *httpTransport) answer(ctx context.Context, m *message) error {
	resp, err := h.post(ctx, m, nil)
	if err != nil {
		return fmt.Errorf("answering the server's request %s: %w", m.ID, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return fmt.Errorf("answering the server's request %s: HTTP %s: %s", m.ID, resp.Status, bytes.TrimSpace(body))
	}
	return nil
}

func (h *httpTransport) notify(ctx context.Context, m *message) error {
	resp, err := h.post(ctx, m, &exchange{method: m.Method})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return fmt.Errorf("%s: HTTP %s: %s", m.Method, resp.Status, bytes.TrimSpace(body))
	}
	return nil
}

// cancelled tells a session's server that the client stopped waiting for
// request id (notifications/cancelled), bounded by its own timeout.
func (h *httpTransport) cancelled(id json.RawMessage) {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	params, _ := json.Marshal(map[string]any{"requestId": id, "reason": "the test's context ended"})
	_ = h.notify(ctx, &message{JSONRPC: "2.0", Method: "notifications/cancelled", Params: params})
}

// openStandalone opens the session's GET stream and returns once the server
// answered it (from then on, notifications no request caused reach it); a
// reader goroutine dispatches its messages until close.
func (h *httpTransport) openStandalone(ctx context.Context) error {
	if h.era.stateless() {
		return errors.New("2026-07-28 has no GET stream")
	}
	h.mu.Lock()
	if h.stopGET != nil {
		h.mu.Unlock()
		return nil
	}
	streamCtx, stop := context.WithCancel(context.Background())
	h.stopGET = stop
	h.mu.Unlock()
	req, err := h.newRequest(streamCtx, http.MethodGet, nil, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	type opened struct {
		resp *http.Response
		err  error
	}
	done := make(chan opened, 1)
	go func() {
		resp, err := h.client.Do(req)
		done <- opened{resp, err}
	}()
	var o opened
	select {
	case o = <-done:
	case <-ctx.Done():
		stop()
		if o := <-done; o.resp != nil {
			o.resp.Body.Close()
		}
		return fmt.Errorf("opening the GET stream: %w", ctx.Err())
	}
	if o.err != nil {
		return fmt.Errorf("opening the GET stream: %w", o.err)
	}
	if o.resp.StatusCode != http.StatusOK {
		defer o.resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(o.resp.Body, 1<<10))
		return fmt.Errorf("opening the GET stream: HTTP %s: %s", o.resp.Status, bytes.TrimSpace(body))
	}
	h.streams.Add(1)
	go func() {
		defer h.streams.Done()
		defer o.resp.Body.Close()
		events := newSSEReader(o.resp.Body)
		for {
			m, err := events.next()
			if err != nil {
				return // closed by the client, or the session ended
			}
			switch {
			case m.isRequest():
				_ = h.answer(streamCtx, h.d.incoming(streamCtx, m, nil))
			case m.isNotification():
				h.d.incoming(streamCtx, m, nil)
			}
		}
	}()
	return nil
}

func (h *httpTransport) close(ctx context.Context) error {
	h.mu.Lock()
	stop, sid := h.stopGET, h.sessionID
	h.mu.Unlock()
	if stop != nil {
		stop()
	}
	var errs []error
	if sid != "" {
		if req, err := h.newRequest(ctx, http.MethodDelete, nil, nil); err == nil {
			if resp, err := h.client.Do(req); err != nil {
				errs = append(errs, fmt.Errorf("ending the session: %w", err))
			} else {
				resp.Body.Close()
			}
		}
	}
	h.streams.Wait()
	if h.inProc != nil {
		errs = append(errs, h.inProc.wait(ctx))
	}
	h.client.CloseIdleConnections()
	return errors.Join(errs...)
}

// encodeHeaderValue writes a 2026-07-28 header value: as it is when it is
// plain visible ASCII, otherwise (non-ASCII, control characters, leading or
// trailing blanks, or text that looks like the encoded form) as
// =?base64?...?=, which the server decodes.
func encodeHeaderValue(v string) string {
	plain := v == strings.TrimSpace(v) && !strings.HasPrefix(strings.ToLower(v), "=?base64?")
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] < 0x7f
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}
