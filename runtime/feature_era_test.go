package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestResourceNotFoundPerEra: an unknown URI, a template handler's
// ErrResourceNotFound and a read without contents are -32002 in legacy
// sessions and -32602 in 2026-07-28 (SEP-2164), over HTTP and stdio, always
// with data.uri.
func TestResourceNotFoundPerEra(t *testing.T) {
	noLeaks(t)
	transports := parityTransports(t, nil, registerFeatures, func(t *testing.T, s *Server) {
		if err := s.AddResource(Resource{URI: "test://empty", Definition: json.RawMessage(`{"uri":"test://empty","name":"empty"}`),
			Handler: func(context.Context, *Call, string) (*ResourceResult, error) { return &ResourceResult{}, nil }}); err != nil {
			t.Fatal(err)
		}
	})
	for _, uri := range []string{"test://nope", "notes://nobody/x", "test://empty"} {
		for i, tr := range transports {
			m := tr.send(t, 10+i, "resources/read", map[string]any{"uri": uri})
			want := CodeResourceNotFound
			if strings.HasPrefix(tr.name, "2026-07-28") {
				want = CodeInvalidParams
			}
			if m.Error == nil || m.Error.Code != want {
				t.Errorf("%s %s: %+v, want %d", tr.name, uri, m.Error, want)
				continue
			}
			var data struct{ URI string }
			if b, _ := json.Marshal(m.Error.Data); json.Unmarshal(b, &data) != nil || data.URI != uri {
				t.Errorf("%s %s: data %v, want the uri", tr.name, uri, m.Error.Data)
			}
		}
	}
}

// TestModernPromptAndResourceRounds: in 2026-07-28 a prompt or resource
// handler that elicits ends the round with input_required (no cache hints),
// and the retry with the answer completes; a read's result carries the
// resource's cache hint.
func TestModernPromptAndResourceRounds(t *testing.T) {
	leakCheck(t)
	s := newTestServer(t)
	registerFeatures(t, s)
	c := modernServer(t, s)
	c.caps = allCaps

	get := map[string]any{"name": "asks"}
	reqs, state := inputRequired(t, c.call("prompts/get", get))
	if q, _ := reqs["topic"].(map[string]any); q["method"] != "elicitation/create" {
		t.Fatalf("inputRequests = %v", reqs)
	}
	get["inputResponses"] = map[string]any{"topic": accept(map[string]any{"topic": "go"})}
	get["requestState"] = state
	res := c.call("prompts/get", get).result(t)
	if res["resultType"] != "complete" || jsonOf(res["messages"]) != `[{"content":{"text":"about go","type":"text"},"role":"user"}]` {
		t.Errorf("retried prompts/get = %v", res)
	}
	// The state is bound to the prompt: replaying it on another one fails.
	if r := c.call("prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"who": "x"}, "requestState": state}); r.errCode(t) != CodeInvalidParams {
		t.Errorf("state replayed on another prompt: %s", r.body)
	}

	read := map[string]any{"uri": "test://asks"}
	r := c.call("resources/read", read)
	reqs, state = inputRequired(t, r)
	if q, _ := reqs["topic"].(map[string]any); q["method"] != "elicitation/create" {
		t.Fatalf("resources/read inputRequests = %v", reqs)
	}
	if _, cached := r.result(t)["ttlMs"]; cached {
		t.Errorf("an input_required result carries cache hints: %s", r.body)
	}
	read["inputResponses"] = map[string]any{"topic": accept(map[string]any{"topic": "rust"})}
	read["requestState"] = state
	res = c.call("resources/read", read).result(t)
	if jsonOf(res["contents"]) != `[{"text":"rust","uri":"test://asks"}]` || res["ttlMs"] != 0.0 || res["cacheScope"] != "private" {
		t.Errorf("retried read = %v", res)
	}
	res = c.call("resources/read", map[string]any{"uri": "test://blob"}).result(t)
	if res["ttlMs"] != 30000.0 || res["cacheScope"] != "public" {
		t.Errorf("read with the resource's hint = %v", res)
	}
	if err := s.SetListCache("prompts/list", CacheHint{TTL: 0, Scope: CachePrivate}); err != nil {
		t.Fatal(err)
	}
	res = c.call("prompts/list", nil).result(t)
	if res["ttlMs"] != 0.0 || res["cacheScope"] != "private" {
		t.Errorf("prompts/list with SetListCache = %v", res)
	}
	res = c.call("resources/templates/list", nil).result(t)
	if res["ttlMs"] != 60000.0 || res["cacheScope"] != "public" {
		t.Errorf("templates list default hint = %v", res)
	}
	if err := s.SetListCache("tools/list", CacheHint{TTL: 1500 * time.Millisecond, Scope: CachePrivate}); err != nil {
		t.Fatal(err)
	}
	res = c.call("tools/list", nil).result(t)
	if res["ttlMs"] != 1500.0 || res["cacheScope"] != "private" {
		t.Errorf("tools/list with SetListCache = %v", res)
	}
	if err := s.SetListCache("tools/call", CacheHint{Scope: CachePublic}); err == nil {
		t.Error("SetListCache accepted a method that is no list")
	}
	// Removed in 2026-07-28: 404 and -32601.
	for _, m := range []string{"resources/subscribe", "resources/unsubscribe"} {
		if r := c.call(m, map[string]any{"uri": "test://doc"}); r.status != http.StatusNotFound || r.errCode(t) != CodeMethodNotFound {
			t.Errorf("%s: HTTP %d %s", m, r.status, r.body)
		}
	}
}

