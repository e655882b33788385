package runtime

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/schema"
)

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
				compiled, err := schema.Compile("test:"+name, adv)
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
