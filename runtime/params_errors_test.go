package runtime_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpgen/mcpgen/ext/apps"
	"github.com/mcpgen/mcpgen/ext/skills"
	"github.com/mcpgen/mcpgen/ext/tasks"
	"github.com/mcpgen/mcpgen/internal/wiretest"
	"github.com/mcpgen/mcpgen/runtime"
)

// A client that sends a params member of the wrong JSON type reads -32602
// naming the member and the types, never the server's Go types,
// encoding/json's words or an address, in every method the server offers,
// core and extension, in both eras.

// wrongParams are, per method, params with one member of the wrong type:
// a number for a string, an object for an array, a string for an object,
// a wrong type two levels down, and null for a required member. eras
// says where the method is served ("legacy", "modern" or both).
var wrongParams = map[string]struct {
	eras  []string
	cases []map[string]any
}{
	"initialize":       {eras: []string{"none"}}, // before a session: TestWrongParamsInInitialize
	"ping":             {eras: legacy},           // no members
	"logging/setLevel": {eras: legacy, cases: []map[string]any{{"level": 3}, {"level": map[string]any{}}, {"level": nil}}},
	"server/discover":  {eras: modern}, // no members
	"subscriptions/listen": {eras: modern, cases: []map[string]any{
		{"notifications": "all"},
		{"notifications": map[string]any{"toolsListChanged": "yes"}},
		{"notifications": map[string]any{"resourceSubscriptions": map[string]any{}}},
		{"notifications": map[string]any{"resourceSubscriptions": []any{"file:///a", 7}}},
	}},
	"tools/list":               {eras: both, cases: cursorCases},
	"prompts/list":             {eras: both, cases: cursorCases},
	"resources/list":           {eras: both, cases: cursorCases},
	"resources/templates/list": {eras: both, cases: cursorCases},
	"tools/call": {eras: both, cases: []map[string]any{
		{"name": 5, "arguments": map[string]any{}},
		{"name": map[string]any{}, "arguments": map[string]any{}},
		{"name": nil},
		{"name": "echo", "arguments": "text"},
		{"name": "echo", "arguments": []any{"x"}},
		{"name": "echo", "arguments": map[string]any{"text": 5}},
		{"name": "echo", "arguments": map[string]any{"text": map[string]any{"deep": []any{1}}}},
	}},
	"prompts/get": {eras: both, cases: []map[string]any{
		{"name": 5}, {"name": nil}, {"name": "greet", "arguments": "x"},
		{"name": "greet", "arguments": map[string]any{"who": 5}},
		{"name": "greet", "arguments": map[string]any{"who": map[string]any{"x": 1}}},
	}},
	"resources/read":        {eras: both, cases: uriCases},
	"resources/subscribe":   {eras: legacy, cases: uriCases},
	"resources/unsubscribe": {eras: legacy, cases: uriCases},
	"completion/complete": {eras: both, cases: []map[string]any{
		{"ref": "ref/prompt", "argument": map[string]any{"name": "who", "value": "a"}},
		{"ref": map[string]any{"type": "ref/prompt", "name": 5}, "argument": map[string]any{"name": "who", "value": "a"}},
		{"ref": map[string]any{"type": "ref/prompt", "name": "greet"}, "argument": map[string]any{"name": 1, "value": "a"}},
		{"ref": map[string]any{"type": "ref/prompt", "name": "greet"}, "argument": []any{}},
		{"ref": map[string]any{"type": "ref/prompt", "name": "greet"}, "argument": map[string]any{"name": "who", "value": "a"}, "context": map[string]any{"arguments": map[string]any{"x": 1}}},
		{"ref": nil, "argument": nil},
	}},
	"tasks/get":    {eras: both, cases: taskIDCases},
	"tasks/cancel": {eras: both, cases: taskIDCases},
	"tasks/result": {eras: legacy, cases: taskIDCases},
	"tasks/list":   {eras: legacy, cases: cursorCases},
	"tasks/update": {eras: modern, cases: append([]map[string]any{
		{"taskId": "t", "inputResponses": "x"},
		{"taskId": "t", "inputResponses": []any{}},
		{"taskId": "t", "inputResponses": nil},
	}, taskIDCases...)},
	"skills/list": {eras: both, cases: cursorCases},
	"skills/get": {eras: both, cases: append([]map[string]any{
		{"uri": "skill://reports/SKILL.md", "cursor": 1},
	}, uriCases...)},
	"resources/directory/read": {eras: both, cases: append([]map[string]any{
		{"uri": "skill://reports", "cursor": []any{}},
	}, uriCases...)},
}

