package generator

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

func TestStripMeta(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"name": "a", "_meta": {"x": 1}}`, `{"name": "a", "_meta": {"x": 1}}`},
		{`{"name": "a", "_meta": {"mcpgen.dev/elicitations": ["c"]}}`, `{"name": "a"}`},
		{`{"_meta": {"mcpgen.dev/elicitations": []}, "name": "a"}`, `{"name": "a"}`},
		{`{"name": "a", "_meta": {"mcpgen.dev/elicitations": [], "x": 1}}`, `{"name": "a", "_meta": {"x": 1}}`},
		{`{"name": "a", "_meta": {"x": 1, "mcpgen.dev/elicitations": []}, "z": 2}`, `{"name": "a", "_meta": {"x": 1}, "z": 2}`},
		{`{"name": "a", "_meta": {"mcpgen.dev/go-name": "A", "x": 1, "mcpgen.dev/elicitations": [], "y": 2}}`, `{"name": "a", "_meta": {"x": 1, "y": 2}}`},
		{"{\n  \"name\": \"a\",\n  \"_meta\": {\n    \"mcpgen.dev/elicitations\": []\n  }\n}", "{\n  \"name\": \"a\"\n}"},
		{`{"name": "a", "inputSchema": {"type": "object", "x-go-name": "A", "properties": {"x-go-name": {"type": "string", "x-go-field-name": "N"}}}}`,
			`{"name": "a", "inputSchema": {"type": "object", "properties": {"x-go-name": {"type": "string"}}}}`},
		{`{"name": "a", "inputSchema": {"properties": {"m": {"enum": ["x-go-name"], "x-go-enum-names": ["X"]}}, "x-go-name": "A"}, "_meta": {"mcpgen.dev/go-name": "A"}}`,
			`{"name": "a", "inputSchema": {"properties": {"m": {"enum": ["x-go-name"]}}}}`},
		{`{"name": "a", "inputSchema": {"$defs": {"d": {"x-go-name": "D"}}, "anyOf": [{"x-go-name": "B", "type": "object"}], "items": [{"x-go-name": "I"}]}}`,
			`{"name": "a", "inputSchema": {"$defs": {"d": {}}, "anyOf": [{"type": "object"}], "items": [{}]}}`},
	} {
		d, err := jsontree.Parse([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		got := string(stripMeta(d, d.Root))
		if got != tc.want {
			t.Errorf("stripMeta(%s)\n got %s\nwant %s", tc.in, got, tc.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("stripMeta(%s) is not JSON", tc.in)
		}
	}
}
