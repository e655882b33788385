package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestEveryClientNotificationIsDocumented: each notification a client may
// send (every revision the runtime speaks) has a line in coreNotifications
// saying what the core does with it, so that none is dropped without a
// word.
func TestEveryClientNotificationIsDocumented(t *testing.T) {
	for _, m := range []string{methodInitialized, methodCancelled, methodProgress, methodRootsListChanged, methodTaskStatus} {
		if coreNotifications[m] == "" {
			t.Errorf("%s: the core does not say what it does with it", m)
		}
	}
}

// TestClientNotificationsReachExtensions: a notification an extension
// handles reaches it in every era and transport, with its params, its era
// and its session; one nothing handles is logged as ignored.
func TestClientNotificationsReachExtensions(t *testing.T) {
	noLeaks(t)
	var mu sync.Mutex
	var got []*ClientNotification
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	hook := func(_ context.Context, n *ClientNotification) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, n)
	}
	add := func(s *Server) {
		if err := s.AddExtension(Extension{ID: "x.example/roots", Notifications: map[string]NotificationHandler{
			methodRootsListChanged: hook, "notifications/x/ping": hook,
		}}); err != nil {
			t.Fatal(err)
		}
	}
	s, ts := legacyServer(t, Options{Logger: logger})
	add(s)
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"roots":{"listChanged":true}}`)
	c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`).Body.Close()
	c.post(`{"jsonrpc":"2.0","method":"notifications/x/ping","params":{"n":1}}`).Body.Close()
	c.post(`{"jsonrpc":"2.0","method":"notifications/unknown"}`).Body.Close()

	modern := modernServer(t, s)
	body := `{"jsonrpc":"2.0","method":"notifications/x/ping","params":{"n":2,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, modern.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(headerProtocolVersion, Version20260728)
	req.Header.Set(headerMethod, "notifications/x/ping")
	resp, err := modern.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("a 2026-07-28 notification: HTTP %d", resp.StatusCode)
	}

	stdio := startStdio(t, s)
	stdio.send(`{"jsonrpc":"2.0","method":"notifications/x/ping","params":{"n":3,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	stdio.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	stdio.recv()
	stdio.send(`{"jsonrpc":"2.0","method":"notifications/x/ping","params":{"n":4}}`)
	stdio.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	stdio.recv() // the ping's answer: the notification before it was handled

	mu.Lock()
	defer mu.Unlock()
	var seen []string
	for _, n := range got {
		var p struct{ N int }
		_ = json.Unmarshal(n.Params, &p)
		seen = append(seen, n.Method+" "+n.ProtocolVersion+" "+jsonOf(p.N)+" "+jsonOf(n.SessionID != ""))
	}
	want := []string{
		"notifications/roots/list_changed 2025-11-25 0 true",
		"notifications/x/ping 2025-11-25 1 true",
		"notifications/x/ping 2026-07-28 2 false",
		"notifications/x/ping 2026-07-28 3 false",
		"notifications/x/ping 2025-06-18 4 true",
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("the extension was told:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(logs.String(), "client notification ignored") || !strings.Contains(logs.String(), "notifications/unknown") {
		t.Errorf("an unhandled notification was not logged:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "notifications/x/ping") {
		t.Errorf("a handled notification was logged as ignored:\n%s", logs.String())
	}
}

// TestHostNotifyReachesEveryClient: an extension's own notification
// (Host.Notify) reaches a legacy session's GET stream and a stdio
// connection, as the server's list changes do.
func TestHostNotifyReachesEveryClient(t *testing.T) {
	noLeaks(t)
	var host *Host
	s, ts := legacyServer(t, Options{})
	if err := s.AddExtension(Extension{ID: "x.example/announce", Init: func(h *Host) error { host = h; return nil }}); err != nil {
		t.Fatal(err)
	}
	if err := host.Notify("notifications/x/changed", []int{1}); err == nil {
		t.Error("params that are no object were sent")
	}
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	get := events(t, c.do(c.request(http.MethodGet, "")))
	stdio := startStdio(t, s)
	stdio.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	stdio.recv()
	stdio.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	stdio.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	stdio.recv()
	select { // the GET stream's priming event: it is attached
	case <-get:
	case <-time.After(5 * time.Second):
		t.Fatal("the GET stream did not open")
	}
	if err := host.Notify("notifications/x/changed", map[string]int{"n": 7}); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, get); ev.msg.Method != "notifications/x/changed" || string(ev.msg.Params) != `{"n":7}` {
		t.Errorf("the GET stream got %+v", ev.msg)
	}
	if m := stdio.recv(); m.Method != "notifications/x/changed" || string(m.Params) != `{"n":7}` {
		t.Errorf("stdio got %+v", m)
	}
}

// TestClientNotificationsTableInDocs: docs/handlers.md lists each
// notification the core documents, so that what the runtime does with it is
// written where a server author looks.
func TestClientNotificationsTableInDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/handlers.md")
	if err != nil {
		t.Fatal(err)
	}
	for m := range coreNotifications {
		if !bytes.Contains(doc, []byte("| `"+m+"` |")) {
			t.Errorf("docs/handlers.md has no row for %s", m)
		}
	}
}
