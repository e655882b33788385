package mcptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// declare tells c the fixture's forms, as a generated test package does.
func declare(c *mcptest.Client) {
	for _, f := range fixtureForms {
		c.DeclareForms(mcptest.Form{Name: f.name, Mode: f.mode, RequestedSchema: json.RawMessage(f.schema)})
	}
}

// run runs body in both eras over in-process HTTP and over in-process
// stdio, each with a fresh fixture server and ledger.
func run(t *testing.T, body func(t *testing.T, c *mcptest.Client, l *ledger), opts ...mcptest.Option) {
	for _, transport := range []struct {
		name string
		opts []mcptest.Option
	}{{"http", nil}, {"stdio", []mcptest.Option{mcptest.OverStdio()}}} {
		t.Run(transport.name, func(t *testing.T) {
			var l *ledger
			newServer := func(t *testing.T) *runtime.Server {
				l = &ledger{}
				return newFixtureServer(t, l)
			}
			mcptest.Run(t, newServer, func(t *testing.T, c *mcptest.Client) {
				declare(c)
				body(t, c, l)
			}, append(append([]mcptest.Option(nil), transport.opts...), opts...)...)
		})
	}
}

func callText(t *testing.T, c *mcptest.Client, tool string, args any) string {
	t.Helper()
	res, err := c.CallTool(t.Context(), tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Content.Text()
}

func TestElicitationAnswers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		script   func(c *mcptest.Client)
		want     string
		payments int
	}{
		{"accepted", func(c *mcptest.Client) { c.Accept("confirm", confirmAnswer{OK: true}) }, "paid bob", 1},
		{"accepted as a map", func(c *mcptest.Client) { c.Accept("confirm", map[string]any{"ok": true}) }, "paid bob", 1},
		{"accepted unconfirmed", func(c *mcptest.Client) { c.Accept("confirm", confirmAnswer{}) }, "not confirmed", 0},
		{"declined", func(c *mcptest.Client) { c.Decline("confirm") }, "declined", 0},
		{"cancelled", func(c *mcptest.Client) { c.Cancel("confirm") }, "cancelled", 0},
		{"answered by a function", func(c *mcptest.Client) {
			c.OnElicit("confirm", func(ctx context.Context, q *mcptest.Question) (mcptest.ElicitResult, error) {
				return mcptest.ElicitResult{Action: "accept", Content: confirmAnswer{OK: q.Message == "Pay bob?" && q.Key == "confirm"}}, nil
			})
		}, "paid bob", 1},
		{"answered by the catch-all", func(c *mcptest.Client) { c.Decline("") }, "declined", 0},
		{"forms declared twice", func(c *mcptest.Client) { declare(c); c.Cancel("confirm") }, "cancelled", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
				tc.script(c)
				if got := callText(t, c, "pay", map[string]string{"to": "bob"}); got != tc.want {
					t.Errorf("pay: %q, want %q", got, tc.want)
				}
				if len(l.payments) != tc.payments {
					t.Errorf("payments %v, want %d", l.payments, tc.payments)
				}
			})
		})
	}
}

// A form asked twice by one call gets the keys the runtime gives it in
// 2026-07-28 (confirm, confirm_2), in a session too; a key's answer wins
// over its form's.
func TestRepeatedQuestionsAreKeyed(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		c.Accept("confirm", confirmAnswer{OK: true})
		c.Accept("confirm_2", confirmAnswer{OK: false})
		c.Accept("amount", map[string]int{"cents": 5})
		if got := callText(t, c, "split", nil); got != "true 5 false" {
			t.Errorf("split: %q", got)
		}
	})
}

