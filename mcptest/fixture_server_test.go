package mcptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// ledger is the state of the fixture server: what its tools did, so that
// tests can assert on effects the way users assert on their stores.
type ledger struct {
	mu       sync.Mutex
	payments []string // one entry per payment made
	attempts int      // pay handler runs, incremented before its question (the pitfall)
	signedIn bool     // the user completed the login URL (require_login)
}

func (l *ledger) record(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
}

var confirmForm = &runtime.Elicitation{Name: "confirm", Mode: "form", Message: "Sure?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}

var amountForm = &runtime.Elicitation{Name: "amount", Mode: "form", Message: "How much?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"cents":{"type":"integer","minimum":1}},"required":["cents"]}`)}

var loginForm = &runtime.Elicitation{Name: "login", Mode: "url", Message: "Sign in"}

// fixtureForms are the forms as a generated test package declares them.
var fixtureForms = []struct{ name, mode, schema string }{
	{"confirm", "form", string(confirmForm.RequestedSchema)},
	{"amount", "form", string(amountForm.RequestedSchema)},
	{"login", "url", ""},
}

type confirmAnswer struct {
	OK bool `json:"ok"`
}

func tool(name, schema string, forms []*runtime.Elicitation, h runtime.ToolHandler) runtime.Tool {
	return runtime.Tool{Name: name, Definition: json.RawMessage(fmt.Sprintf(`{"name":%q,"inputSchema":%s}`, name, schema)),
		Elicitations: forms, Handler: h}
}

const noArgs = `{"type":"object"}`

// newFixtureServer serves tools that exercise every kind of question and
// notification, and the ledger they act on.
func newFixtureServer(t testing.TB, l *ledger) *runtime.Server {
	t.Helper()
	s := runtime.NewServer(runtime.Options{Name: "fixture", Version: "1"})
	text := func(call *runtime.Call, s string) (*runtime.ToolResult, error) {
		return runtime.ContentResult(call, []runtime.Content{runtime.Text(s)}), nil
	}
	tools := []runtime.Tool{
		// pay asks confirm, then pays; it counts its runs before asking.
		tool("pay", `{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}`, []*runtime.Elicitation{confirmForm},
			func(ctx context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
				var in struct{ To string }
				_ = json.Unmarshal(args, &in)
				l.record(func() { l.attempts++ })
				var a confirmAnswer
				switch err := call.Elicit(ctx, confirmForm, "Pay "+in.To+"?", &a); {
				case errors.Is(err, runtime.ErrDeclined):
					return text(call, "declined")
				case errors.Is(err, runtime.ErrCancelled):
					return text(call, "cancelled")
				case err != nil:
					return nil, err
				case !a.OK:
					return text(call, "not confirmed")
				}
				l.record(func() { l.payments = append(l.payments, in.To) })
				return text(call, "paid "+in.To)
			}),
		// split asks confirm twice and amount once: keys confirm, amount, confirm_2.
		tool("split", noArgs, []*runtime.Elicitation{confirmForm, amountForm},
			func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
				var first, second confirmAnswer
				var amt struct{ Cents int }
				if err := call.Elicit(ctx, confirmForm, "first?", &first); err != nil {
					return nil, err
				}
				if err := call.Elicit(ctx, amountForm, "", &amt); err != nil {
					return nil, err
				}
				if err := call.Elicit(ctx, confirmForm, "second?", &second); err != nil {
					return nil, err
				}
				return text(call, fmt.Sprintf("%v %d %v", first.OK, amt.Cents, second.OK))
			}),
		// ask_model samples and lists roots.
		tool("ask_model", noArgs, nil, func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			res, err := call.CreateMessage(ctx, runtime.UserText("hello?", 10))
			if err != nil {
				return nil, err
			}
			roots, err := call.ListRoots(ctx)
			if err != nil {
				return nil, err
			}
			var c struct{ Text string }
			_ = json.Unmarshal(res.Content, &c)
			return text(call, fmt.Sprintf("%s from %s, %d roots", c.Text, res.Model, len(roots)))
		}),
		// chatty reports progress and logs.
		tool("chatty", noArgs, nil, func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			for i := range 3 {
				if err := call.Progress(ctx, float64(i*50), 100, "step"); err != nil {
					return nil, err
				}
			}
			if err := call.Log(ctx, runtime.LevelInfo, "chatty", "hello"); err != nil {
				return nil, err
			}
			return text(call, "done")
		}),
		// sign_in sends the user to a URL.
		tool("sign_in", noArgs, []*runtime.Elicitation{loginForm},
			func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
				if err := call.ElicitURL(ctx, loginForm, "", "https://example.com/login"); err != nil {
					return nil, err
				}
				return text(call, "signed in")
			}),
		// require_login ends the call until the user signed in at a URL:
		// -32042 in a session, an input_required round in 2026-07-28.
		tool("require_login", noArgs, []*runtime.Elicitation{loginForm},
			func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
				var signedIn bool
				l.record(func() { signedIn = l.signedIn })
				if signedIn {
					return text(call, "welcome back")
				}
				h, err := call.NewURLElicitation(loginForm)
				if err != nil {
					return nil, err
				}
				return nil, call.RequireURL(runtime.URLNeed{Elicitation: h, URL: "https://example.com/login?id=" + h.ID()})
			}),
		// scoped mirrors arguments into Mcp-Param-* headers (2026-07-28 HTTP).
		tool("scoped", `{"type":"object","properties":{"tenant":{"type":"string","x-mcp-header":"tenant_id"},`+
			`"n":{"type":"integer","x-mcp-header":"N"},"ok":{"type":"boolean","x-mcp-header":"ok"}},"required":["tenant"]}`, nil,
			func(ctx context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
				return text(call, string(args))
			}),
		// change announces a tool list change and a resource update.
		tool("change", noArgs, nil, func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			s.NotifyToolListChanged()
			s.NotifyResourceUpdated("memo://today")
			return text(call, "changed")
		}),
		// fail fails the way handlers do.
		tool("fail", noArgs, nil, func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			return nil, errors.New("it broke")
		}),
	}
	for _, tl := range tools {
		if err := s.AddTool(tl); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddResource(runtime.Resource{URI: "memo://today", Definition: json.RawMessage(`{"uri":"memo://today","name":"today"}`),
		Handler: func(ctx context.Context, call *runtime.Call, uri string) (*runtime.ResourceResult, error) {
			return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: uri, Text: "buy milk"}}}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResourceTemplate(runtime.ResourceTemplate{URITemplate: "memo://{owner}/notes{/path*}{?rev}",
		Definition: json.RawMessage(`{"uriTemplate":"memo://{owner}/notes{/path*}{?rev}","name":"notes"}`),
		Handler: func(ctx context.Context, call *runtime.Call, uri string, vars runtime.URIVars) (*runtime.ResourceResult, error) {
			b, _ := json.Marshal(vars)
			return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: uri, Text: string(b)}}}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPrompt(runtime.Prompt{Name: "greet",
		Definition: json.RawMessage(`{"name":"greet","arguments":[{"name":"who","required":true}]}`),
		Handler: func(ctx context.Context, call *runtime.Call, args map[string]string) (*runtime.PromptResult, error) {
			return &runtime.PromptResult{Messages: []runtime.PromptMessage{runtime.UserMessage(runtime.Text("hello " + args["who"]))}}, nil
		},
		Complete: map[string]runtime.CompletionHandler{"who": func(ctx context.Context, req runtime.CompletionRequest) (*runtime.Completion, error) {
			return &runtime.Completion{Values: []string{req.Value + "ld"}}, nil
		}}}); err != nil {
		t.Fatal(err)
	}
	return s
}
