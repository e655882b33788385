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
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/internal/schemacheck"
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
	t := s.features.tool("add")
	res := &ToolResult{StructuredContent: json.RawMessage(`{"sum":3}`)}
	b.ReportAllocs()
	for b.Loop() {
		if t.checkOutput(res, s.d.logger) != res {
			b.Fatal("rejected")
		}
	}
}

// TestAppendToolResultMatchesEncodingJSON: the hand encoder writes exactly
// what encoding/json writes (for these inputs; control characters that
// encoding/json spells \b or \f come out as \u0008 and \u000c).
func TestAppendToolResultMatchesEncodingJSON(t *testing.T) {
	prio := 0.5
	for _, r := range []*ToolResult{
		{},
		{Content: []Content{Text("plain")}},
		{Content: []Content{Text("esc \" \\ \n\r\t \x01 <a>&b \u2028\u2029 é 日本 \xff end")}, IsError: true},
		{Content: []Content{&TextContent{Text: "x", Annotations: &Annotations{Priority: &prio}}, &ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}},
			StructuredContent: json.RawMessage(`{"a":1}`)},
	} {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendToolResult(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a", "\"", "<>&", "\u2028", "\xff\xfe", "é", "\f", "\b"} {
		f.Add(s)
	}
	// The oracle is the decoded value, not encoding/json's spelling: "\f" may
	// be written \f or \u000c, and both are the same string.
	f.Fuzz(func(t *testing.T, s string) {
		got := appendJSONString(nil, s)
		var back, want string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %s is not a JSON string: %v", s, got, err)
		}
		ref, _ := json.Marshal(s)
		_ = json.Unmarshal(ref, &want) // invalid UTF-8 becomes U+FFFD, as in got
		if back != want {
			t.Fatalf("%q: %s decodes to %q, encoding/json's %s to %q", s, got, back, ref, want)
		}
		if !utf8.Valid(got) || bytes.ContainsAny(got, "<>&\u2028\u2029") {
			t.Fatalf("%q: %s is not HTML-safe", s, got)
		}
	})
}

// TestOutputOfAnyType: a tool whose outputSchema root is an array, a
// scalar, null or a union serves 2026-07-28 the value and the schema as
// written, and 2025-11-25 sessions (HTTP and stdio) {"result": value} under
// the wrapped schema, with same-document $refs rebased and $schema kept at
// the root; the wrapped schema compiles and accepts the wrapped value. The
// first text block is the serialized value in both eras, and a value that
// breaks the schema is refused in both.
func TestOutputOfAnyType(t *testing.T) {
	noLeaks(t)
	cases := []struct {
		name, schema, out string
		bad               string // "" or a value breaking the schema
	}{
		{"array", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{"$ref":"#/$defs/entry"},"maxItems":2,` +
			`"$defs":{"entry":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`,
			`[{"name":"a"},{"name":"b"}]`, `[{"name":"a"},{"name":"b"},{"name":"c"}]`},
		{"integer", `{"type":"integer","minimum":0}`, `42`, `-1`},
		{"string enum", `{"type":"string","enum":["passed","failed"]}`, `"passed"`, `"maybe"`},
		{"nullable", `{"type":["string","null"]}`, `null`, `7`},
		{"union", `{"oneOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}`, `["x","y"]`, `{}`},
		{"recursive", `{"type":"array","items":{"anyOf":[{"type":"integer"},{"$ref":"#"}]}}`, `[1,[2,[3]]]`, `[1,"x"]`},
	}
	var tools []Tool
	for i, tc := range cases {
		tools = append(tools, outputTool(fmt.Sprintf("root%d", i), tc.schema, tc.out))
		tools = append(tools, outputTool(fmt.Sprintf("bad%d", i), tc.schema, tc.bad))
	}
	for _, tr := range parityTransports(t, tools) {
		legacy := strings.HasPrefix(tr.name, "legacy")
		m := tr.send(t, 1, "tools/list", nil)
		var list struct {
			Tools []struct {
				Name         string          `json:"name"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		}
		if m.Error != nil || json.Unmarshal(m.Result, &list) != nil {
			t.Fatalf("%s: tools/list %s %+v", tr.name, m.Result, m.Error)
		}
		schemas := map[string]json.RawMessage{}
		for _, tl := range list.Tools {
			schemas[tl.Name] = tl.OutputSchema
		}
		for i, tc := range cases {
			name := fmt.Sprintf("root%d", i)
			adv := schemas[name]
			want, sc := tc.out, tc.out
			if legacy {
				sc = `{"result":` + tc.out + `}`
				var w map[string]any
				if json.Unmarshal(adv, &w) != nil || w["type"] != "object" || fmt.Sprint(w["required"]) != "[result]" {
					t.Fatalf("%s %s: advertised %s", tr.name, tc.name, adv)
				}
				if strings.Contains(tc.schema, "$schema") && w["$schema"] == nil {
					t.Fatalf("%s %s: $schema not at the root: %s", tr.name, tc.name, adv)
				}
				compiled, err := schemacheck.Compile("test:"+name, adv)
				if err != nil {
					t.Fatalf("%s %s: wrapped schema %s: %v", tr.name, tc.name, adv, err)
				}
				var v any
				_ = json.Unmarshal([]byte(sc), &v)
				if err := compiled.Validate(v); err != nil {
					t.Fatalf("%s %s: wrapped schema refuses the wrapped value %s: %v", tr.name, tc.name, sc, err)
				}
			} else if !jsonEqual(adv, tc.schema) {
				t.Fatalf("%s %s: advertised %s, want %s", tr.name, tc.name, adv, tc.schema)
			}
			r := tr.send(t, 10+i, "tools/call", map[string]any{"name": name})
			var res struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				StructuredContent json.RawMessage `json:"structuredContent"`
				IsError           bool            `json:"isError"`
			}
			if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.IsError {
				t.Fatalf("%s %s: %s %+v", tr.name, tc.name, r.Result, r.Error)
			}
			if string(res.StructuredContent) != sc || len(res.Content) == 0 || res.Content[0].Text != want {
				t.Fatalf("%s %s: got %s, want structuredContent %s and text %s", tr.name, tc.name, r.Result, sc, want)
			}
			r = tr.send(t, 50+i, "tools/call", map[string]any{"name": fmt.Sprintf("bad%d", i)})
			if r.Error != nil || !strings.Contains(string(r.Result), `"isError":true`) || strings.Contains(string(r.Result), "structuredContent") {
				t.Fatalf("%s %s: a bad value went out: %s", tr.name, tc.name, r.Result)
			}
		}
	}
}

func jsonEqual(a json.RawMessage, b string) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}