func TestUnansweredQuestions(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		_, err := c.CallTool(t.Context(), "pay", map[string]string{"to": "bob"})
		var u *mcptest.UnansweredError
		if !errors.As(err, &u) {
			t.Fatalf("pay without an answer: %v, want an UnansweredError", err)
		}
		if u.Question.Form != "confirm" || u.Question.Key != "confirm" || u.Question.Request != "tools/call pay" {
			t.Errorf("question %+v", u.Question)
		}
		for _, want := range []string{"tools/call pay asked elicitation confirm", `"Pay bob?"`, `Cancel("confirm")`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q lacks %q", err, want)
			}
		}
		if len(l.payments) != 0 {
			t.Errorf("paid without an answer: %v", l.payments)
		}

		_, err = c.CallTool(t.Context(), "ask_model", nil)
		if !errors.As(err, &u) || u.Question.Method != "sampling/createMessage" || !strings.Contains(err.Error(), "OnSampling") {
			t.Errorf("ask_model without a sampling answer: %v", err)
		}
		c.OnSampling(func(context.Context, *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
			return &runtime.SamplingResult{Role: "assistant", Content: json.RawMessage(`{"type":"text","text":"hi"}`), Model: "m"}, nil
		})
		_, err = c.CallTool(t.Context(), "ask_model", nil)
		if !errors.As(err, &u) || u.Question.Method != "roots/list" || !strings.Contains(err.Error(), "SetRoots") {
			t.Errorf("ask_model without roots: %v", err)
		}
	})
}

func TestSamplingAndRoots(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		var asked string
		c.OnSampling(func(_ context.Context, req *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
			asked = string(req.Messages[0].Content)
			return &runtime.SamplingResult{Role: "assistant", Content: json.RawMessage(`{"type":"text","text":"hi"}`), Model: "m"}, nil
		})
		c.SetRoots(runtime.Root{URI: "file:///a"}, runtime.Root{URI: "file:///b"})
		if got := callText(t, c, "ask_model", nil); got != "hi from m, 2 roots" {
			t.Errorf("ask_model: %q", got)
		}
		if !strings.Contains(asked, "hello?") {
			t.Errorf("the sampling request: %s", asked)
		}
	})
}

func TestProgressAndLogs(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		if got := callText(t, c, "chatty", nil); got != "done" {
			t.Fatalf("chatty: %q", got)
		}
		var got []float64
		for _, p := range c.Progress() {
			got = append(got, p.Progress)
			if p.Total != 100 || p.Message != "step" || p.Request != "tools/call chatty" {
				t.Errorf("progress %+v", p)
			}
		}
		if !reflect.DeepEqual(got, []float64{0, 50, 100}) {
			t.Errorf("progress %v", got)
		}
		logs := c.Logs()
		if len(logs) != 1 || logs[0].Level != runtime.LevelInfo || string(logs[0].Data) != `"hello"` || logs[0].Logger != "chatty" {
			t.Errorf("logs %+v", logs)
		}
	}, mcptest.LogLevel(runtime.LevelInfo))
}

// Without LogLevel the client asks for no logs, and the server sends none.
func TestNoLogsUnlessAsked(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		callText(t, c, "chatty", nil)
		if logs := c.Logs(); len(logs) != 0 {
			t.Errorf("logs %+v", logs)
		}
	})
}

func TestURLElicitation(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		var opened string
		c.OnElicit("login", func(_ context.Context, q *mcptest.Question) (mcptest.ElicitResult, error) {
			opened = q.URL
			return mcptest.ElicitResult{Action: "accept"}, nil
		})
		if got := callText(t, c, "sign_in", nil); got != "signed in" {
			t.Errorf("sign_in: %q", got)
		}
		if opened != "https://example.com/login" {
			t.Errorf("the URL the user was sent to: %q", opened)
		}
		c.Decline("login")
		res, err := c.CallTool(t.Context(), "sign_in", nil)
		if err != nil || !strings.Contains(res.Content.Text(), "declined") {
			t.Errorf("sign_in declined: %v %+v", err, res)
		}
	})
}

func TestListenAndSubscribe(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		if err := c.Listen(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := c.Subscribe(t.Context(), "memo://today"); err != nil {
			t.Fatal(err)
		}
		callText(t, c, "change", nil)
		if _, err := c.WaitFor(t.Context(), "notifications/tools/list_changed"); err != nil {
			t.Error(err)
		}
		n, err := c.WaitFor(t.Context(), "notifications/resources/updated")
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ URI string }
		if json.Unmarshal(n.Params, &p); p.URI != "memo://today" {
			t.Errorf("resources/updated %s", n.Params)
		}
	})
}

