package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

const echoExt = "x.example/echo"

// echoExtension adds echo/hello, which answers with its params, the
// protocol version and what the client declared for the extension; and
// echo/secret, which needs scope echo:secret.
func echoExtension(versions ...string) Extension {
	hello := func(_ context.Context, req *MethodRequest) (*MethodResult, error) {
		client, declared := req.ClientExtension(echoExt)
		if req.Method == "echo/fail" {
			return nil, NewError(CodeInvalidParams, "echo/fail: always")
		}
		return &MethodResult{Result: map[string]any{"params": req.Params, "version": req.ProtocolVersion,
			"declared": declared, "client": client}, Cache: &CacheHint{Scope: CachePrivate}}, nil
	}
	secret := func(context.Context, *MethodRequest) (string, []string, error) {
		return "the echo secret", []string{"echo:secret"}, nil
	}
	return Extension{ID: echoExt, Settings: json.RawMessage(`{"loud": true}`), Versions: versions, Methods: []Method{
		{Name: "echo/hello", Authorize: NoScopes, Serve: hello},
		{Name: "echo/fail", Authorize: NoScopes, Serve: hello},
		{Name: "echo/secret", Authorize: secret, Serve: hello},
	}}
}

// TestExtensionInEveryEra: an extension added through the seam is declared
// in a legacy session's initialize and in server/discover, and its methods
// are served in both eras over HTTP and stdio, with the client's own
// declaration of the extension, the 2026-07-28 framing and its errors.
func TestExtensionInEveryEra(t *testing.T) {
	s, ts := legacyServer(t, Options{}, echoTool())
	if err := s.AddExtension(echoExtension()); err != nil {
		t.Fatal(err)
	}
	clientCaps := `{"extensions":{"x.example/echo":{"v":2}}}`

	legacy := newClient(t, ts)
	resp := legacy.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + clientCaps + `,"clientInfo":{"name":"t","version":"1"}}}`)
	init := jsonBody(t, resp)
	legacy.session, legacy.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	if got := string(init.Result); !strings.Contains(got, `"extensions":{"x.example/echo":{"loud":true}}`) {
		t.Errorf("initialize declares no extension: %s", got)
	}
	got := jsonBody(t, legacy.post(`{"jsonrpc":"2.0","id":1,"method":"echo/hello","params":{"a":1}}`))
	if want := `{"client":{"v":2},"declared":true,"params":{"a":1},"version":"2025-11-25"}`; string(got.Result) != want {
		t.Errorf("legacy echo/hello: %s (error %+v), want %s", got.Result, got.Error, want)
	}
	if e := jsonBody(t, legacy.post(`{"jsonrpc":"2.0","id":2,"method":"echo/fail"}`)).Error; e == nil || e.Code != CodeInvalidParams {
		t.Errorf("legacy echo/fail: %+v", e)
	}

	modern := modernServer(t, s)
	d := modern.call("server/discover", nil).result(t)
	if ext := jsonOf(d["capabilities"].(map[string]any)["extensions"]); ext != `{"x.example/echo":{"loud":true}}` {
		t.Errorf("server/discover extensions: %s", ext)
	}
	r := modern.call("echo/hello", map[string]any{"b": "c"}, withCaps(map[string]any{"extensions": map[string]any{echoExt: map[string]any{}}}))
	res := r.result(t)
	if res["resultType"] != "complete" || res["cacheScope"] != "private" || res["declared"] != true || jsonOf(res["params"]) != `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"x.example/echo":{}}},"io.modelcontextprotocol/clientInfo":{"name":"modern-test-client","version":"1.0.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"b":"c"}` {
		t.Errorf("modern echo/hello: %s", jsonOf(res))
	}
	if r := modern.call("echo/fail", nil); r.status != 200 || r.errCode(t) != CodeInvalidParams {
		t.Errorf("modern echo/fail: %d %s", r.status, r.body)
	}

	stdio := startStdio(t, s)
	stdio.send(`{"jsonrpc":"2.0","id":7,"method":"echo/hello","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if m := stdio.recv(); !strings.Contains(string(m.Result), `"declared":false`) || !strings.Contains(string(m.Result), `"resultType":"complete"`) {
		t.Errorf("stdio 2026-07-28 echo/hello: %s %+v", m.Result, m.Error)
	}
}

// TestExtensionVersions: an extension declared in 2026-07-28 only is
// absent from a legacy session's capabilities, and its methods are -32601
// there.
func TestExtensionVersions(t *testing.T) {
	s, ts := legacyServer(t, Options{}, echoTool())
	if err := s.AddExtension(echoExtension(Version20260728)); err != nil {
		t.Fatal(err)
	}
	legacy := newClient(t, ts)
	resp := legacy.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	init := jsonBody(t, resp)
	legacy.session, legacy.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	if strings.Contains(string(init.Result), "extensions") {
		t.Errorf("initialize declares a 2026-07-28 extension: %s", init.Result)
	}
	if e := jsonBody(t, legacy.post(`{"jsonrpc":"2.0","id":1,"method":"echo/hello"}`)).Error; e == nil || e.Code != CodeMethodNotFound {
		t.Errorf("legacy echo/hello of a 2026-07-28 extension: %+v", e)
	}
	if r := modernServer(t, s).call("echo/hello", nil); r.errCode(t) != 0 {
		t.Errorf("modern echo/hello: %s", r.body)
	}
}

// TestExtensionScopes: an extension's method is authorized by its own rule,
// like a tool: 403 with a challenge over HTTP in both eras, served with
// the scope.
func TestExtensionScopes(t *testing.T) {
	s, ts := legacyServer(t, authOptions("http://127.0.0.1:1/mcp"), whoTool("read", "mcp:read"))
	if err := s.AddExtension(echoExtension()); err != nil {
		t.Fatal(err)
	}
	modern := modernServer(t, s)
	r := modern.call("echo/secret", nil, withHeader("Authorization", "Bearer alice-read"))
	if r.status != http.StatusForbidden || !strings.Contains(r.header.Get("WWW-Authenticate"), `error_description="the echo secret requires scope echo:secret"`) {
		t.Errorf("modern echo/secret without its scope: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	if r := modern.call("echo/hello", nil, withHeader("Authorization", "Bearer alice-read")); r.errCode(t) != 0 {
		t.Errorf("modern echo/hello: %s", r.body)
	}
	legacy := newClient(t, ts)
	resp := legacy.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, bearer("alice-read"))
	legacy.session, legacy.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	if resp := legacy.post(`{"jsonrpc":"2.0","id":1,"method":"echo/secret"}`, bearer("alice-read")); resp.StatusCode != http.StatusForbidden {
		t.Errorf("legacy echo/secret without its scope: %d", resp.StatusCode)
	}
}

// panicExtension adds x/panics, whose Serve panics, x/rule-panics, whose
// Authorize panics, and x/ok, which answers.
func panicExtension() Extension {
	ok := func(context.Context, *MethodRequest) (*MethodResult, error) {
		return &MethodResult{Result: map[string]bool{"ok": true}}, nil
	}
	return Extension{ID: "x.example/panics", Methods: []Method{
		{Name: "x/panics", Authorize: NoScopes, Serve: func(context.Context, *MethodRequest) (*MethodResult, error) { panic("extension bug") }},
		{Name: "x/rule-panics", Authorize: func(context.Context, *MethodRequest) (string, []string, error) { panic("rule bug") }, Serve: ok},
		{Name: "x/ok", Authorize: NoScopes, Serve: ok},
	}}
}

// TestExtensionPanicIsAnswered: a panic in an extension's Serve is answered
// -32603 in every era and transport, with the same error, and the server
// serves on; the panic's text stays in the log.
func TestExtensionPanicIsAnswered(t *testing.T) {
	noLeaks(t)
	add := func(t *testing.T, s *Server) {
		if err := s.AddExtension(panicExtension()); err != nil {
			t.Fatal(err)
		}
	}
	transports := parityTransports(t, nil, add)
	checkParity(t, transports, "x/panics", nil, "-32603")
	checkParity(t, transports, "x/ok", nil, "result")
	for _, tr := range transports {
		if m := tr.send(t, 9, "x/panics", nil); m.Error == nil || strings.Contains(m.Error.Message, "extension bug") {
			t.Errorf("%s: the panic reached the client: %+v", tr.name, m.Error)
		}
	}
}

// TestExtensionRulePanicIsAnswered: a panic in an extension's Authorize is
// answered -32603 (with Options.Auth, where the rule runs) over HTTP, and
// the server serves on.
func TestExtensionRulePanicIsAnswered(t *testing.T) {
	leakCheck(t)
	s := NewServer(scopedOptions(Options{}))
	if err := s.AddExtension(panicExtension()); err != nil {
		t.Fatal(err)
	}
	ts := authedServer(t, s)
	for _, c := range eraClients(t, ts, s, "alice;") {
		for range 2 {
			if st, m := c.do(t, "x/rule-panics", nil); m.Error == nil || m.Error.Code != CodeInternalError || strings.Contains(m.Error.Message, "rule bug") {
				t.Errorf("%s: a panicking rule: %d %+v", c.name, st, m.Error)
			}
		}
		if _, m := c.do(t, "x/ok", nil); m.Error != nil {
			t.Errorf("%s: after the panics: %+v", c.name, m.Error)
		}
	}
}

// TestExtensionPanicInABatch: a 2025-03-26 batch whose calls panic in an
// extension's Serve is answered element by element, and the process lives.
func TestExtensionPanicInABatch(t *testing.T) {
	noLeaks(t)
	s, ts := legacyServer(t, Options{})
	if err := s.AddExtension(panicExtension()); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, ts)
	c.initialize(Version20250326, `{}`)
	resp := c.post(`[{"jsonrpc":"2.0","id":1,"method":"x/panics"},{"jsonrpc":"2.0","id":2,"method":"x/ok"},{"jsonrpc":"2.0","id":3,"method":"x/panics"}]`)
	var got []rpc
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	codes := map[string]int{}
	for _, m := range got {
		if m.Error != nil {
			codes[string(m.ID)] = m.Error.Code
		}
	}
	if len(got) != 3 || codes["1"] != CodeInternalError || codes["3"] != CodeInternalError || codes["2"] != 0 {
		t.Fatalf("batch answers %+v", got)
	}
}

// TestExtensionMethodsTakeASlot: an extension's method takes a slot of
// MaxConcurrentCalls (its caller's share) while it runs, so it is refused
// with -32004 past the bound; a Cheap one takes none.
func TestExtensionMethodsTakeASlot(t *testing.T) {
	leakCheck(t)
	running, release := make(chan struct{}), make(chan struct{})
	serve := func(ctx context.Context, req *MethodRequest) (*MethodResult, error) {
		if req.Method == "x/slow" {
			running <- struct{}{}
			<-release
		}
		return &MethodResult{Result: struct{}{}}, nil
	}
	s := NewServer(Options{MaxConcurrentCalls: 1, CallerShare: 1})
	t.Cleanup(func() { _ = s.Close() })
	if err := s.AddExtension(Extension{ID: "x.example/slots", Methods: []Method{
		{Name: "x/slow", Authorize: NoScopes, Serve: serve},
		{Name: "x/fast", Authorize: NoScopes, Serve: serve},
		{Name: "x/cheap", Authorize: NoScopes, Serve: serve, Cheap: true},
	}}); err != nil {
		t.Fatal(err)
	}
	c := modernServer(t, s)
	done := make(chan *modernResp, 1)
	go func() { done <- c.call("x/slow", nil) }()
	<-running
	if r := c.call("x/fast", nil); r.errCode(t) != CodeLimitExceeded || r.status != http.StatusTooManyRequests {
		t.Errorf("a second method past MaxConcurrentCalls: %d %s", r.status, r.body)
	}
	if r := c.call("x/cheap", nil); r.errCode(t) != 0 {
		t.Errorf("a cheap method past MaxConcurrentCalls: %s", r.body)
	}
	close(release)
	if r := <-done; r.errCode(t) != 0 {
		t.Errorf("the slow method: %s", r.body)
	}
	if r := c.call("x/fast", nil); r.errCode(t) != 0 {
		t.Errorf("after the slot came back: %s", r.body)
	}
}
