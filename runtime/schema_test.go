package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestViolationsReportEveryProblem: an invalid call reads every problem at
// once, and a titled enum (oneOf of consts) reads "must be one of".
func TestViolationsReportEveryProblem(t *testing.T) {
	tool := toolOf("m", `{"type":"object","properties":{
		"mode":{"oneOf":[{"const":"read","title":"Read"},{"const":"edit","title":"Edit"}]},
		"level":{"anyOf":[{"const":1},{"const":2}]},
		"n":{"type":"integer","minimum":1},
		"s":{"enum":["a","b"]}},"required":["n"]}`,
		func(context.Context, *Call, json.RawMessage) (*ToolResult, error) { return nil, nil })
	s := NewServer(Options{})
	if err := s.AddTool(tool); err != nil {
		t.Fatal(err)
	}
	_, res := s.features.tool("m").validate(json.RawMessage(`{"mode":"write","level":3,"n":0,"s":"c"}`))
	if res == nil || !res.IsError {
		t.Fatalf("want an isError result, got %+v", res)
	}
	msg := res.Content[0].(*TextContent).Text
	for _, want := range []string{`/mode: must be one of read, edit`, `/level: must be one of 1, 2`, `/n: must be >= 1`, `/s: value must be one of "a", "b"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, `value must be "read"`) {
		t.Errorf("%q still lists the branches one by one", msg)
	}
}