func TestToolErrorsAndRPCErrors(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		res, err := c.CallTool(t.Context(), "fail", nil)
		if err != nil {
			t.Fatal(err)
		}
		var te *mcptest.ToolError
		if err := res.Err(); !errors.As(err, &te) || te.Tool != "fail" || !strings.Contains(err.Error(), "it broke") {
			t.Errorf("fail: %v", err)
		}
		_, err = c.CallTool(t.Context(), "no_such_tool", nil)
		var rpc *runtime.Error
		if !errors.As(err, &rpc) || rpc.Code != runtime.CodeInvalidParams {
			t.Errorf("an unknown tool: %v", err)
		}
		_, err = c.ReadResource(t.Context(), "memo://nowhere")
		want := runtime.CodeResourceNotFound
		if c.Era() == mcptest.Modern {
			want = runtime.CodeInvalidParams
		}
		if !errors.As(err, &rpc) || rpc.Code != want {
			t.Errorf("an unknown resource: %v, want code %d", err, want)
		}
	})
}

func TestPromptsResourcesAndCompletion(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		ctx := t.Context()
		p, err := c.GetPrompt(ctx, "greet", map[string]string{"who": "world"})
		if err != nil || p.Text() != "hello world" || p.Messages[0].Role != runtime.RoleUser {
			t.Errorf("greet: %v %+v", err, p)
		}
		done, err := c.Complete(ctx, mcptest.PromptRef("greet"), "who", "wor", nil)
		if err != nil || !reflect.DeepEqual(done.Values, []string{"world"}) {
			t.Errorf("completion: %v %+v", err, done)
		}
		r, err := c.ReadResource(ctx, "memo://today")
		if err != nil || r.Text() != "buy milk" {
			t.Errorf("memo://today: %v %+v", err, r)
		}
		uri, err := mcptest.ExpandURITemplate("memo://{owner}/notes{/path*}{?rev}",
			map[string][]string{"owner": {"ann lee"}, "path": {"a", "b c"}, "rev": {"7"}})
		if err != nil {
			t.Fatal(err)
		}
		r, err = c.ReadResource(ctx, uri)
		if err != nil {
			t.Fatal(err)
		}
		var vars map[string][]string
		if err := json.Unmarshal([]byte(r.Text()), &vars); err != nil {
			t.Fatal(err)
		}
		if want := map[string][]string{"owner": {"ann lee"}, "path": {"a", "b c"}, "rev": {"7"}}; !reflect.DeepEqual(vars, want) {
			t.Errorf("the template matched %v from %s, want %v", vars, uri, want)
		}
		tools, err := c.ListTools(ctx)
		if err != nil || len(tools) != 9 || tools[0].Name != "pay" {
			t.Errorf("tools/list: %v %+v", err, tools)
		}
		prompts, err := c.ListPrompts(ctx)
		if err != nil || len(prompts) != 1 || prompts[0].Arguments[0].Name != "who" {
			t.Errorf("prompts/list: %v %+v", err, prompts)
		}
		resources, err := c.ListResources(ctx)
		if err != nil || len(resources) != 1 {
			t.Errorf("resources/list: %v %+v", err, resources)
		}
		templates, err := c.ListResourceTemplates(ctx)
		if err != nil || len(templates) != 1 || templates[0].Name != "notes" {
			t.Errorf("resources/templates/list: %v %+v", err, templates)
		}
	})
}

// Older sessions work the same; 2025-03-26 has no elicitation, so its
// client declares none and the handler's question fails as the runtime
// says.
func TestOlderSessions(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		c.Accept("confirm", confirmAnswer{OK: true})
		res, err := c.CallTool(t.Context(), "pay", map[string]string{"to": "bob"})
		switch c.Era() {
		case "2025-06-18":
			if err != nil || res.Content.Text() != "paid bob" {
				t.Errorf("pay: %v %+v", err, res)
			}
		case "2025-03-26":
			var rpc *runtime.Error
			if !errors.As(err, &rpc) || rpc.Code != runtime.CodeMissingCapability {
				t.Errorf("pay in a session without elicitation: %v, want -32021", err)
			}
		}
		if got := callText(t, c, "chatty", nil); got != "done" {
			t.Errorf("chatty: %q", got)
		}
	}, mcptest.Eras("2025-06-18", "2025-03-26"))
}

