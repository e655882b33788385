package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// noteArgs is what a generated decoder makes of the note tool's arguments:
// encoding/json, which matches keys case-insensitively.
type noteArgs struct {
	Title string  `json:"title"`
	Note  *string `json:"note,omitempty"`
	Tags  []struct {
		Name string `json:"name"`
	} `json:"tags"`
}

const noteSchema = `{"type":"object","properties":{
	"title":{"type":"string","minLength":1},
	"note":{"type":"string"},
	"tags":{"type":"array","items":{"$ref":"#/$defs/tag"}}},
	"required":["title"],
	"$defs":{"tag":{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z]+$"}}}}}`

func noteTool() Tool {
	return toolOf("note", noteSchema, func(_ context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
		var in noteArgs
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		note := "<none>"
		if in.Note != nil {
			note = *in.Note
		}
		var tags []string
		for _, t := range in.Tags {
			tags = append(tags, t.Name)
		}
		return ContentResult(call, []Content{Text(fmt.Sprintf("title=%s note=%s tags=%v", in.Title, note, tags))}), nil
	})
}

// TestCaseVariantKeysNeverReachTheHandler: keys that differ from a declared
// name only in case are extras to JSON Schema but would overwrite the
// declared field in encoding/json; the handler gets exactly what was
// validated, in both eras, at every depth the schema declares names.
func TestCaseVariantKeysNeverReachTheHandler(t *testing.T) {
	cases := []struct{ args, want string }{
		{`{"title":"y","Title":"welcome"}`, "title=y note=<none> tags=[]"},
		{`{"title":"ok","TITLE":""}`, "title=ok note=<none> tags=[]"},
		{`{"TITLE":"","title":"ok","Note":"injected"}`, "title=ok note=<none> tags=[]"},
		{`{"title":"t","tags":[{"name":"ok","NAME":"BAD NAME"}]}`, "title=t note=<none> tags=[ok]"},
		{`{"title":"t","note":"kept","extra":1}`, "title=t note=kept tags=[]"},
	}
	_, ts := legacyServer(t, Options{}, noteTool())
	legacy := newClient(t, ts)
	legacy.initialize(Version20251125, `{}`)
	modern := modernServer(t, newTestServer(t, noteTool()))
	for _, tc := range cases {
		var args map[string]any
		_ = json.Unmarshal([]byte(tc.args), &args)
		if got := resultText(t, jsonBody(t, legacy.post(callBody(1, "note", tc.args)))); got != tc.want {
			t.Errorf("legacy %s: %q, want %q", tc.args, got, tc.want)
		}
		r := modern.call("tools/call", map[string]any{"name": "note", "arguments": json.RawMessage(tc.args)}, withHeader(headerName, "note"))
		content, _ := r.result(t)["content"].([]any)
		if len(content) == 0 || content[0].(map[string]any)["text"] != tc.want {
			t.Errorf("2026-07-28 %s: %v, want %q", tc.args, r.result(t), tc.want)
		}
	}
	// A case variant alone does not satisfy a required name either.
	if got := resultText(t, jsonBody(t, legacy.post(callBody(2, "note", `{"Title":"x"}`)))); got[:6] != "ERROR:" {
		t.Errorf(`{"Title":"x"}: %q, want the missing title reported`, got)
	}
}

// TestCaseVariantAnswerKeysNeverReachTheHandler: an elicitation answer's
// USERNAME does not replace the username the form validated.
func TestCaseVariantAnswerKeysNeverReachTheHandler(t *testing.T) {
	form := &Elicitation{Name: "who", Mode: "form", Message: "Who?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"username":{"type":"string","minLength":3}},"required":["username"]}`)}
	var got struct {
		Username string `json:"username"`
	}
	for _, answer := range []string{
		`{"username":"alice","USERNAME":"x"}`,
		`{"USERNAME":"x","username":"alice"}`,
		`{"username":"alice","Username":"mallory"}`,
	} {
		got.Username = ""
		if err := form.decodeAnswer(json.RawMessage(answer), &got); err != nil || got.Username != "alice" {
			t.Errorf("%s: username %q, err %v; want alice", answer, got.Username, err)
		}
	}
	if err := form.decodeAnswer(json.RawMessage(`{"USERNAME":"alice"}`), &got); err == nil {
		t.Errorf(`{"USERNAME":"alice"} was accepted for a required username`)
	}
}
