package generator

import (
	"encoding/json"
	"fmt"
	"testing"
)

// benchInputs is a tools/list dump of n tools with nested objects, enums,
// defaults and an output schema, plus one form elicitation they all declare.
func benchInputs(n int) []InputFile {
	tools := make([]any, n)
	for i := range tools {
		tools[i] = map[string]any{
			"name":        fmt.Sprintf("tool_%04d", i),
			"description": fmt.Sprintf("Benchmark tool %d", i),
			"inputSchema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"id":    map[string]any{"type": "string"},
					"limit": map[string]any{"type": "integer", "default": 10},
					"mode":  map[string]any{"type": "string", "enum": []string{"fast", "slow"}},
					"filter": map[string]any{"type": "object", "properties": map[string]any{
						"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
						"since": map[string]any{"type": "string", "format": "date-time"},
					}},
				},
				"required": []string{"id"},
			},
			"outputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"ok": map[string]any{"type": "boolean"}},
				"required":   []string{"ok"},
			},
			"_meta": map[string]any{metaElicitations: []string{"confirm"}},
		}
	}
	dump, _ := json.MarshalIndent(map[string]any{"tools": tools}, "", "  ")
	form := []byte(`{"name": "confirm", "description": "Confirm", "mode": "form",
		"requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}}`)
	return []InputFile{{Path: "tools.json", Data: dump}, {Path: "confirm.json", Data: form}}
}

// BenchmarkGenerate1000Tools generates a package from 1,000 tools.
func BenchmarkGenerate1000Tools(b *testing.B) {
	inputs := benchInputs(1000)
	b.ReportAllocs()
	for b.Loop() {
		res, err := Generate(Config{Package: "bench", Inputs: inputs})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Files) != 1002 {
			b.Fatalf("%d files", len(res.Files))
		}
	}
}
