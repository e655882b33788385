package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

var allCaps = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{"listChanged": true}}

func mrtrClient(t *testing.T) *modernClient {
	t.Helper()
	c := modernServer(t, newTestServer(t,
		elicitationTool(), samplingTool("test_input_required_result_sampling"), rootsTool(),
		requestStateTool(), multipleInputsTool(), multiRoundTool(), streamingElicitationTool(),
	))
	c.caps = allCaps
	return c
}

// inputRequired checks that r is an input_required result and returns its
// inputRequests and requestState.
func inputRequired(t *testing.T, r *modernResp) (map[string]any, string) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("HTTP %d: %s", r.status, r.body)
	}
	res := r.result(t)
	if res["resultType"] != "input_required" {
		t.Fatalf("want input_required, got %s", r.body)
	}
	reqs, _ := res["inputRequests"].(map[string]any)
	state, _ := res["requestState"].(string)
	if len(reqs) == 0 || state == "" {
		t.Fatalf("want inputRequests and requestState: %s", r.body)
	}
	return reqs, state
}

// completeText checks that r is a complete tool result and returns its text.
func completeText(t *testing.T, r *modernResp) string {
	t.Helper()
	res := r.result(t)
	if res["resultType"] != "complete" {
		t.Fatalf("want a complete result, got %s", r.body)
	}
	var texts []string
	for _, c := range res["content"].([]any) {
		texts = append(texts, c.(map[string]any)["text"].(string))
	}
	return strings.Join(texts, "\n")
}

func accept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

var samplingAnswer = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Paris"}, "model": "test-model", "stopReason": "endTurn"}
var rootsAnswer = map[string]any{"roots": []any{map[string]any{"uri": "file:///test/root", "name": "Test Root"}}}

func TestMRTRElicitation(t *testing.T) {
	leakCheck(t)
	c := mrtrClient(t)
	call := map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{}}
	reqs, state := inputRequired(t, c.call("tools/call", call))
	q, ok := reqs["user_name"].(map[string]any)
	if !ok || q["method"] != "elicitation/create" {
		t.Fatalf("want key user_name asking elicitation/create, got %v", reqs)
	}
	params := q["params"].(map[string]any)
	if params["mode"] != "form" || params["message"] != "What is your name?" || params["requestedSchema"] == nil {
		t.Errorf("params = %v", params)
	}
	if _, has := params["elicitationId"]; has {
		t.Errorf("2026-07-28 elicitation has no elicitationId: %v", params)
	}

	retry := map[string]any{"name": call["name"], "arguments": map[string]any{},
		"inputResponses": map[string]any{"user_name": accept(map[string]any{"name": "Alice"})}, "requestState": state}
	if got := completeText(t, c.call("tools/call", retry)); got != "Hello, Alice!" {
		t.Errorf("text = %q", got)
	}
	// A client that does not echo requestState still gets its answer used.
	delete(retry, "requestState")
	if got := completeText(t, c.call("tools/call", retry)); got != "Hello, Alice!" {
		t.Errorf("text without requestState = %q", got)
	}
}