// TestLegacyPromptElicitsLive: in a legacy session a prompt's and a
// resource's elicitation is a live request on the POST's own stream, as for
// tools.
func TestLegacyPromptElicitsLive(t *testing.T) {
	s, ts := legacyServer(t, Options{})
	registerFeatures(t, s)
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	for _, tc := range []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"asks"}}`, `"text":"about go"`},
		{`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://asks"}}`, `"text":"go"`},
	} {
		ch := events(t, c.post(tc.body))
		ev := next(t, ch)
		if ev.msg.Method != "elicitation/create" {
			t.Fatalf("first message %s, want elicitation/create", ev.data)
		}
		if code := c.answer(ev.msg.ID, `{"action":"accept","content":{"topic":"go"}}`); code != 202 {
			t.Fatalf("answer: status %d", code)
		}
		if res := next(t, ch); res.msg.Error != nil || !strings.Contains(string(res.msg.Result), tc.want) {
			t.Errorf("result %s, want %s", res.data, tc.want)
		}
	}
}

// TestStdioSubscriptionsAndChanges: a legacy stdio client hears the
// updates of what it subscribed to, and nothing else, and every list
// change; after unsubscribing it hears no more updates.
func TestStdioSubscriptionsAndChanges(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{})
	t.Cleanup(func() { s.Close() })
	registerFeatures(t, s)
	p := startStdio(t, s)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	if m := p.recv(); m.Error != nil || !strings.Contains(string(m.Result), `"resources":{"subscribe":true,"listChanged":true}`) {
		t.Fatalf("initialize: %+v %s", m.Error, m.Result)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://doc"}}`)
	if m := p.recv(); string(m.Result) != "{}" {
		t.Fatalf("subscribe: %+v", m)
	}
	s.NotifyResourceUpdated("test://blob") // not subscribed: never sent
	s.NotifyResourceUpdated("test://doc")
	if m := p.recv(); m.Method != methodResourceUpdated || string(m.Params) != `{"uri":"test://doc"}` {
		t.Fatalf("got %s %s, want the update of test://doc only", m.Method, m.Params)
	}
	s.NotifyPromptListChanged()
	s.NotifyResourceListChanged()
	s.NotifyToolListChanged()
	for _, want := range []string{methodPromptsListChanged, methodResourcesListChanged, methodToolsListChanged} {
		if m := p.recv(); m.Method != want {
			t.Fatalf("got %s, want %s", m.Method, want)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"test://doc"}}`)
	if m := p.recv(); string(m.Result) != "{}" {
		t.Fatalf("unsubscribe: %+v", m)
	}
	s.NotifyResourceUpdated("test://doc")
	s.NotifyPromptListChanged()
	if m := p.recv(); m.Method != methodPromptsListChanged {
		t.Fatalf("got %s %s after unsubscribing, want only the prompt list change", m.Method, m.Params)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{}}`)
	if m := p.recv(); m.Error == nil || m.Error.Code != CodeInvalidParams {
		t.Fatalf("subscribe without uri: %+v", m)
	}
}

