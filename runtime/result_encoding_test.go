package runtime

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

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
