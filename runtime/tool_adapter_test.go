package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// adapterCall is the handle the adapter tests wrap a *Call in, as generated
// code does.
type adapterCall struct{ ToolCall }

func newAdapterCall(call *Call) adapterCall { return adapterCall{NewToolCall(call)} }

type photoIn struct {
	Caption string `json:"caption"`
}

type photoOut struct {
	Caption string   `json:"caption"`
	Labels  []string `json:"labels"`
}

// structuredTool is a tool with an outputSchema wired by NewStructuredTool.
func structuredTool(name, outputSchema string, fn func(context.Context, adapterCall, photoIn) (photoOut, error)) Tool {
	def := fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","properties":{"caption":{"type":"string"}}},"outputSchema":%s}`, name, outputSchema)
	return NewStructuredTool(Tool{Name: name, Definition: json.RawMessage(def)}, newAdapterCall, fn)
}

const photoSchema = `{"type":"object","properties":{"caption":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}},"required":["caption","labels"]}`

var pixel = []byte{0x89, 'P', 'N', 'G'}

// adapterTools are the tools of TestToolAdapters.
func adapterTools() []Tool {
	prio := 0.9
	return []Tool{
		structuredTool("json_only", photoSchema, func(_ context.Context, _ adapterCall, in photoIn) (photoOut, error) {
			return photoOut{Caption: in.Caption, Labels: []string{"a"}}, nil
		}),
		structuredTool("own_content", photoSchema, func(_ context.Context, call adapterCall, in photoIn) (photoOut, error) {
			call.AddContent(&ImageContent{Data: pixel, MIMEType: "image/png", Annotations: &Annotations{Audience: []string{"user"}, Priority: &prio}},
				Text("A photo of "+in.Caption))
			return photoOut{Caption: in.Caption, Labels: []string{"a"}}, nil
		}),
		structuredTool("own_content_and_json", photoSchema, func(_ context.Context, call adapterCall, in photoIn) (photoOut, error) {
			call.AddContent(Text("first"))
			call.AddOutputJSON()
			call.AddContent(&ResourceLink{URI: "file:///photo.png", Name: "photo.png"})
			call.AddOutputJSON() // only the first counts
			return photoOut{Caption: in.Caption, Labels: []string{}}, nil
		}),
		structuredTool("nil_labels", photoSchema, func(_ context.Context, _ adapterCall, in photoIn) (photoOut, error) {
			return photoOut{Caption: in.Caption}, nil // Labels nil: the struct's own MarshalJSON is generated code's job
		}),
		structuredTool("fails_after_content", photoSchema, func(_ context.Context, call adapterCall, _ photoIn) (photoOut, error) {
			call.AddContent(Text("half done"), &EmbeddedResource{Resource: ResourceContents{URI: "file:///log.txt", Text: "step 1 ok"}})
			call.AddOutputJSON()
			return photoOut{}, errors.New("step 2 failed")
		}),
		structuredTool("protocol_error", photoSchema, func(_ context.Context, call adapterCall, _ photoIn) (photoOut, error) {
			call.AddContent(Text("never sent"))
			return photoOut{}, fmt.Errorf("wrapped: %w", NewError(CodeInvalidParams, "bad caption"))
		}),
		NewStructuredTool(Tool{Name: "nil_root", Definition: json.RawMessage(
			`{"name":"nil_root","inputSchema":{"type":"object"},"outputSchema":{"type":"array","items":{"type":"string"}}}`)},
			newAdapterCall, func(context.Context, adapterCall, struct{}) ([]string, error) { return nil, nil }),
		NewStructuredTool(Tool{Name: "nil_map_root", Definition: json.RawMessage(
			`{"name":"nil_map_root","inputSchema":{"type":"object"},"outputSchema":{"type":"object","additionalProperties":{"type":"integer"}}}`)},
			newAdapterCall, func(context.Context, adapterCall, struct{}) (map[string]int, error) { return nil, nil }),
		NewContentTool(Tool{Name: "content", Definition: json.RawMessage(`{"name":"content","inputSchema":{"type":"object"}}`)},
			newAdapterCall, func(_ context.Context, call adapterCall, in photoIn) ([]Content, error) {
				call.AddOutputJSON() // no structured output: ignored
				call.AddContent(Text("added"))
				return []Content{Text("returned " + in.Caption)}, nil
			}),
		NewContentTool(Tool{Name: "content_fails", Definition: json.RawMessage(`{"name":"content_fails","inputSchema":{"type":"object"}}`)},
			newAdapterCall, func(_ context.Context, call adapterCall, _ photoIn) ([]Content, error) {
				call.AddContent(&AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"})
				return nil, errors.New("the microphone went away")
			}),
	}
}

// TestToolAdapters: what NewStructuredTool and NewContentTool answer, the
// same over HTTP and stdio in both eras: the output's JSON as the only text
// block by default; the handler's own blocks instead of it, with their
// annotations, once it adds any; the JSON block where AddOutputJSON asks
// for it; a nil root array or map as [] or {}; and, when the handler
// fails, the error's text followed by what it added before, except for
// protocol errors, which carry no content.
func TestToolAdapters(t *testing.T) {
	noLeaks(t)
	const labelsA = `{"caption":"cat","labels":["a"]}`
	text := func(s string) string { return fmt.Sprintf(`{"type":"text","text":%q}`, s) }
	cases := []struct {
		tool       string
		content    []string // each block as JSON
		structured string   // as the 2026-07-28 era sends it; "" for none
		isError    bool
	}{
		{"json_only", []string{text(labelsA)}, labelsA, false},
		{"own_content", []string{
			`{"type":"image","data":"iVBORw==","mimeType":"image/png","annotations":{"audience":["user"],"priority":0.9}}`,
			text("A photo of cat"),
		}, labelsA, false},
		{"own_content_and_json", []string{
			text("first"),
			text(`{"caption":"cat","labels":[]}`),
			`{"type":"resource_link","uri":"file:///photo.png","name":"photo.png"}`,
		}, `{"caption":"cat","labels":[]}`, false},
		{"fails_after_content", []string{
			text("step 2 failed"),
			text("half done"),
			`{"type":"resource","resource":{"uri":"file:///log.txt","text":"step 1 ok"}}`,
		}, "", true},
		{"nil_root", []string{text("[]")}, `[]`, false},
		{"nil_map_root", []string{text("{}")}, `{}`, false},
		{"content", []string{text("returned cat"), text("added")}, "", false},
		{"content_fails", []string{text("the microphone went away"), `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`}, "", true},
	}
	for _, tr := range parityTransportsWith(t, Options{}, adapterTools()) {
		t.Run(tr.name, func(t *testing.T) {
			legacy := tr.name == "legacy HTTP" || tr.name == "legacy stdio"
			for i, tc := range cases {
				m := tr.send(t, 10+i, "tools/call", map[string]any{"name": tc.tool, "arguments": map[string]any{"caption": "cat"}})
				if m.Error != nil {
					t.Fatalf("%s: error %d %s", tc.tool, m.Error.Code, m.Error.Message)
				}
				var r struct {
					Content           []json.RawMessage `json:"content"`
					StructuredContent json.RawMessage   `json:"structuredContent"`
					IsError           bool              `json:"isError"`
				}
				if err := json.Unmarshal(m.Result, &r); err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, c := range r.Content {
					got = append(got, string(c))
				}
				if !reflect.DeepEqual(got, tc.content) {
					t.Errorf("%s: content\n%s\nwant\n%s", tc.tool, got, tc.content)
				}
				want := tc.structured
				if legacy && tc.tool == "nil_root" {
					want = `{"result":[]}` // 2025 sessions get a non-object root wrapped
				}
				if string(r.StructuredContent) != want || r.IsError != tc.isError {
					t.Errorf("%s: structuredContent %s isError %v, want %s %v", tc.tool, r.StructuredContent, r.IsError, want, tc.isError)
				}
			}
			m := tr.send(t, 99, "tools/call", map[string]any{"name": "protocol_error", "arguments": map[string]any{}})
			if m.Error == nil || m.Error.Code != CodeInvalidParams || m.Error.Message != "bad caption" || m.Result != nil {
				t.Errorf("protocol_error: result %s error %+v, want -32602 bad caption alone", m.Result, m.Error)
			}
		})
	}
}

// TestNilRequiredArrayFailsValidation: a nil slice in a required array
// property that no generated MarshalJSON turned into [] goes out as null,
// which the schema refuses (the generated types prevent it; see the
// golden nil-collections).
func TestNilRequiredArrayFailsValidation(t *testing.T) {
	noLeaks(t)
	tr := parityTransportsWith(t, Options{}, adapterTools())[0]
	m := tr.send(t, 1, "tools/call", map[string]any{"name": "nil_labels", "arguments": map[string]any{"caption": "cat"}})
	if m.Error != nil || !json.Valid(m.Result) {
		t.Fatalf("error %+v", m.Error)
	}
	var r struct {
		Content []TextContent `json:"content"`
		IsError bool          `json:"isError"`
	}
	_ = json.Unmarshal(m.Result, &r)
	if !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, "/labels: expected array, but got null") {
		t.Fatalf("result %s, want the output check to refuse null labels", m.Result)
	}
}