// TestModernListenFeatures: a listen stream hears exactly what its filter
// names: prompt and resource list changes, and updates of the URIs in
// resourceSubscriptions, each tagged with the subscription id.
func TestModernListenFeatures(t *testing.T) {
	leakCheck(t)
	s := newTestServer(t)
	registerFeatures(t, s)
	c := modernServer(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	filter := map[string]any{"promptsListChanged": true, "resourcesListChanged": true, "toolsListChanged": true,
		"resourceSubscriptions": []string{"test://doc"}}
	_, body := c.send("subscriptions/listen", map[string]any{"notifications": filter}, withCtx(ctx), withID("l-1"))
	defer body.Close()
	r := newSSEReader(body)
	// No tools are registered, so toolsListChanged is not honoured.
	if ack := r.next(t); jsonOf(ack["params"]) != `{"_meta":{"io.modelcontextprotocol/subscriptionId":"l-1"},"notifications":{"promptsListChanged":true,"resourceSubscriptions":["test://doc"],"resourcesListChanged":true}}` {
		t.Fatalf("ack = %v", ack)
	}
	s.NotifyResourceUpdated("test://blob")
	s.NotifyToolListChanged()
	s.NotifyResourceUpdated("test://doc")
	if n := r.next(t); n["method"] != methodResourceUpdated || jsonOf(n["params"]) != `{"_meta":{"io.modelcontextprotocol/subscriptionId":"l-1"},"uri":"test://doc"}` {
		t.Fatalf("got %v, want only the update of test://doc", n)
	}
	s.NotifyPromptListChanged()
	s.NotifyResourceListChanged()
	for _, want := range []string{methodPromptsListChanged, methodResourcesListChanged} {
		if n := r.next(t); n["method"] != want || jsonOf(n["params"]) != `{"_meta":{"io.modelcontextprotocol/subscriptionId":"l-1"}}` {
			t.Fatalf("got %v, want %s", n, want)
		}
	}
}

// TestChangesReachEveryReplica: with a shared store and bus, a subscription
// made on one replica and a change announced on another reach the GET
// stream held by a third, and a listen stream on the first.
func TestChangesReachEveryReplica(t *testing.T) {
	noLeaks(t)
	shared := Options{KeepAlive: -1, StateKey: testStateKey, Sessions: &MemorySessionStore{}, Pending: &MemoryPendingRouter{}, Events: &MemoryEventStore{}, Bus: &memBus{}}
	var servers []*Server
	var urls []string
	for _, id := range []string{"a", "b", "c"} {
		o := shared
		o.ReplicaID = id
		s := NewServer(o)
		registerFeatures(t, s)
		ts := httptest.NewServer(s)
		t.Cleanup(func() { s.Close(); ts.CloseClientConnections(); ts.Close() })
		servers, urls = append(servers, s), append(urls, ts.URL)
	}
	cl := newClient(t, &httptest.Server{URL: urls[0]})
	cl.initialize(Version20251125, `{}`)
	cl.url = urls[2]
	get := events(t, cl.do(cl.request(http.MethodGet, ""))) // the GET stream lives on replica c
	<-get
	cl.url = urls[1] // the subscription is made on replica b
	if m := jsonBody(t, cl.post(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://doc"}}`)); string(m.Result) != "{}" {
		t.Fatalf("subscribe on b: %+v", m)
	}
	cl.url = urls[0] // a later change of the session on replica a keeps the subscription
	if m := jsonBody(t, cl.post(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`)); m.Error != nil {
		t.Fatalf("setLevel on a: %+v", m.Error)
	}
	modern := modernServer(t, servers[0])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, body := modern.send("subscriptions/listen", map[string]any{"notifications": map[string]any{"promptsListChanged": true}}, withCtx(ctx))
	defer body.Close()
	listen := newSSEReader(body)
	if ack := listen.next(t); ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("ack = %v", ack)
	}

	servers[1].NotifyResourceUpdated("test://blob") // nobody subscribed
	servers[1].NotifyResourceUpdated("test://doc")
	if ev := next(t, get); ev.msg.Method != methodResourceUpdated || string(ev.msg.Params) != `{"uri":"test://doc"}` {
		t.Fatalf("GET on c got %s, want the update announced on b", ev.data)
	}
	servers[1].NotifyPromptListChanged()
	if ev := next(t, get); ev.msg.Method != methodPromptsListChanged {
		t.Fatalf("GET on c got %s", ev.data)
	}
	if n := listen.next(t); n["method"] != methodPromptsListChanged {
		t.Fatalf("listen on a got %v", n)
	}
}

// TestFeaturePagination: prompts/list, resources/list (listed resources
// included) and resources/templates/list walk their pages with nextCursor.
func TestFeaturePagination(t *testing.T) {
	leakCheck(t)
	s := NewServer(Options{PageSize: 2})
	t.Cleanup(func() { s.Close() })
	registerFeatures(t, s)
	c := modernServer(t, s)
	for _, tc := range []struct {
		method, key string
		want        int
	}{{"prompts/list", "prompts", 5}, {"resources/list", "resources", 4}, {"resources/templates/list", "resourceTemplates", 1}} {
		var names []string
		params := map[string]any{}
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatalf("%s: too many pages", tc.method)
			}
			res := c.call(tc.method, params).result(t)
			items, _ := res[tc.key].([]any)
			if len(items) > 2 {
				t.Errorf("%s: page of %d", tc.method, len(items))
			}
			for _, it := range items {
				m := it.(map[string]any)
				names = append(names, jsonOf(m["name"]))
			}
			next, ok := res["nextCursor"].(string)
			if !ok {
				break
			}
			params = map[string]any{"cursor": next}
		}
		if len(names) != tc.want {
			t.Errorf("%s: %d entries over its pages, want %d: %v", tc.method, len(names), tc.want, names)
		}
	}
	if r := c.call("resources/list", map[string]any{"cursor": encodeCursor(100)}); r.errCode(t) != CodeInvalidParams {
		t.Errorf("cursor past the end: %s", r.body)
	}
}

// TestSubscribeEveryTransport: resources/subscribe and unsubscribe answer
// {} in legacy sessions (HTTP and stdio) and -32601 in 2026-07-28 (HTTP and
// stdio), which has subscriptions/listen instead.
func TestSubscribeEveryTransport(t *testing.T) {
	noLeaks(t)
	for i, tr := range parityTransports(t, nil, registerFeatures) {
		for _, m := range []string{"resources/subscribe", "resources/unsubscribe"} {
			r := tr.send(t, 20+i, m, map[string]any{"uri": "test://doc"})
			if strings.HasPrefix(tr.name, "2026-07-28") {
				if r.Error == nil || r.Error.Code != CodeMethodNotFound {
					t.Errorf("%s %s: %+v, want -32601", tr.name, m, r)
				}
			} else if r.Error != nil || string(r.Result) != "{}" {
				t.Errorf("%s %s: %+v %s, want {}", tr.name, m, r.Error, r.Result)
			}
		}
	}
}

// TestFeatureRegistrationErrors: bad registrations fail with an error that
// names the prompt, resource or template and what is wrong.
func TestFeatureRegistrationErrors(t *testing.T) {
	s := NewServer(Options{})
	defer s.Close()
	ph := func(context.Context, *Call, map[string]string) (*PromptResult, error) { return nil, nil }
	rh := func(context.Context, *Call, string) (*ResourceResult, error) { return nil, nil }
	th := func(context.Context, *Call, string, URIVars) (*ResourceResult, error) { return nil, nil }
	noop := func(context.Context, CompletionRequest) (*Completion, error) { return nil, nil }
	if err := s.AddPrompt(Prompt{Name: "p", Definition: json.RawMessage(`{"name":"p"}`), Handler: ph}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		err  error
		want string
	}{
		{s.AddPrompt(Prompt{Name: "p", Definition: json.RawMessage(`{"name":"p"}`), Handler: ph}), `prompt "p" is already registered`},
		{s.AddPrompt(Prompt{Name: "q", Definition: json.RawMessage(`{"name":"other"}`), Handler: ph}), `prompt "q": definition names "other"`},
		{s.AddPrompt(Prompt{Name: "q", Definition: json.RawMessage(`{"name":"q"`), Handler: ph}), `prompt "q": definition:`},
		{s.AddPrompt(Prompt{Name: "q", Definition: json.RawMessage(`{"name":"q"}`)}), `prompt "q": no handler`},
		{s.AddPrompt(Prompt{Name: "q", Definition: json.RawMessage(`{"name":"q","arguments":[{"name":"a"},{"name":"a"}]}`), Handler: ph}), `arguments[1]`},
		{s.AddPrompt(Prompt{Name: "q", Definition: json.RawMessage(`{"name":"q"}`), Handler: ph, Complete: map[string]CompletionHandler{"x": noop}}), `"x", which is not one of its arguments`},
		{s.AddPrompt(Prompt{Name: "q", Definition: json.RawMessage(`{"name":"q"}`), Handler: ph,
			Elicitations: []*Elicitation{{Name: "bad", Mode: "form", RequestedSchema: json.RawMessage(`{"type":7}`)}}}), `prompt "q": elicitation "bad"`},
		{s.AddResource(Resource{URI: "a://b", Definition: json.RawMessage(`{"uri":"a://c","name":"b"}`), Handler: rh}), `resource "a://b": definition has uri "a://c"`},
		{s.AddResource(Resource{URI: "a://b", Definition: json.RawMessage(`{"uri":"a://b"}`), Handler: rh}), `has no name`},
		{s.AddResource(Resource{URI: "a://b", Definition: json.RawMessage(`{"uri":"a://b","name":"b"}`), Handler: rh, Cache: &CacheHint{Scope: "shared"}}), `cache scope "shared"`},
		{s.AddResource(Resource{URI: "a://b", Definition: json.RawMessage(`{"uri":"a://b","name":"b"}`), Handler: rh, Cache: &CacheHint{TTL: -1, Scope: CachePublic}}), `negative`},
		{s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://{x", Definition: json.RawMessage(`{"uriTemplate":"a://{x","name":"t"}`), Handler: th}), `unclosed {`},
		{s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://{x}", Definition: json.RawMessage(`{"uriTemplate":"a://{x}","name":"t"}`), Handler: th,
			Complete: map[string]CompletionHandler{"y": noop}}), `"y", which is not one of its variables`},
		{s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://{x}", Definition: json.RawMessage(`{"uriTemplate":"a://{y}","name":"t"}`), Handler: th}), `definition has uriTemplate "a://{y}"`},
	}
	for i, tc := range cases {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("case %d: error %v, want %q", i, tc.err, tc.want)
		}
	}
}
