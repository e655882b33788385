package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// scopeVerifier accepts tokens "subject;scope+scope+...": whoever the test
// needs, with the scopes it needs.
func scopeVerifier() TokenVerifier {
	return TokenVerifierFunc(func(_ context.Context, tok string) (*Principal, error) {
		sub, scopes, ok := strings.Cut(tok, ";")
		if !ok || sub == "" {
			return nil, fmt.Errorf("%w: not a test token", ErrInvalidToken)
		}
		return &Principal{Issuer: testIssuer, Subject: sub, Scopes: strings.FieldsFunc(scopes, func(r rune) bool { return r == '+' }), Expiry: time.Now().Add(time.Hour)}, nil
	})
}

// scopedOptions are Options with Auth on scopeVerifier's tokens.
func scopedOptions(o Options) Options {
	o.Auth = &Auth{Resource: "http://127.0.0.1:1/mcp", AuthorizationServers: []string{testIssuer}, Verifier: scopeVerifier()}
	return o
}

// eraClient is one client of one era over HTTP, as one principal: do sends a
// request and returns the HTTP status and the JSON-RPC response.
type eraClient struct {
	name   string
	modern bool
	do     func(t *testing.T, method string, params map[string]any) (int, rpc)
	legacy *client // the session's client, for GET and DELETE; nil in 2026-07-28
}

// eraClients are a 2025-11-25 session and a 2026-07-28 client of the
// server at url, both with token (none when ""), both declaring
// elicitation and the tasks extension.
func eraClients(t *testing.T, ts *httptest.Server, s *Server, token string) []eraClient {
	t.Helper()
	return eraClientsVia(t, ts, token, "")
}

// eraClientsVia are eraClients whose requests say, in X-Forwarded-For, that
// a proxy forwards them for client address forwardedFor (none when "").
func eraClientsVia(t *testing.T, ts *httptest.Server, token, forwardedFor string) []eraClient {
	t.Helper()
	auth := func(r *http.Request) {
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		if forwardedFor != "" {
			r.Header.Set("X-Forwarded-For", forwardedFor)
		}
	}
	legacy := newClient(t, ts)
	resp := legacy.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`, auth)
	if resp.StatusCode != 200 {
		t.Fatalf("initialize as %q: %d", token, resp.StatusCode)
	}
	legacy.session, legacy.version = resp.Header.Get("Mcp-Session-Id"), Version20251125
	id := 0
	modern := &modernClient{t: t, url: ts.URL, hc: legacy.hc, caps: tasksCaps}
	return []eraClient{
		{"2025-11-25", false, func(t *testing.T, method string, params map[string]any) (int, rpc) {
			t.Helper()
			id++
			resp := legacy.post(requestLine(t, id, method, params, nil), auth)
			if resp.StatusCode != 200 {
				return resp.StatusCode, rpc{}
			}
			return resp.StatusCode, jsonBody(t, resp)
		}, legacy},
		{"2026-07-28", true, func(t *testing.T, method string, params map[string]any) (int, rpc) {
			t.Helper()
			opts := []reqOpt{}
			if token != "" {
				opts = append(opts, withHeader("Authorization", "Bearer "+token))
			}
			if forwardedFor != "" {
				opts = append(opts, withHeader("X-Forwarded-For", forwardedFor))
			}
			if tid, ok := params["taskId"].(string); ok {
				opts = append(opts, withHeader(headerName, tid))
			}
			r := modern.call(method, params, opts...)
			if len(r.msgs) == 0 {
				return r.status, rpc{}
			}
			b, _ := json.Marshal(r.final(t))
			var m rpc
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			return r.status, m
		}, nil},
	}
}

// authedServer starts s on a loopback server.
func authedServer(t *testing.T, s *Server) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(func() { _ = s.Close(); ts.CloseClientConnections(); ts.Close() })
	return ts
}

// taskParams are tools/call params that make a call a task in either era.
func taskParams(c eraClient, tool string) map[string]any {
	p := map[string]any{"name": tool, "arguments": map[string]any{}}
	if !c.modern {
		p["task"] = map[string]any{"ttl": 60000}
	}
	return p
}

// taskIDOf reads the task a tools/call created.
func taskIDOf(t *testing.T, m rpc) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("creating a task: %d %s", m.Error.Code, m.Error.Message)
	}
	var r struct {
		TaskID string `json:"taskId"`
		Task   *struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	_ = json.Unmarshal(m.Result, &r)
	if r.Task != nil {
		return r.Task.TaskID
	}
	if r.TaskID == "" {
		t.Fatalf("not a created task: %s", m.Result)
	}
	return r.TaskID
}
