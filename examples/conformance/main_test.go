package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// suiteTools are the tools the conformance suite's server scenarios call or
// look for in tools/list (both requirement sets, plus the unscored
// json-schema-2020-12, http-custom-header-server-validation and tasks-*
// scenarios).
var suiteTools = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
	"test_multiple_content_types", "test_tool_with_logging", "test_tool_with_progress",
	"test_error_handling", "test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults",
	"test_elicitation_sep1330_enums", "test_reconnection", "json_schema_2020_12_tool",
	"test_missing_capability", "test_streaming_elicitation", "test_logging_tool",
	"test_trigger_tool_change", "test_trigger_prompt_change", "test_custom_header",
	"test_input_required_result_elicitation", "test_input_required_result_sampling",
	"test_input_required_result_list_roots", "test_input_required_result_request_state",
	"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
	"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
	// the tasks extension (tasks-*)
	"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input",
	"test_tool_with_task",
}

func startServer(t *testing.T) string {
	t.Helper()
	s, err := newServer(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		hs.Close()
		_ = s.Close()
	})
	return hs.URL + "/mcp"
}

type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// modernCall sends one 2026-07-28 request (stateless: _meta and the standard
// headers on every request) and returns its response, read from a JSON body
// or from the data lines of an event stream.
func modernCall(t *testing.T, url, method, name string, params map[string]any, caps map[string]any) rpcResponse {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var lines []string
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		var data []string
		for _, l := range lines {
			if d, ok := strings.CutPrefix(l, "data:"); ok {
				data = append(data, strings.TrimSpace(d))
			}
		}
		lines = data
	}
	for _, l := range lines {
		var msg struct {
			ID json.RawMessage `json:"id"`
			rpcResponse
		}
		if json.Unmarshal([]byte(l), &msg) == nil && string(msg.ID) == "7" {
			return msg.rpcResponse
		}
	}
	t.Fatalf("%s %s: no response for id 7 in %q (HTTP %d)", method, name, lines, res.StatusCode)
	return rpcResponse{}
}

func TestToolsListAdvertisesEveryFixture(t *testing.T) {
	url := startServer(t)
	res := modernCall(t, url, "tools/list", "", nil, map[string]any{})
	if res.Error != nil {
		t.Fatalf("tools/list: %+v", res.Error)
	}
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"inputSchema"`
			Meta        map[string]any `json:"_meta"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res.Result, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("%s has no description (the suite's tools-list check requires one)", tool.Name)
		}
		if tool.InputSchema["type"] != "object" {
			t.Errorf("%s: inputSchema type is %v, want object", tool.Name, tool.InputSchema["type"])
		}
		if _, leaked := tool.Meta["mcpgen.dev/elicitations"]; leaked {
			t.Errorf("%s advertises mcpgen's own _meta key", tool.Name)
		}
		if tool.Name == "json_schema_2020_12_tool" {
			for _, k := range []string{"$schema", "$defs", "allOf", "if", "then", "else", "additionalProperties"} {
				if _, ok := tool.InputSchema[k]; !ok {
					t.Errorf("json_schema_2020_12_tool lost %s", k)
				}
			}
		}
	}
	for _, want := range suiteTools {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s", want)
		}
	}
	for _, want := range interopTools {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s", want)
		}
	}
	if len(names) != len(suiteTools)+len(interopTools) {
		t.Errorf("tools/list has %d tools, the suite needs %d and the interop checks %d: %v", len(names), len(suiteTools), len(interopTools), names)
	}
}

// The suite requires the three questions of multiple_inputs in ONE
// input_required result: the handler asks them concurrently.
func TestMultipleInputsAskedInOneRound(t *testing.T) {
	url := startServer(t)
	caps := map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
	res := modernCall(t, url, "tools/call", "test_input_required_result_multiple_inputs",
		map[string]any{"name": "test_input_required_result_multiple_inputs", "arguments": map[string]any{}}, caps)
	if res.Error != nil {
		t.Fatalf("round 1: %+v", res.Error)
	}
	var round struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
		RequestState string `json:"requestState"`
	}
	if err := json.Unmarshal(res.Result, &round); err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, r := range round.InputRequests {
		methods = append(methods, r.Method)
	}
	slices.Sort(methods)
	want := []string{"elicitation/create", "roots/list", "sampling/createMessage"}
	if round.ResultType != "input_required" || !slices.Equal(methods, want) {
		t.Fatalf("round 1 = %s with %v, want input_required with %v", round.ResultType, methods, want)
	}
	if _, ok := round.InputRequests["user_name"]; !ok {
		t.Errorf("the form's input request key is not user_name: %v", round.InputRequests)
	}

	// Round 2 answers everything: a complete, structured result.
	answers := map[string]any{}
	for key, r := range round.InputRequests {
		switch r.Method {
		case "elicitation/create":
			answers[key] = map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}
		case "sampling/createMessage":
			answers[key] = map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "Hi!"}}
		case "roots/list":
			answers[key] = map[string]any{"roots": []any{map[string]any{"uri": "file:///a"}, map[string]any{"uri": "file:///b"}}}
		}
	}
	res = modernCall(t, url, "tools/call", "test_input_required_result_multiple_inputs", map[string]any{
		"name": "test_input_required_result_multiple_inputs", "arguments": map[string]any{},
		"inputResponses": answers, "requestState": round.RequestState,
	}, caps)
	if res.Error != nil {
		t.Fatalf("round 2: %+v", res.Error)
	}
	var done struct {
		ResultType        string          `json:"resultType"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(res.Result, &done); err != nil {
		t.Fatal(err)
	}
	if done.ResultType != "complete" || string(done.StructuredContent) != `{"name":"Alice","greeting":"Hi!","roots":2}` {
		t.Fatalf("round 2 = %s", res.Result)
	}
}

// Without the elicitation capability the capabilities fixture asks only the
// sampling question, as input-required-result-capability-check requires.
func TestCapabilitiesFixtureAsksOnlyDeclared(t *testing.T) {
	url := startServer(t)
	res := modernCall(t, url, "tools/call", "test_input_required_result_capabilities",
		map[string]any{"name": "test_input_required_result_capabilities", "arguments": map[string]any{}},
		map[string]any{"sampling": map[string]any{}})
	if res.Error != nil {
		t.Fatalf("%+v", res.Error)
	}
	var round struct {
		ResultType    string                             `json:"resultType"`
		InputRequests map[string]struct{ Method string } `json:"inputRequests"`
	}
	if err := json.Unmarshal(res.Result, &round); err != nil {
		t.Fatal(err)
	}
	if round.ResultType != "input_required" || len(round.InputRequests) != 1 {
		t.Fatalf("got %s", res.Result)
	}
	for _, r := range round.InputRequests {
		if r.Method != "sampling/createMessage" {
			t.Fatalf("asked %s of a client without elicitation", r.Method)
		}
	}
}
