package events

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/wiretest"
	"github.com/mcpgen/mcpgen/runtime"
)

// servedEngine is a Server with an Engine of types on it, both closed
// with the test.
func servedEngine(t *testing.T, ro runtime.Options, o Options, types ...EventType) (*runtime.Server, *Engine) {
	t.Helper()
	srv := runtime.NewServer(ro)
	t.Cleanup(func() { _ = srv.Close() })
	e := newEngine(t, o, types...)
	if err := Enable(srv, e); err != nil {
		t.Fatal(err)
	}
	return srv, e
}

// everyWire is a client of srv in each era and transport the extension is
// served in.
func everyWire(t *testing.T, srv *runtime.Server) []*peer {
	url := serveHTTP(t, srv)
	return []*peer{
		httpPeer(t, url, runtime.Version20251125, ""),
		httpPeer(t, url, runtime.Version20260728, ""),
		stdioPeer(t, srv, runtime.Version20251125),
		stdioPeer(t, srv, runtime.Version20260728),
	}
}

type wireOccurrence struct {
	EventID   string          `json:"eventId"`
	Name      string          `json:"name"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
	Cursor    *string         `json:"cursor"`
	Meta      map[string]json.RawMessage
}

type wirePoll struct {
	Events     []wireOccurrence `json:"events"`
	Cursor     *string          `json:"cursor"`
	Truncated  bool             `json:"truncated"`
	HasMore    bool             `json:"hasMore"`
	NextPollMs int64            `json:"nextPollMs"`
}

func wireTitles(evs []wireOccurrence) string {
	var out []string
	for _, ev := range evs {
		var d struct{ Title string }
		json.Unmarshal(ev.Data, &d)
		out = append(out, d.Title)
	}
	return strings.Join(out, ",")
}

// streamEvent reads a stream's next event (past heartbeats), checking its
// tag.
func streamEvent(t *testing.T, s *liveStream) wireOccurrence {
	t.Helper()
	m := s.skipBeats(t)
	if m.Method != NotificationEvent {
		t.Fatalf("got %s %s %+v, want an event", m.Method, m.Params, m.Error)
	}
	var ev struct {
		wireOccurrence
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	decode(t, m, &ev)
	if string(ev.Meta[SubscriptionIDMetaKey]) != string(s.id) {
		t.Fatalf("the event is tagged %s, not with its request's id %s", ev.Meta[SubscriptionIDMetaKey], s.id)
	}
	return ev.wireOccurrence
}

// TestEventsInEveryEraAndTransport: a 2025-11-25 session and 2026-07-28
// requests, over HTTP and stdio, see the capability, list the type, poll
// it from a cursor, hold a push stream that gets what is emitted (tagged
// with the stream's request id) and resume a stream from a cursor.
func TestEventsInEveryEraAndTransport(t *testing.T) {
	wiretest.NoLeaks(t)
	o := Options{Heartbeat: 100 * time.Millisecond}
	srv, e := servedEngine(t, runtime.Options{}, o, noteAdded())
	ctx := context.Background()
	for i, p := range everyWire(t, srv) {
		t.Run(p.name, func(t *testing.T) {
			var init struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			}
			if err := json.Unmarshal(p.init, &init); err != nil {
				t.Fatalf("%s: %v", p.init, err)
			}
			var exts map[string]json.RawMessage
			json.Unmarshal(init.Capabilities["extensions"], &exts)
			if string(exts[ExtensionID]) != `{"listChanged":true}` {
				t.Errorf("capabilities.extensions: %s", init.Capabilities["extensions"])
			}
			if _, top := init.Capabilities["events"]; top == p.modern {
				t.Errorf("the top-level events capability in a %s result: %v", p.name, top)
			}

			var list struct{ Events []Descriptor }
			decode(t, p.call(t, MethodList, map[string]any{}), &list)
			if len(list.Events) != 1 || list.Events[0].Name != "note_added" || len(list.Events[0].Delivery) != 3 {
				t.Fatalf("events/list: %+v", list)
			}

			args := map[string]any{"prefix": "a"}
			var first wirePoll
			decode(t, p.call(t, MethodPoll, map[string]any{"name": "note_added", "arguments": args}), &first)
			if first.Cursor == nil || len(first.Events) != 0 || first.NextPollMs <= 0 {
				t.Fatalf("the first poll: %+v", first)
			}
			s := p.stream(t, MethodStream, map[string]any{"name": "note_added", "arguments": args})
			active := s.must(t)
			var a struct {
				Cursor *string                    `json:"cursor"`
				Meta   map[string]json.RawMessage `json:"_meta"`
			}
			decode(t, active, &a)
			if active.Method != NotificationActive || a.Cursor == nil || string(a.Meta[SubscriptionIDMetaKey]) != string(s.id) {
				t.Fatalf("the stream's first message: %s %s", active.Method, active.Params)
			}
			base := 100 * (i + 1)
			for j, title := range []string{"apple", "banana", "avocado"} {
				b, _ := json.Marshal(map[string]any{"id": base + j, "title": title})
				if _, err := e.Emit(ctx, "note_added", Broadcast(), Event{ID: fmt.Sprintf("note-%d", base+j), Data: b}); err != nil {
					t.Fatal(err)
				}
			}
			ev1, ev2 := streamEvent(t, s), streamEvent(t, s)
			if wireTitles([]wireOccurrence{ev1, ev2}) != "apple,avocado" || ev1.EventID != fmt.Sprintf("note-%d", base) || ev2.Cursor == nil {
				t.Fatalf("the stream's events: %+v %+v", ev1, ev2)
			}
			if m := s.must(t); m.Method != NotificationHeartbeat {
				t.Errorf("a quiet stream sent %s, not a heartbeat", m.Method)
			}

			var polled wirePoll
			decode(t, p.call(t, MethodPoll, map[string]any{"name": "note_added", "arguments": args, "cursor": *first.Cursor}), &polled)
			if wireTitles(polled.Events) != "apple,avocado" || polled.Cursor == nil || polled.Truncated {
				t.Fatalf("the poll from the first cursor: %+v", polled)
			}
			forged := []byte(*polled.Cursor)
			forged[len(forged)/2] ^= 1
			if m := p.call(t, MethodPoll, map[string]any{"name": "note_added", "arguments": args, "cursor": string(forged)}); errCode(m) != runtime.CodeInvalidParams {
				t.Errorf("a forged cursor: %+v %s", m.Error, m.Result)
			}
			if m := p.call(t, MethodPoll, map[string]any{"name": "note_added", "cursor": 7}); errCode(m) != runtime.CodeInvalidParams || !strings.Contains(m.Error.Message, "/cursor") {
				t.Errorf("a cursor that is no string: %+v", m.Error)
			}

			// The client goes away; what it missed comes back from its cursor.
			s.close()
			b, _ := json.Marshal(map[string]any{"id": base + 9, "title": "apricot"})
			if _, err := e.Emit(ctx, "note_added", Broadcast(), Event{ID: fmt.Sprintf("note-%d", base+9), Data: b}); err != nil {
				t.Fatal(err)
			}
			again := p.stream(t, MethodStream, map[string]any{"name": "note_added", "arguments": args, "cursor": *ev2.Cursor})
			if m := again.must(t); m.Method != NotificationActive {
				t.Fatalf("the resumed stream's first message: %s", m.Method)
			}
			if ev := streamEvent(t, again); wireTitles([]wireOccurrence{ev}) != "apricot" {
				t.Errorf("the resumed stream replayed %+v", ev)
			}
			again.close()
			bad := p.stream(t, MethodStream, map[string]any{"name": "note_added", "cursor": string(forged)})
			if m := bad.must(t); errCode(m) != runtime.CodeInvalidParams {
				t.Errorf("a stream from a forged cursor: %s %+v", m.Method, m.Error)
			}
			if m := p.call(t, MethodStream+"x", map[string]any{}); errCode(m) != runtime.CodeMethodNotFound {
				t.Errorf("an unknown method: %+v", m.Error)
			}
		})
	}
}

// TestStreamEndsWithTheServer: a graceful shutdown ends a push stream with
// its final result, tagged with the stream's request id.
func TestStreamEndsWithTheServer(t *testing.T) {
	wiretest.NoLeaks(t)
	srv, _ := servedEngine(t, runtime.Options{}, Options{}, noteAdded())
	for _, p := range []*peer{httpPeer(t, serveHTTP(t, srv), runtime.Version20260728, ""), stdioPeer(t, srv, runtime.Version20251125)} {
		s := p.stream(t, MethodStream, map[string]any{"name": "note_added"})
		if m := s.must(t); m.Method != NotificationActive {
			t.Fatalf("%s: %s", p.name, m.Method)
		}
		defer func(p *peer, s *liveStream) {
			m := s.skipBeats(t)
			var res struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			if m.Error != nil {
				t.Fatalf("%s: the stream ended with error %d %s", p.name, m.Error.Code, m.Error.Message)
			}
			decode(t, m, &res)
			if m.Method != "" || string(res.Meta[SubscriptionIDMetaKey]) != string(s.id) {
				t.Errorf("%s: the stream's last message %s %s", p.name, m.Method, m.Result)
			}
		}(p, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel) // not deferred: the checks above run first
	go srv.Shutdown(ctx)
}

// TestListChangedReachesLegacyClients: a type added while the server runs
// is announced with notifications/events/list_changed on a legacy
// session's channel for unsolicited messages (stdout here).
func TestListChangedReachesLegacyClients(t *testing.T) {
	srv, e := servedEngine(t, runtime.Options{}, Options{}, noteAdded())
	pipe := wiretest.StartStdio(t, srv)
	pipe.Write(wiretest.RequestLine(1, "initialize", map[string]any{"protocolVersion": runtime.Version20251125, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}}, nil))
	pipe.Read(t)
	pipe.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	typ := noteAdded()
	typ.Name = "note_removed"
	if err := e.Add(typ); err != nil {
		t.Fatal(err)
	}
	if m := pipe.Read(t); m.Method != NotificationListChanged {
		t.Fatalf("got %s, want %s", m.Method, NotificationListChanged)
	}
}

// TestStreamsAreBoundedByTheEngineNotTheCallCaps: push streams take no
// slot of MaxConcurrentCalls (a poll still runs beside them), each caller
// (a stdio connection here, without a principal) holds its share of
// MaxStreams, and the refusal names the bound.
func TestStreamsAreBoundedByTheEngineNotTheCallCaps(t *testing.T) {
	wiretest.NoLeaks(t)
	srv, _ := servedEngine(t, runtime.Options{MaxConcurrentCalls: 1}, Options{MaxStreams: 8, CallerShare: 0.25}, noteAdded())
	a, b := stdioPeer(t, srv, runtime.Version20260728), stdioPeer(t, srv, runtime.Version20251125)
	for i := range 2 {
		if m := a.stream(t, MethodStream, map[string]any{"name": "note_added", "arguments": map[string]any{"prefix": fmt.Sprint(i)}}).must(t); m.Method != NotificationActive {
			t.Fatalf("stream %d: %s %+v", i, m.Method, m.Error)
		}
	}
	m := a.stream(t, MethodStream, map[string]any{"name": "note_added"}).must(t)
	var data struct{ Limit, Bound string }
	if m.Error != nil {
		b, _ := json.Marshal(m.Error.Data)
		json.Unmarshal(b, &data)
	}
	if errCode(m) != SEP3415Codes.ResourceExhausted || data.Bound != "MaxStreams" || !strings.Contains(m.Error.Message, "MaxStreams") {
		t.Errorf("a stream past the caller's share: %s %+v", m.Method, m.Error)
	}
	if m := b.stream(t, MethodStream, map[string]any{"name": "note_added"}).must(t); m.Method != NotificationActive {
		t.Errorf("another caller's stream: %s %+v", m.Method, m.Error)
	}
	var polled wirePoll
	decode(t, a.call(t, MethodPoll, map[string]any{"name": "note_added"}), &polled)
}

// TestParamsAreChecked: malformed params are -32602 naming the member; an
// unknown type is NotFound; webhooks without a principal are Forbidden.
func TestParamsAreChecked(t *testing.T) {
	srv, _ := servedEngine(t, runtime.Options{}, Options{}, noteAdded())
	p := stdioPeer(t, srv, runtime.Version20260728)
	for _, c := range []struct {
		method string
		params map[string]any
		code   int
		says   string
	}{
		{MethodPoll, map[string]any{"name": 3}, runtime.CodeInvalidParams, "/name"},
		{MethodPoll, map[string]any{"name": "note_added", "maxEvents": "many"}, runtime.CodeInvalidParams, "/maxEvents"},
		{MethodPoll, map[string]any{"name": "note_added", "arguments": []int{1}}, runtime.CodeInvalidParams, "arguments"},
		{MethodPoll, map[string]any{"name": "note_added", "arguments": map[string]any{"prefix": 5}}, runtime.CodeInvalidParams, "inputSchema"},
		{MethodPoll, map[string]any{"name": "nope"}, SEP3415Codes.NotFound, "nope"},
		{MethodPoll, map[string]any{}, runtime.CodeInvalidParams, "name is required"},
		{MethodList, map[string]any{"cursor": "zzz"}, runtime.CodeInvalidParams, "cursor"},
		{MethodSubscribe, map[string]any{"name": "note_added", "delivery": map[string]any{"url": "https://hooks.example/x", "secret": "whsec_" + strings.Repeat("A", 44)}}, SEP3415Codes.Forbidden, "authenticated"},
		{MethodSubscribe, map[string]any{"name": "note_added", "ttlMs": "long"}, runtime.CodeInvalidParams, "ttlMs"},
		{MethodUnsubscribe, map[string]any{"name": "note_added", "delivery": map[string]any{"url": "https://hooks.example/x"}}, SEP3415Codes.Forbidden, "authenticated"},
	} {
		m := p.call(t, c.method, c.params)
		if errCode(m) != c.code || !strings.Contains(m.Error.Message, c.says) {
			t.Errorf("%s %v: %+v, want %d saying %q", c.method, c.params, m.Error, c.code, c.says)
		}
		if m.Error != nil && strings.Contains(m.Error.Message, "Go ") {
			t.Errorf("%s: the error names Go types: %s", c.method, m.Error.Message)
		}
	}
}

const testIssuer = "https://as.example"

// scoped are runtime Options with Auth on test tokens "subject;scope+scope".
func scoped(filter bool) runtime.Options {
	return runtime.Options{Auth: &runtime.Auth{Resource: "http://127.0.0.1:1/mcp", AuthorizationServers: []string{testIssuer}, FilterLists: filter,
		Verifier: runtime.TokenVerifierFunc(func(_ context.Context, tok string) (*runtime.Principal, error) {
			sub, scopes, ok := strings.Cut(tok, ";")
			if !ok || sub == "" {
				return nil, fmt.Errorf("%w: not a test token", runtime.ErrInvalidToken)
			}
			return &runtime.Principal{Issuer: testIssuer, Subject: sub, Scopes: strings.FieldsFunc(scopes, func(r rune) bool { return r == '+' }),
				Expiry: time.Now().Add(time.Hour)}, nil
		})}}
}

// TestScopesAndOwnershipOverHTTP: with Auth, a type's scopes are checked
// like a tool's (403 insufficient_scope), hidden from events/list under
// FilterLists; a webhook subscription is its principal's alone (another
// principal naming it exactly gets NotFound, and it keeps delivering); a
// principal past its share of MaxSubscriptions is refused naming it.
func TestScopesAndOwnershipOverHTTP(t *testing.T) {
	wiretest.NoLeaks(t)
	rc := newReceiver(t)
	secret := newSecret(32)
	typ := noteAdded()
	typ.Scopes = []string{"notes:read"}
	o := loopback()
	o.MaxSubscriptions, o.CallerShare = 10, 0.1
	srv, e := servedEngine(t, scoped(true), o, typ)
	url := serveHTTP(t, srv)
	for _, version := range []string{runtime.Version20251125, runtime.Version20260728} {
		t.Run(version, func(t *testing.T) {
			alice, bob := httpPeer(t, url, version, "alice;notes:read"), httpPeer(t, url, version, "bob;")
			var list struct{ Events []Descriptor }
			decode(t, bob.call(t, MethodList, map[string]any{}), &list)
			if len(list.Events) != 0 {
				t.Errorf("FilterLists: bob sees %+v", list.Events)
			}
			decode(t, alice.call(t, MethodList, map[string]any{}), &list)
			if len(list.Events) != 1 {
				t.Errorf("alice sees %+v", list.Events)
			}
			for _, m := range []wiretest.Message{
				bob.call(t, MethodPoll, map[string]any{"name": "note_added"}),
				bob.stream(t, MethodStream, map[string]any{"name": "note_added"}).must(t),
				bob.call(t, MethodSubscribe, map[string]any{"name": "note_added", "delivery": map[string]any{"url": rc.url("/bob"), "secret": secret}}),
			} {
				if !strings.HasPrefix(m.Method, "http/403 ") || !strings.Contains(m.Method, "insufficient_scope") || !strings.Contains(m.Method, "notes:read") {
					t.Errorf("bob without the scope: %q %+v", m.Method, m.Error)
				}
			}
			hook := rc.url("/alice/" + version)
			sub := map[string]any{"name": "note_added", "arguments": map[string]any{"prefix": "x"}, "delivery": map[string]any{"url": hook, "secret": secret}}
			var res SubscribeResult
			decode(t, alice.call(t, MethodSubscribe, sub), &res)
			if !strings.HasPrefix(res.ID, "sub_") || res.RefreshBefore == nil {
				t.Fatalf("alice's subscription: %+v", res)
			}
			// Carol holds the scope but not the subscription.
			carol := httpPeer(t, url, version, "carol;notes:read")
			unsub := map[string]any{"name": "note_added", "arguments": map[string]any{"prefix": "x"}, "delivery": map[string]any{"url": hook}}
			if m := carol.call(t, MethodUnsubscribe, unsub); errCode(m) != SEP3415Codes.NotFound {
				t.Errorf("carol unsubscribing alice's: %+v", m.Error)
			}
			if m := alice.call(t, MethodSubscribe, map[string]any{"name": "note_added", "arguments": map[string]any{"prefix": "y"},
				"delivery": map[string]any{"url": hook, "secret": secret}}); errCode(m) != SEP3415Codes.ResourceExhausted || !strings.Contains(m.Error.Message, "MaxSubscriptions") {
				t.Errorf("alice past her share: %+v", m.Error)
			}
			b, _ := json.Marshal(map[string]any{"id": 1, "title": "x marks " + version})
			if _, err := e.Emit(context.Background(), "note_added", Broadcast(), Event{Data: b}); err != nil {
				t.Fatal(err)
			}
			got := waitPost(t, rc, "event")
			checkSigned(t, got, secret, res.ID)
			if !strings.Contains(string(got.Body), "x marks "+version) {
				t.Errorf("delivered %s", got.Body)
			}
			if m := alice.call(t, MethodUnsubscribe, unsub); m.Error != nil {
				t.Errorf("alice unsubscribing: %+v", m.Error)
			}
		})
	}
	_ = http.StatusOK
}

// TestCallbacksToPrivateAddressesAreRefusedOverTheWire: without
// AllowLoopbackCallbacks, a subscribe whose callback is loopback or the
// metadata address is -32602, in both eras, and the message names no
// address it resolved.
func TestCallbacksToPrivateAddressesAreRefusedOverTheWire(t *testing.T) {
	wiretest.NoLeaks(t)
	srv, _ := servedEngine(t, scoped(false), Options{}, noteAdded())
	url := serveHTTP(t, srv)
	secret := newSecret(32)
	for _, version := range []string{runtime.Version20251125, runtime.Version20260728} {
		alice := httpPeer(t, url, version, "alice;")
		for _, cb := range []string{"https://127.0.0.1:1/hook", "https://169.254.169.254/latest/meta-data", "http://example.com/hook"} {
			m := alice.call(t, MethodSubscribe, map[string]any{"name": "note_added", "delivery": map[string]any{"url": cb, "secret": secret}})
			if errCode(m) != runtime.CodeInvalidParams {
				t.Errorf("%s: callback %s: %+v", version, cb, m.Error)
			}
		}
	}
}
