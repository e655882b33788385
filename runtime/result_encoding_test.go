package runtime

import (
	"encoding/json"
	"testing"
)

// TestAppendToolResultMatchesEncodingJSON: the hand encoder writes exactly
// what encoding/json writes.
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
	for _, s := range []string{"", "a", "\"", "<>&", "\u2028", "\xff\xfe", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}