func TestMRTRSamplingAndRoots(t *testing.T) {
	leakCheck(t)
	c := mrtrClient(t)
	for _, tc := range []struct{ tool, method, want string }{
		{"test_input_required_result_sampling", "sampling/createMessage", "model said: Paris"},
		{"test_input_required_result_list_roots", "roots/list", "roots: file:///test/root"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			reqs, state := inputRequired(t, c.call("tools/call", map[string]any{"name": tc.tool}))
			if len(reqs) != 1 {
				t.Fatalf("want one input request, got %v", reqs)
			}
			responses := map[string]any{}
			for k, q := range reqs {
				if m := q.(map[string]any)["method"]; m != tc.method {
					t.Fatalf("method = %v, want %s", m, tc.method)
				}
				responses[k] = map[string]any{"sampling/createMessage": samplingAnswer, "roots/list": rootsAnswer}[tc.method]
			}
			r := c.call("tools/call", map[string]any{"name": tc.tool, "inputResponses": responses, "requestState": state})
			if got := completeText(t, r); got != tc.want {
				t.Errorf("text = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMRTRRequestState(t *testing.T) {
	leakCheck(t)
	c := mrtrClient(t)
	_, state := inputRequired(t, c.call("tools/call", map[string]any{"name": "test_input_required_result_request_state"}))
	r := c.call("tools/call", map[string]any{"name": "test_input_required_result_request_state",
		"inputResponses": map[string]any{"user_name": accept(map[string]any{"name": "Bo"})}, "requestState": state})
	if got := completeText(t, r); got != "state-ok: Bo" {
		t.Errorf("text = %q", got)
	}
}

func TestMRTRMultipleInputsInOneRound(t *testing.T) {
	leakCheck(t)
	c := mrtrClient(t)
	reqs, state := inputRequired(t, c.call("tools/call", map[string]any{"name": "test_input_required_result_multiple_inputs"}))
	methods := map[string]string{}
	for k, q := range reqs {
		methods[q.(map[string]any)["method"].(string)] = k
	}
	if len(reqs) != 3 || methods["elicitation/create"] != "user_name" || methods["sampling/createMessage"] != "sampling" || methods["roots/list"] != "roots" {
		t.Fatalf("want three questions in one round, got %v", reqs)
	}
	r := c.call("tools/call", map[string]any{"name": "test_input_required_result_multiple_inputs", "requestState": state,
		"inputResponses": map[string]any{"user_name": accept(map[string]any{"name": "Alice"}), "sampling": samplingAnswer, "roots": rootsAnswer}})
	if got := completeText(t, r); got != "Alice|Paris|1 roots|multi" {
		t.Errorf("text = %q", got)
	}
}

func TestMRTRMultiRound(t *testing.T) {
	leakCheck(t)
	c := mrtrClient(t)
	name := "test_input_required_result_multi_round"
	reqs, s1 := inputRequired(t, c.call("tools/call", map[string]any{"name": name}))
	if _, ok := reqs["step"]; !ok {
		t.Fatalf("round 1 asks %v, want key step", reqs)
	}
	reqs, s2 := inputRequired(t, c.call("tools/call", map[string]any{"name": name, "requestState": s1,
		"inputResponses": map[string]any{"step": accept(map[string]any{"value": "one"})}}))
	if _, ok := reqs["step_2"]; !ok || len(reqs) != 1 {
		t.Fatalf("round 2 asks %v, want only key step_2", reqs)
	}
	if s2 == s1 {
		t.Error("round 2 must carry a new requestState")
	}
	// The client cannot change an answer it gave in an earlier round.
	r := c.call("tools/call", map[string]any{"name": name, "requestState": s2,
		"inputResponses": map[string]any{"step": accept(map[string]any{"value": "changed"}), "step_2": accept(map[string]any{"value": "two"})}})
	if got := completeText(t, r); got != "after-step-1:one,two" {
		t.Errorf("round 3 text = %q", got)
	}
}

func TestMRTRStateRejected(t *testing.T) {
	leakCheck(t)
	c := mrtrClient(t)
	name := "test_input_required_result_elicitation"
	_, state := inputRequired(t, c.call("tools/call", map[string]any{"name": name, "arguments": map[string]any{}}))
	answer := map[string]any{"user_name": accept(map[string]any{"name": "Eve"})}
	for _, tc := range []struct {
		name, tool, state, want string
		args                    map[string]any
	}{
		{"tampered", name, state + "-TAMPERED", "not valid", map[string]any{}},
		{"flipped byte", name, state[:len(state)-2] + flip(state[len(state)-2]) + state[len(state)-1:], "not valid", map[string]any{}},
		{"garbage", name, "hello", "not valid", map[string]any{}},
		{"other arguments", name, state, "arguments differ", map[string]any{"x": 1}},
		{"other tool", "test_input_required_result_request_state", state, "issued for", map[string]any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.call("tools/call", map[string]any{"name": tc.tool, "arguments": tc.args, "inputResponses": answer, "requestState": tc.state})
			if r.errCode(t) != CodeInvalidParams {
				t.Fatalf("want a -32602 JSON-RPC error, got %s", r.body)
			}
			if msg := r.final(t)["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tc.want) {
				t.Errorf("message %q does not say %q", msg, tc.want)
			}
		})
	}
	t.Run("another server's key", func(t *testing.T) {
		other := mrtrClient(t)
		r := other.call("tools/call", map[string]any{"name": name, "arguments": map[string]any{}, "inputResponses": answer, "requestState": state})
		if r.errCode(t) != CodeInvalidParams {
			t.Fatalf("want -32602, got %s", r.body)
		}
	})
}

func flip(b byte) string {
	if b == 'A' {
		return "B"
	}
	return "A"
}

func TestMRTRAnswerHandling(t *testing.T) {
	leakCheck(t)
	c := mrtrClient(t)
	name := "test_input_required_result_elicitation"
	t.Run("wrong key re-asks", func(t *testing.T) {
		reqs, _ := inputRequired(t, c.call("tools/call", map[string]any{"name": name,
			"inputResponses": map[string]any{"wrong_key": accept(map[string]any{"name": "X"})}}))
		if _, ok := reqs["user_name"]; !ok {
			t.Errorf("want user_name asked again, got %v", reqs)
		}
	})
	t.Run("extra keys are ignored", func(t *testing.T) {
		r := c.call("tools/call", map[string]any{"name": name, "inputResponses": map[string]any{
			"user_name": accept(map[string]any{"name": "Al"}), "extra": map[string]any{"whatever": true}}})
		if got := completeText(t, r); got != "Hello, Al!" {
			t.Errorf("text = %q", got)
		}
	})
	t.Run("null inputResponses re-asks", func(t *testing.T) {
		inputRequired(t, c.call("tools/call", map[string]any{"name": name, "inputResponses": nil}))
	})
	t.Run("wrongly typed answer is an error", func(t *testing.T) {
		r := c.call("tools/call", map[string]any{"name": name, "inputResponses": map[string]any{"user_name": 12345}})
		if r.errCode(t) != CodeInvalidParams {
			t.Errorf("want -32602, got %s", r.body)
		}
	})
	t.Run("inputResponses not an object is an error", func(t *testing.T) {
		r := c.call("tools/call", map[string]any{"name": name, "inputResponses": []any{1}})
		if r.errCode(t) != CodeInvalidParams {
			t.Errorf("want -32602, got %s", r.body)
		}
	})
	t.Run("answer outside the schema is a tool error", func(t *testing.T) {
		r := c.call("tools/call", map[string]any{"name": name, "inputResponses": map[string]any{"user_name": accept(map[string]any{"name": ""})}})
		res := r.result(t)
		if res["isError"] != true || !strings.Contains(jsonOf(res["content"]), "does not match the requested schema") {
			t.Errorf("want an isError result naming the schema, got %s", r.body)
		}
	})
	t.Run("decline", func(t *testing.T) {
		r := c.call("tools/call", map[string]any{"name": name, "inputResponses": map[string]any{"user_name": map[string]any{"action": "decline"}}})
		if res := r.result(t); res["isError"] != true || !strings.Contains(jsonOf(res["content"]), "declined") {
			t.Errorf("want the declined outcome, got %s", r.body)
		}
	})
	t.Run("tools/list is never input_required", func(t *testing.T) {
		if rt := c.call("tools/list", nil).result(t)["resultType"]; rt != "complete" {
			t.Errorf("resultType = %v", rt)
		}
	})
}

func TestMRTROutcomes(t *testing.T) {
	leakCheck(t)
	tools := []Tool{
		{Name: "skip_missing", Definition: toolDef("skip_missing", ""), Elicitations: []*Elicitation{userNameForm},
			Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
				// Falls back to sampling when the client cannot show forms.
				var a nameAnswer
				err := call.Elicit(ctx, userNameForm, "", &a)
				if errors.Is(err, ErrCapabilityMissing) {
					_, err = call.CreateMessage(ctx, UserText("Make up a name", 10))
				}
				return nil, err
			}},
		{Name: "concurrent", Definition: toolDef("concurrent", ""), Elicitations: []*Elicitation{userNameForm, stepForm},
			Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
				errs := make([]error, 3)
				var wg sync.WaitGroup
				for i, ask := range []func() error{
					func() error { return call.Elicit(ctx, userNameForm, "", nil) },
					func() error { return call.Elicit(ctx, stepForm, "", nil) },
					func() error { _, err := call.ListRoots(ctx); return err },
				} {
					wg.Add(1)
					go func() { defer wg.Done(); errs[i] = ask() }()
				}
				wg.Wait()
				return ContentResult(call, []Content{Text("all answered")}), errors.Join(errs...)
			}},
		{Name: "liar", Definition: toolDef("liar", ""),
			Handler: func(context.Context, *Call, json.RawMessage) (*ToolResult, error) { return nil, ErrInputRequired }},
		{Name: "panics", Definition: toolDef("panics", ""),
			Handler: func(context.Context, *Call, json.RawMessage) (*ToolResult, error) { panic("boom") }},
		{Name: "rpc_error", Definition: toolDef("rpc_error", ""),
			Handler: func(context.Context, *Call, json.RawMessage) (*ToolResult, error) {
				return nil, fmt.Errorf("wrapped: %w", NewError(-32000, "custom"))
			}},
		{Name: "typed", Definition: toolDef("typed", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
			Handler: func(_ context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
				return ContentResult(call, []Content{Text("ran")}), nil
			}},
	}
	c := modernServer(t, newTestServer(t, tools...))
	c.caps = allCaps

	t.Run("a handler may skip what the client cannot answer", func(t *testing.T) {
		reqs, _ := inputRequired(t, c.call("tools/call", map[string]any{"name": "skip_missing"}, withCaps(map[string]any{"sampling": map[string]any{}})))
		if len(reqs) != 1 || reqs["sampling"] == nil {
			t.Errorf("want only the sampling question, got %v", reqs)
		}
	})
	t.Run("questions asked concurrently leave in one round", func(t *testing.T) {
		reqs, state := inputRequired(t, c.call("tools/call", map[string]any{"name": "concurrent"}))
		if len(reqs) != 3 || reqs["user_name"] == nil || reqs["step"] == nil || reqs["roots"] == nil {
			t.Fatalf("got %v", reqs)
		}
		r := c.call("tools/call", map[string]any{"name": "concurrent", "requestState": state, "inputResponses": map[string]any{
			"user_name": accept(map[string]any{"name": "A"}), "step": accept(map[string]any{"value": "v"}), "roots": rootsAnswer}})
		if got := completeText(t, r); got != "all answered" {
			t.Errorf("text = %q", got)
		}
	})
	t.Run("ErrInputRequired without a question is an internal error", func(t *testing.T) {
		if r := c.call("tools/call", map[string]any{"name": "liar"}); r.errCode(t) != CodeInternalError {
			t.Errorf("got %s", r.body)
		}
	})
	t.Run("a panic is an internal error and the server goes on", func(t *testing.T) {
		if r := c.call("tools/call", map[string]any{"name": "panics"}); r.errCode(t) != CodeInternalError {
			t.Errorf("got %s", r.body)
		}
		if r := c.call("tools/list", nil); r.status != http.StatusOK {
			t.Errorf("after the panic: HTTP %d", r.status)
		}
	})
	t.Run("a *Error is the JSON-RPC error", func(t *testing.T) {
		if r := c.call("tools/call", map[string]any{"name": "rpc_error"}); r.errCode(t) != -32000 {
			t.Errorf("got %s", r.body)
		}
	})
	t.Run("invalid arguments are a tool error the model can read", func(t *testing.T) {
		r := c.call("tools/call", map[string]any{"name": "typed", "arguments": map[string]any{"n": "x"}})
		if res := r.result(t); res["isError"] != true || res["resultType"] != "complete" || !strings.Contains(jsonOf(res["content"]), "invalid arguments") {
			t.Errorf("got %s", r.body)
		}
	})
	t.Run("an unknown tool is -32602", func(t *testing.T) {
		r := c.call("tools/call", map[string]any{"name": "nope"})
		if r.status != http.StatusOK || r.errCode(t) != CodeInvalidParams {
			t.Errorf("got HTTP %d %s", r.status, r.body)
		}
	})
}

func TestMRTRURLElicitation(t *testing.T) {
	leakCheck(t)
	login := &Elicitation{Name: "login", Mode: "url", Message: "Sign in to continue"}
	tool := Tool{Name: "connect", Definition: toolDef("connect", ""), Elicitations: []*Elicitation{login},
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			if err := call.ElicitURL(ctx, login, "", "https://example.com/login"); err != nil {
				return nil, err
			}
			return ContentResult(call, []Content{Text("consented")}), nil
		}}
	c := modernServer(t, newTestServer(t, tool))

	r := c.call("tools/call", map[string]any{"name": "connect"}, withCaps(map[string]any{"elicitation": map[string]any{}}))
	if r.errCode(t) != CodeMissingCapability || jsonOf(r.errData(t)) != `{"requiredCapabilities":{"elicitation":{"url":{}}}}` {
		t.Fatalf("form-only client: want -32021 naming elicitation.url, got %s", r.body)
	}
	urlCaps := withCaps(map[string]any{"elicitation": map[string]any{"url": map[string]any{}}})
	reqs, state := inputRequired(t, c.call("tools/call", map[string]any{"name": "connect"}, urlCaps))
	if got := jsonOf(reqs["login"]); got != `{"method":"elicitation/create","params":{"message":"Sign in to continue","mode":"url","url":"https://example.com/login"}}` {
		t.Errorf("input request = %s", got)
	}
	r = c.call("tools/call", map[string]any{"name": "connect", "requestState": state, "inputResponses": map[string]any{"login": map[string]any{"action": "accept"}}}, urlCaps)
	if got := completeText(t, r); got != "consented" {
		t.Errorf("text = %q", got)
	}
}

// TestMRTRAnswersBoundToQuestions: an answer counts only for the question it
// answered; a replay that asks something else under the same key asks again.
func TestMRTRAnswersBoundToQuestions(t *testing.T) {
	leakCheck(t)
	drifting := Tool{Name: "drifting", Definition: toolDef("drifting", ""), Elicitations: []*Elicitation{stepForm},
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			// Round 1 asks about "a"; every later round asks about "b".
			topic := "a"
			if call.State() != nil {
				topic = "b"
			}
			call.SetState([]byte(topic))
			var v struct {
				Value string `json:"value"`
			}
			if err := call.Elicit(ctx, stepForm, "about "+topic, &v); err != nil {
				return nil, err
			}
			return ContentResult(call, []Content{Text(topic + "=" + v.Value)}), nil
		}}
	c := modernServer(t, newTestServer(t, drifting, multiRoundTool()))
	c.caps = allCaps

	_, s1 := inputRequired(t, c.call("tools/call", map[string]any{"name": "drifting"}))
	reqs, s2 := inputRequired(t, c.call("tools/call", map[string]any{"name": "drifting", "requestState": s1,
		"inputResponses": map[string]any{"step": accept(map[string]any{"value": "answer-for-a"})}}))
	if msg := reqs["step"].(map[string]any)["params"].(map[string]any)["message"]; msg != "about b" {
		t.Fatalf("the changed question must be asked again, got %v", reqs)
	}
	r := c.call("tools/call", map[string]any{"name": "drifting", "requestState": s2,
		"inputResponses": map[string]any{"step": accept(map[string]any{"value": "answer-for-b"})}})
	if got := completeText(t, r); got != "b=answer-for-b" {
		t.Errorf("text = %q", got)
	}

	// With requestState, an answer to a question not yet asked is ignored.
	name := "test_input_required_result_multi_round"
	_, s1 = inputRequired(t, c.call("tools/call", map[string]any{"name": name}))
	reqs, _ = inputRequired(t, c.call("tools/call", map[string]any{"name": name, "requestState": s1, "inputResponses": map[string]any{
		"step": accept(map[string]any{"value": "one"}), "step_2": accept(map[string]any{"value": "early"})}}))
	if reqs["step_2"] == nil {
		t.Errorf("step_2 answered before it was asked must be asked, got %v", reqs)
	}
}
