package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// outputTool is a tool with outputSchema schema whose handler returns out
// (already JSON) as its structured output.
func outputTool(name, schema, out string) Tool {
	def := fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"},"outputSchema":%s}`, name, schema)
	return Tool{Name: name, Definition: json.RawMessage(def), Handler: func(_ context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		if out == "" {
			return ContentResult(call, []Content{Text("no output")}), nil
		}
		return StructuredResult(call, json.RawMessage(out))
	}}
}

// syncBuffer is a log sink the handlers of every transport write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOutputValidation: structured output that breaks the tool's
// outputSchema never reaches the client as structuredContent, in either
// era over either transport. Each kind of constraint a generated type can
// break is covered; the client gets an isError result naming the tool, the
// location and what broke, and the server logs it as a bug. Output that
// conforms goes out unchanged.
func TestOutputValidation(t *testing.T) {
	noLeaks(t)
	const obj = `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":10},` +
		`"code":{"type":"string","pattern":"^[A-Z]{3}$"},"tags":{"type":"array","items":{"type":"string"},"maxItems":2},` +
		`"kind":{"enum":["a","b"]},"name":{"type":"string","minLength":1}},"required":["n","name"],"additionalProperties":false}`
	cases := []struct {
		name, out string
		want      string // "" means valid; else a substring of the error text
	}{
		{"valid", `{"n":3,"name":"x","code":"ABC","tags":["p"],"kind":"a"}`, ""},
		{"minimum", `{"n":0,"name":"x"}`, "/n: must be >= 1"},
		{"maximum", `{"n":11,"name":"x"}`, "/n: must be <= 10"},
		{"integer", `{"n":1.5,"name":"x"}`, "/n: expected integer"},
		{"pattern", `{"n":1,"name":"x","code":"abc"}`, "/code: does not match pattern"},
		{"maxItems", `{"n":1,"name":"x","tags":["a","b","c"]}`, "/tags: maximum 2 items"},
		{"enum", `{"n":1,"name":"x","kind":"c"}`, "/kind: value must be one of"},
		{"minLength (a required string left empty)", `{"n":1,"name":""}`, "/name: length must be >= 1"},
		{"required", `{"n":1}`, "missing properties: 'name'"},
		{"additionalProperties", `{"n":1,"name":"x","extra":true}`, "additionalProperties 'extra' not allowed"},
		{"type of the root", `[1]`, "/: expected object"},
		{"no structured output at all", ``, "no structuredContent"},
	}
	var tools []Tool
	for i, tc := range cases {
		tools = append(tools, outputTool(fmt.Sprintf("out%d", i), obj, tc.out))
	}
	// A flat schema takes the fast path; its failures still get the full
	// check and its message.
	tools = append(tools, outputTool("flat", `{"type":"object","properties":{"sum":{"type":"number","maximum":5}},"required":["sum"],"additionalProperties":false}`, `{"sum":9}`))
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	transports := parityTransportsWith(t, Options{Logger: logger}, tools)
	check := func(t *testing.T, name, out, want string) {
		for i, tr := range transports {
			m := tr.send(t, 300+i, "tools/call", map[string]any{"name": name})
			if m.Error != nil {
				t.Fatalf("%s: error %d %s", tr.name, m.Error.Code, m.Error.Message)
			}
			var r struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				StructuredContent json.RawMessage `json:"structuredContent"`
				IsError           bool            `json:"isError"`
			}
			if err := json.Unmarshal(m.Result, &r); err != nil {
				t.Fatalf("%s: %s: %v", tr.name, m.Result, err)
			}
			if want == "" {
				if r.IsError || string(r.StructuredContent) != out {
					t.Fatalf("%s: valid output changed: %s", tr.name, m.Result)
				}
				continue
			}
			if !r.IsError || r.StructuredContent != nil || len(r.Content) != 1 {
				t.Fatalf("%s: invalid output went out: %s", tr.name, m.Result)
			}
			if txt := r.Content[0].Text; !strings.Contains(txt, want) || !strings.Contains(txt, fmt.Sprintf("%q does not match its outputSchema", name)) {
				t.Fatalf("%s: error text %q does not say %q", tr.name, txt, want)
			}
		}
		if want != "" && !strings.Contains(logs.String(), "tool="+name+" ") {
			t.Fatalf("no server log for %s: %s", name, logs.String())
		}
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, fmt.Sprintf("out%d", i), tc.out, tc.want) })
	}
	t.Run("flat fast path", func(t *testing.T) { check(t, "flat", "", "/sum: must be <= 5") })
}

// TestOutputSchemaMustCompile: a tool whose outputSchema is not a valid
// schema is refused when it is added, as an invalid inputSchema is.
func TestOutputSchemaMustCompile(t *testing.T) {
	s := NewServer(Options{})
	defer s.Close()
	err := s.AddTool(outputTool("bad", `{"type":"object","properties":{"n":{"type":7}}}`, `{}`))
	if err == nil || !strings.Contains(err.Error(), "outputSchema") {
		t.Fatalf("AddTool = %v, want an outputSchema error", err)
	}
}

// BenchmarkOutputCheck is the output check of the benchmark's plain call
// alone: a flat outputSchema accepted by one scan, without allocating.
func BenchmarkOutputCheck(b *testing.B) {
	s := NewServer(Options{})
	defer s.Close()
	if err := s.AddTool(addTool()); err != nil {
		b.Fatal(err)
	}
	t := s.byName["add"]
	res := &ToolResult{StructuredContent: json.RawMessage(`{"sum":3}`)}
	b.ReportAllocs()
	for b.Loop() {
		if s.checkOutput(t, res) != res {
			b.Fatal("rejected")
		}
	}
}
