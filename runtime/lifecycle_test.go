package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func echoTool() Tool {
	return toolOf("echo", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`,
		func(ctx context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
			var in struct{ Text string }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return ContentResult(call, []Content{Text(in.Text)}), nil
		})
}

func TestInitializeNegotiatesVersion(t *testing.T) {
	_, ts := legacyServer(t, Options{Name: "srv", Version: "1.2.3"})
	for _, tc := range []struct{ asked, want string }{
		{Version20250326, Version20250326},
		{Version20250618, Version20250618},
		{Version20251125, Version20251125},
		{"2024-11-05", Version20251125},
	} {
		c := newClient(t, ts)
		c.initialize(tc.asked, `{}`)
		if c.version != tc.want {
			t.Errorf("asked %s: got %s, want %s", tc.asked, c.version, tc.want)
		}
		if len(c.session) != 32 {
			t.Errorf("session id %q", c.session)
		}
	}
	c := newClient(t, ts)
	resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	m := jsonBody(t, resp)
	var r struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   struct{ Name, Version string }
	}
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	// Capabilities follow registration: no tools, no prompts, no resources.
	if len(r.Capabilities) != 1 || r.Capabilities["logging"] == nil {
		t.Errorf("capabilities %s", m.Result)
	}
	if r.ServerInfo.Name != "srv" || r.ServerInfo.Version != "1.2.3" {
		t.Errorf("serverInfo %s", m.Result)
	}
}

func TestToolsCallJSONWhenNothingElseIsSent(t *testing.T) {
	_, ts := legacyServer(t, Options{}, echoTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	m := jsonBody(t, c.post(callBody(7, "echo", `{"text":"hi"}`)))
	if string(m.ID) != "7" || resultText(t, m) != "hi" {
		t.Fatalf("got %+v", m)
	}
	// Input validation failure is an isError result the model can read.
	m = jsonBody(t, c.post(callBody(8, "echo", `{"txt":"hi"}`)))
	if got := resultText(t, m); !strings.HasPrefix(got, "ERROR: invalid arguments") || !strings.Contains(got, "text") {
		t.Fatalf("got %q", got)
	}
	// Unknown tool is -32602.
	m = jsonBody(t, c.post(callBody(9, "nope", `{}`)))
	if m.Error == nil || m.Error.Code != CodeInvalidParams || string(m.ID) != "9" {
		t.Fatalf("got %+v", m)
	}
	m = jsonBody(t, c.post(`{"jsonrpc":"2.0","id":"p","method":"ping"}`))
	if string(m.Result) != "{}" || string(m.ID) != `"p"` {
		t.Fatalf("ping: %+v", m)
	}
}

func TestToolsListPagination(t *testing.T) {
	tools := []Tool{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		tools = append(tools, toolOf(n, `{"type":"object"}`, func(context.Context, *Call, json.RawMessage) (*ToolResult, error) { return nil, nil }))
	}
	_, ts := legacyServer(t, Options{PageSize: 2}, tools...)
	c := newClient(t, ts)
	c.initialize(Version20250618, `{}`)
	var names []string
	cursor := ""
	for pages := 0; ; pages++ {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`+params+`}`))
		var r struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(m.Result, &r); err != nil {
			t.Fatal(err)
		}
		for _, tl := range r.Tools {
			names = append(names, tl.Name)
		}
		if r.NextCursor == "" {
			break
		}
		cursor = r.NextCursor
		if pages > 5 {
			t.Fatal("too many pages")
		}
	}
	if strings.Join(names, ",") != "a,b,c,d,e" {
		t.Fatalf("names %v", names)
	}
	m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"garbage!"}}`))
	if m.Error == nil || m.Error.Code != CodeInvalidParams || string(m.ID) != "2" {
		t.Fatalf("bad cursor: %+v", m)
	}
}

func TestDeleteEndsSession(t *testing.T) {
	_, ts := legacyServer(t, Options{})
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	resp := c.do(c.request(http.MethodDelete, ""))
	if resp.StatusCode != 200 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	resp = c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != 404 {
		t.Fatalf("after DELETE: %d", resp.StatusCode)
	}
	if m := jsonBody(t, resp); string(m.ID) != "1" || m.Error == nil {
		t.Fatalf("body %+v", m)
	}
}

// TestSetLogLevel: logging/setLevel sets the session's threshold for the
// notifications/message its calls send; a level that is not one is
// -32602.
func TestSetLogLevel(t *testing.T) {
	logs := toolOf("logs", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		_ = call.Log(ctx, LevelDebug, "t", "quiet")
		_ = call.Log(ctx, LevelWarning, "t", "loud")
		return ContentResult(call, []Content{Text("ok")}), nil
	})
	_, ts := legacyServer(t, Options{}, logs)
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	if m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"loud"}}`)); m.Error == nil || m.Error.Code != CodeInvalidParams {
		t.Fatalf("a level that is none: %+v", m.Error)
	}
	if m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`)); m.Error != nil || string(m.Result) != "{}" {
		t.Fatalf("setLevel info: %s %+v", m.Result, m.Error)
	}
	ch := events(t, c.post(callBody(3, "logs", `{}`)))
	if ev := next(t, ch); ev.msg.Method != "notifications/message" || !strings.Contains(string(ev.msg.Params), "loud") {
		t.Fatalf("first message %+v", ev.msg)
	}
	if ev := next(t, ch); resultText(t, ev.msg) != "ok" {
		t.Fatalf("after the warning: %+v", ev.msg)
	}
}