var (
	both   = []string{"legacy", "modern"}
	legacy = []string{"legacy"}
	modern = []string{"modern"}

	cursorCases = []map[string]any{{"cursor": 1}, {"cursor": map[string]any{}}, {"cursor": []any{"a"}}, {"cursor": true}}
	uriCases    = []map[string]any{{"uri": 1}, {"uri": map[string]any{"href": "x"}}, {"uri": []any{}}, {"uri": nil}}
	taskIDCases = []map[string]any{{"taskId": 1}, {"taskId": map[string]any{}}, {"taskId": nil}}
)

// leaks are what no error message a client reads may hold.
var leaks = regexp.MustCompile(`Go struct|json:|(?i:unmarshal)|\b(main|runtime|tasks|skills|apps|servercard|redisstore)\.[A-Za-z]|\*[A-Za-z]|map\[|\[\][a-z]|interface \{|127\.0\.0\.1|localhost|dial tcp|connection refused`)

// paramsServer is a server with a tool, a task tool, a prompt with a
// completion, a resource, a template, skills and apps.
func paramsServer(t *testing.T) *runtime.Server {
	t.Helper()
	s := runtime.NewServer(runtime.Options{Name: "params-test"})
	t.Cleanup(func() { _ = s.Close() })
	if err := tasks.Enable(s); err != nil {
		t.Fatal(err)
	}
	if err := apps.Enable(s); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: reports\ndescription: Daily reports.\n---\n"
	digest := func(s string) string { sum := sha256.Sum256([]byte(s)); return "sha256:" + hex.EncodeToString(sum[:]) }
	fsys := fstest.MapFS{"skills/reports/SKILL.md": {Data: []byte(md)}, "skills/reports/a/b.md": {Data: []byte("# b\n")}}
	if err := skills.Register(s, []skills.Skill{{Path: "reports", Frontmatter: json.RawMessage(`{"name":"reports","description":"Daily reports."}`),
		FS: fsys, Dir: "skills/reports", Files: []skills.File{{Path: "SKILL.md", MIMEType: "text/markdown", Size: int64(len(md)), Digest: digest(md)},
			{Path: "a/b.md", MIMEType: "text/markdown", Size: 4, Digest: digest("# b\n")}}}},
		skills.Options{DirectoryRead: true}); err != nil {
		t.Fatal(err)
	}
	echo := func(_ context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
		return runtime.ContentResult(call, []runtime.Content{runtime.Text(string(args))}), nil
	}
	for _, tool := range []runtime.Tool{
		{Name: "echo", Handler: echo, Definition: json.RawMessage(`{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}`)},
		{Name: "slow", Handler: echo, Definition: json.RawMessage(`{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}`)},
	} {
		if err := s.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	complete := func(context.Context, runtime.CompletionRequest) (*runtime.Completion, error) {
		return &runtime.Completion{Values: []string{"a"}}, nil
	}
	if err := s.AddPrompt(runtime.Prompt{Name: "greet", Definition: json.RawMessage(`{"name":"greet","arguments":[{"name":"who","required":true}]}`),
		Complete: map[string]runtime.CompletionHandler{"who": complete},
		Handler: func(context.Context, *runtime.Call, map[string]string) (*runtime.PromptResult, error) {
			return &runtime.PromptResult{}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	read := func(_ context.Context, _ *runtime.Call, uri string) (*runtime.ResourceResult, error) {
		return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: uri, Text: "x"}}}, nil
	}
	if err := s.AddResource(runtime.Resource{URI: "file:///a", Definition: json.RawMessage(`{"uri":"file:///a","name":"a"}`), Handler: read}); err != nil {
		t.Fatal(err)
	}
	return s
}

// checkError fails unless m is an error a client may read: -32602 when
// strict (or any code when the params were acceptable, e.g. a null
// cursor), with no leak in its message.
func checkError(t *testing.T, what string, m wiretest.Message, strict bool) {
	t.Helper()
	if m.Error == nil && bytes.Contains(m.Result, []byte(`"isError":true`)) && strings.Contains(what, " tools/call ") {
		// Arguments that do not match the inputSchema are the tool's
		// error (isError), which the model reads: the same words apply.
		if leaks.Match(m.Result) {
			t.Errorf("%s: the isError result leaks: %s", what, m.Result)
		}
		return
	}
	if m.Error == nil {
		if strict {
			t.Errorf("%s: no error, result %s", what, m.Result)
		}
		return
	}
	if leaks.MatchString(m.Error.Message) || m.Error.Data != nil && leaks.MatchString(toJSON(m.Error.Data)) {
		t.Errorf("%s: the message leaks: %q (data %v)", what, m.Error.Message, m.Error.Data)
	}
	if m.Error.Code != runtime.CodeInvalidParams {
		t.Errorf("%s: code %d %q, want -32602", what, m.Error.Code, m.Error.Message)
	}
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestWrongParamsInEveryMethod sends each method wrong-typed params in a
// 2025-11-25 HTTP session and in 2026-07-28 requests.
func TestWrongParamsInEveryMethod(t *testing.T) {
	s := paramsServer(t)
	served := runtime.ServedMethods(s)
	for _, m := range served {
		if _, ok := wrongParams[m]; !ok {
			t.Errorf("the server serves %s, which wrongParams has no cases for", m)
		}
	}
	url := serveLoopback(t, s)
	conns := map[string]*wiretest.Conn{
		"legacy": wiretest.LegacyHTTP(t, url, runtime.Version20251125, `{"elicitation":{}}`, wiretest.Options{}),
		"modern": wiretest.ModernHTTP(t, url, map[string]any{"extensions": map[string]any{tasks.ExtensionID: map[string]any{}}}, wiretest.Options{}),
	}
	sent := 0
	for _, method := range served {
		w := wrongParams[method]
		for _, era := range w.eras {
			c := conns[era]
			if c == nil {
				continue
			}
			for _, p := range w.cases {
				what := c.Name + " " + method + " " + toJSON(p)
				nullOnly := true
				for _, v := range p {
					if v != nil {
						nullOnly = false
					}
				}
				m := c.Call(t, method, p)
				checkError(t, what, m, !nullOnly || requiredNull(method))
				if m.Error != nil && !namesAMember(m.Error.Message, p) {
					t.Errorf("%s: the message names none of the members sent: %q", what, m.Error.Message)
				}
				sent++
			}
		}
	}
	// 2025-11-25's task augmentation of tools/call (ext/tasks).
	for _, p := range []map[string]any{
		{"name": "slow", "arguments": map[string]any{}, "task": "soon"},
		{"name": "slow", "arguments": map[string]any{}, "task": map[string]any{"ttl": "60000"}},
	} {
		m := conns["legacy"].Call(t, "tools/call", p)
		checkError(t, "2025-11-25 HTTP tools/call "+toJSON(p), m, true)
		if m.Error != nil && !namesAMember(m.Error.Message, map[string]any{"task": nil}) {
			t.Errorf("tools/call %s: the message does not name task: %q", toJSON(p), m.Error.Message)
		}
		sent++
	}
	if sent < 100 {
		t.Fatalf("only %d requests sent", sent)
	}
}

// namesAMember reports whether msg names a member of p (or, for a member
// nested in one, that one's name).
func namesAMember(msg string, p map[string]any) bool {
	for k := range p {
		if strings.Contains(msg, k) {
			return true
		}
	}
	return false
}

// requiredNull: null for every member sent is refused, since they are
// required.
func requiredNull(method string) bool {
	return !slices.Contains([]string{"ping", "server/discover", "logging/setLevel"}, method) && !strings.HasSuffix(method, "/list")
}

// TestWrongParamsInInitialize: initialize, which opens a session, words
// its members' types the same way.
func TestWrongParamsInInitialize(t *testing.T) {
	url := serveLoopback(t, paramsServer(t))
	for _, p := range []map[string]any{
		{"protocolVersion": 20251125, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "1"}},
		{"protocolVersion": runtime.Version20251125, "capabilities": "all", "clientInfo": map[string]any{"name": "c", "version": "1"}},
		{"protocolVersion": runtime.Version20251125, "capabilities": map[string]any{}, "clientInfo": "c"},
		{"protocolVersion": map[string]any{}, "capabilities": map[string]any{}},
		{"protocolVersion": nil, "capabilities": map[string]any{}},
	} {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": p})
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r := wiretest.NewSSE(resp.Body)
		var m wiretest.Message
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			_ = json.NewDecoder(resp.Body).Decode(&m)
		} else {
			m, _ = r.Next()
		}
		resp.Body.Close()
		checkError(t, "initialize "+toJSON(p), m, true)
	}
}
