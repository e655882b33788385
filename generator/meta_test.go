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
