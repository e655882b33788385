package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/ext/events"
	"github.com/mcpgen/mcpgen/ext/events/eventstest"
)

// testWebhooks: the --auth scaffold's note_added event reaches a signed
// webhook. The built binary runs with -allow-loopback-webhooks and the
// development issuer's tokens; in a 2025-11-25 session and as a 2026-07-28
// client, events/subscribe registers a loopback receiver with a whsec_
// secret (the server first verifies it: the receiver echoes the challenge),
// add_note is called, and the receiver gets the matching notes as
// deliveries whose Standard Webhooks signatures verify under that secret
// (events.VerifySignature), tagged with the subscription's id; the others
// are filtered out by the subscription's prefix. Unsubscribing is answered.
// Without the flag, the same subscribe is refused: loopback callbacks are
// not accepted by default.
func testWebhooks(t *testing.T, dir, bin string) {
	issuerAddr := freeAddr(t)
	startProcess(t, dir, "go tool mcpgen-dev-issuer -quiet -addr "+issuerAddr)
	issuer := "http://" + issuerAddr
	waitHTTP(t, issuer+"/.well-known/oauth-authorization-server", time.Minute)
	url := startHTTPServer(t, bin, "-issuer", issuer, "-allow-loopback-webhooks")
	tok := devToken(t, issuer, "notes:read notes:write", url)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	legacy := &mcpHTTP{t: t, client: client, url: url, token: tok}
	resp := legacy.post(ctx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	legacy.sid = resp.Header.Get("Mcp-Session-Id")
	newMessages(t, resp).untilID(t, "1")
	resp.Body.Close()
	resp = legacy.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	calls := map[string]func(id int, method, params string) *rpcMessage{
		"2025-11-25": func(id int, method, params string) *rpcMessage {
			resp := legacy.post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
			defer resp.Body.Close()
			return newMessages(t, resp).untilID(t, fmt.Sprint(id))
		},
		"2026-07-28": func(id int, method, params string) *rpcMessage {
			return statelessCall(ctx, t, client, url, tok, id, method, params)
		},
	}

	type note struct {
		ID    int    `json:"id"`
		Title string `json:"title"`
	}
	for i, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			call := calls[era]
			rc := eventstest.NewReceiver(t)
			prefix := "hook " + era
			sub := fmt.Sprintf(`{"name":"note_added","arguments":{"prefix":%q},"delivery":{"mode":"webhook","url":%q,"secret":%q}}`, prefix, rc.URL, rc.Secret)
			m := call(100*i+1, "events/subscribe", sub)
			if m.Error != nil {
				t.Fatalf("events/subscribe: %s", m.Error)
			}
			var res events.SubscribeResult
			if err := json.Unmarshal(m.Result, &res); err != nil || res.ID == "" || res.RefreshBefore == nil {
				t.Fatalf("events/subscribe result %s (%v)", m.Result, err)
			}
			if n := rc.Verifications(); n != 1 {
				t.Errorf("the callback was verified %d times before the subscription was granted, want 1", n)
			}

			titles := []string{prefix + " one", "other " + era, prefix + " two"}
			for j, title := range titles {
				m := call(100*i+10+j, "tools/call", fmt.Sprintf(`{"name":"add_note","arguments":{"title":%q,"body":"..."}}`, title))
				if m.Error != nil {
					t.Fatalf("add_note %q: %s", title, m.Error)
				}
				if r := decodeResult(t, m); r.IsError {
					t.Fatalf("add_note %q: %s", title, r.text())
				}
			}
			var got []string // deliveries run in parallel: in any order
			for range 2 {
				n, d, err := eventstest.NextEvent[note](ctx, rc)
				if err != nil {
					t.Fatal(err)
				}
				if d.Event.Name != "note_added" || d.SubscriptionID != res.ID || d.Event.EventID != fmt.Sprintf("note-%d", n.ID) {
					t.Errorf("delivered %+v (event %+v, subscription %q), want a note_added of subscription %q", n, d.Event, d.SubscriptionID, res.ID)
				}
				got = append(got, n.Title)
			}
			if slices.Sort(got); !slices.Equal(got, []string{titles[0], titles[2]}) {
				t.Errorf("delivered %q, want %q and %q", got, titles[0], titles[2])
			}
			if r := rc.Refusals(); len(r) != 0 {
				t.Errorf("the receiver refused POSTs: %q", r)
			}

			unsub := fmt.Sprintf(`{"name":"note_added","arguments":{"prefix":%q},"delivery":{"mode":"webhook","url":%q}}`, prefix, rc.URL)
			if m := call(100*i+20, "events/unsubscribe", unsub); m.Error != nil {
				t.Errorf("events/unsubscribe: %s", m.Error)
			}
		})
	}

	// The same server without the flag refuses the loopback callback.
	strict := startHTTPServer(t, bin, "-issuer", issuer)
	rc := eventstest.NewReceiver(t)
	m := statelessCall(ctx, t, client, strict, devToken(t, issuer, "notes:read", strict), 1, "events/subscribe",
		fmt.Sprintf(`{"name":"note_added","delivery":{"mode":"webhook","url":%q,"secret":%q}}`, rc.URL, rc.Secret))
	if m.Error == nil || rc.Verifications() != 0 {
		t.Errorf("without -allow-loopback-webhooks a loopback callback was accepted: %s %s (%d verifications)", m.Result, m.Error, rc.Verifications())
	}
}

// statelessCall makes one 2026-07-28 request (no session) with a bearer
// token ("": none) and returns its answer, a result or an error.
func statelessCall(ctx context.Context, t *testing.T, client *http.Client, url, token string, id int, method, params string) *rpcMessage {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	params = strings.TrimSpace(params)
	if params == "{}" {
		params = "{" + meta + "}"
	} else {
		params = strings.TrimSuffix(params, "}") + "," + meta + "}"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	var p struct{ Name string }
	if json.Unmarshal([]byte(params), &p) == nil && p.Name != "" && strings.HasPrefix(method, "tools/") {
		req.Header.Set("Mcp-Name", p.Name)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		var m rpcMessage // an error answered with an HTTP status of its own
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m.Error == nil {
			t.Fatalf("%s: %s without a JSON-RPC error (%v)", method, resp.Status, err)
		}
		return &m
	}
	return newMessages(t, resp).untilID(t, fmt.Sprint(id))
}