// TestEmptyOutput: which outputSchema roots turn a null output into an
// empty value.
func TestEmptyOutput(t *testing.T) {
	for def, want := range map[string]string{
		`{"outputSchema":{"type":"array"}}`:             "[]",
		`{"outputSchema":{"type":"object"}}`:            "{}",
		`{"outputSchema":{"type":["array","null"]}}`:    "",
		`{"outputSchema":{"type":"string"}}`:            "",
		`{"outputSchema":{"oneOf":[{"type":"array"}]}}`: "",
		`{"name":"no output schema"}`:                   "",
		`not JSON`:                                      "",
	} {
		if got := string(emptyOutput(json.RawMessage(def))); got != want {
			t.Errorf("emptyOutput(%s) = %q, want %q", def, got, want)
		}
	}
}

// BenchmarkToolAdapter is the wiring of one call alone, decode to result:
// the generic adapter against the closure generated code wrote before it
// (the same steps, open-coded).
func BenchmarkToolAdapter(b *testing.B) {
	def := json.RawMessage(`{"name":"add","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}`)
	type in struct{ A, B float64 }
	type out struct {
		Sum float64 `json:"sum"`
	}
	add := func(_ context.Context, _ adapterCall, x in) (out, error) { return out{x.A + x.B}, nil }
	args := json.RawMessage(`{"a":1,"b":2}`)
	run := func(b *testing.B, h ToolHandler) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h(context.Background(), newCall(nil, nil, nil), args); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("generic", func(b *testing.B) {
		run(b, NewStructuredTool(Tool{Name: "add", Definition: def}, newAdapterCall, add).Handler)
	})
	b.Run("open-coded", func(b *testing.B) {
		run(b, func(ctx context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
			var x in
			if err := DecodeArguments("add", args, &x); err != nil {
				return nil, err
			}
			o, err := add(ctx, adapterCall{NewToolCall(call)}, x)
			if err != nil {
				return nil, err
			}
			return StructuredResult(call, o)
		})
	})
}