// A handler that requires a URL elicitation ends the call until the user
// completed it (-32042 in a session, input_required in 2026-07-28); the
// client asks the script, and once accepted retries the call, whose handler
// then runs again. Declined, the error stands.
func TestRequiredURLElicitation(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		c.Decline("login")
		_, err := c.CallTool(t.Context(), "require_login", nil)
		if c.Era() == mcptest.Modern {
			// The handler cannot see the decline: it requires the URL again
			// on every retry, until the client's bound on rounds.
			if err == nil || !strings.Contains(err.Error(), "tools/call require_login still asks after 10 rounds") {
				t.Errorf("require_login declined: %v", err)
			}
		} else {
			var rpc *runtime.Error
			if !errors.As(err, &rpc) || rpc.Code != runtime.CodeURLElicitationRequired {
				t.Errorf("require_login declined: %v, want -32042", err)
			}
		}
		c.OnElicit("login", func(_ context.Context, q *mcptest.Question) (mcptest.ElicitResult, error) {
			if !strings.HasPrefix(q.URL, "https://example.com/login?id=") || q.Mode != "url" {
				t.Errorf("the question: %+v", q)
			}
			l.record(func() { l.signedIn = true }) // the user signs in at the URL
			return mcptest.ElicitResult{Action: "accept"}, nil
		})
		if got := callText(t, c, "require_login", nil); got != "welcome back" {
			t.Errorf("require_login: %q", got)
		}
	})
}

// 2026-07-28 requests over HTTP mirror x-mcp-header arguments into
// Mcp-Param-* headers, which the server checks against the body: any
// header name, non-ASCII and padded values (sent base64), integers,
// booleans, and none for an absent argument.
func TestHeaderParams(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, l *ledger) {
		for _, args := range []map[string]any{
			{"tenant": " Zürich ", "n": 3, "ok": true},
			{"tenant": "=?base64?looks encoded?="},
			{"tenant": "plain", "ok": false},
		} {
			want, _ := json.Marshal(args)
			got := callText(t, c, "scoped", args)
			var a, b any
			_ = json.Unmarshal(want, &a)
			_ = json.Unmarshal([]byte(got), &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("scoped got %s, want %s", got, want)
			}
		}
	})
}

// sessionRootsTool reads the roots as the session holds them.
var sessionRootsTool = runtime.Tool{
	Name:       "session_roots",
	Definition: json.RawMessage(`{"name":"session_roots","inputSchema":{"type":"object"}}`),
	Handler: func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		roots, err := call.Roots(ctx)
		if err != nil {
			return nil, err
		}
		var uris []string
		for _, r := range roots {
			uris = append(uris, r.URI)
		}
		return runtime.ContentResult(call, []runtime.Content{runtime.Text(strings.Join(uris, " ") + " by " + call.ClientInfo().Name)}), nil
	},
}

// TestRootsAsSessionState: in a session the server asks for the client's
// roots once after initialize and once per change, and every call reads the
// list without asking; in 2026-07-28 each call that reads roots asks. Both
// eras, over HTTP and stdio.
func TestRootsAsSessionState(t *testing.T) {
	newServer := func(t *testing.T) *runtime.Server {
		s := runtime.NewServer(runtime.Options{})
		t.Cleanup(func() { s.Close() })
		if err := s.AddTool(sessionRootsTool); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for name, opts := range map[string][]mcptest.Option{"http": nil, "stdio": {mcptest.OverStdio()}} {
		t.Run(name, func(t *testing.T) {
			mcptest.Run(t, newServer, func(t *testing.T, c *mcptest.Client) {
				ctx := t.Context()
				session := c.Era() != mcptest.Modern
				if session {
					// The GET stream (over HTTP) is where the server asks
					// when no call is running.
					if err := c.Listen(ctx); err != nil {
						t.Fatal(err)
					}
				}
				calls := 0
				read := func(want string) {
					t.Helper()
					calls++
					if got := callText(t, c, "session_roots", nil); got != want+" by mcptest" {
						t.Errorf("call %d: %q, want %q", calls, got, want)
					}
				}
				for range 3 {
					read("file:///a")
				}
				if err := c.ChangeRoots(ctx, runtime.Root{URI: "file:///b"}, runtime.Root{URI: "file:///c"}); err != nil {
					t.Fatal(err)
				}
				for range 2 {
					read("file:///b file:///c")
				}
				want := 2 // one fetch after initialize, one after the change
				if !session {
					want = calls // no session to keep them in: each call asks
				}
				if got := c.RootsAsked(); got != want {
					t.Errorf("the server asked for the roots %d times, want %d", got, want)
				}
			}, append(opts, mcptest.Roots(runtime.Root{URI: "file:///a"}))...)
		})
	}
}
