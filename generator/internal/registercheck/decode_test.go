package registercheck

import (
	"encoding/json"
	"testing"

	nullable "github.com/mcpgen/mcpgen/testdata/golden/nullable/want"
	kinds "github.com/mcpgen/mcpgen/testdata/golden/unions-by-kind/want"
)

// TestOptionalNullable decodes "omit to keep, null to clear" arguments into
// the generated input: absent, null and a value stay three different things.
func TestOptionalNullable(t *testing.T) {
	for _, tc := range []struct {
		in           string
		absent, null bool
		age          int64
	}{
		{in: `{"nickname": null}`, absent: true},
		{in: `{"nickname": null, "age": null}`, null: true},
		{in: `{"nickname": "x", "age": 42}`, age: 42},
	} {
		var in nullable.UpdateUserInput
		if err := json.Unmarshal([]byte(tc.in), &in); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		age, ok := in.Age.Get()
		if in.Age.Absent() != tc.absent || in.Age.Null() != tc.null || ok != (!tc.absent && !tc.null) || age != tc.age {
			t.Errorf("%s: age absent=%v null=%v get=(%d, %v)", tc.in, in.Age.Absent(), in.Age.Null(), age, ok)
		}
		if level := in.Level; !level.Absent() {
			t.Errorf("%s: level should be absent", tc.in)
		}
	}
	var in nullable.UpdateUserInput
	if err := json.Unmarshal([]byte(`{"nickname": null, "level": "medium"}`), &in); err == nil {
		t.Error("an enum value outside the enum decoded into Optional")
	}
}

// TestChoices decodes values of the sum types made from unions without a
// discriminator: by the JSON kind, and among objects by the key present.
func TestChoices(t *testing.T) {
	var in kinds.ThinkInput
	src := `{"nextThoughtNeeded": "true", "goggles": ["a", "b"], "strict": false,
		"comments": [{"path": "p", "position": 3, "body": "x"}, {"path": "p", "line": 7, "body": "y"}],
		"stage": {"$match": {}}, "sort": "asc", "projectSlugOrId": 42, "value": null, "coordinates": [1.5, 2.5]}`
	if err := json.Unmarshal([]byte(src), &in); err != nil {
		t.Fatal(err)
	}
	switch {
	case in.NextThoughtNeeded.String == nil || *in.NextThoughtNeeded.String != "true" || in.NextThoughtNeeded.Boolean != nil:
		t.Errorf("nextThoughtNeeded: %+v", in.NextThoughtNeeded)
	case in.Goggles == nil || len(in.Goggles.Array) != 2 || in.Goggles.String != nil:
		t.Errorf("goggles: %+v", in.Goggles)
	case in.Strict == nil || in.Strict.Boolean == nil || *in.Strict.Boolean:
		t.Errorf("strict: %+v", in.Strict)
	case len(in.Comments) != 2 || in.Comments[0].Position == nil || in.Comments[1].Line == nil || in.Comments[1].Line.Line != 7:
		t.Errorf("comments: %+v", in.Comments)
	case in.Stage == nil || in.Stage.Object == nil || in.Stage.VectorSearch != nil:
		t.Errorf("stage: %+v", in.Stage)
	case in.Sort == nil || in.Sort.String == nil || *in.Sort.String != kinds.ThinkInputSortStringAsc:
		t.Errorf("sort: %+v", in.Sort)
	case in.ProjectSlugOrID == nil || in.ProjectSlugOrID.Number == nil || *in.ProjectSlugOrID.Number != 42:
		t.Errorf("projectSlugOrId: %+v", in.ProjectSlugOrID)
	case !in.Value.Null():
		t.Errorf("value: %+v", in.Value)
	case len(in.Coordinates) != 2:
		t.Errorf("coordinates: %v", in.Coordinates)
	}
	// Encoding writes back the field that is set.
	out, err := json.Marshal(in.Comments)
	if err != nil || string(out) != `[{"path":"p","position":3,"body":"x"},{"path":"p","line":7,"body":"y"}]` {
		t.Errorf("comments encode as %s (%v)", out, err)
	}
	if err := json.Unmarshal([]byte(`{"nextThoughtNeeded": true, "comments": [{"path": "p"}]}`), &in); err == nil {
		t.Error("a comment with neither position nor line decoded")
	}
	if err := json.Unmarshal([]byte(`{"nextThoughtNeeded": 3}`), &in); err == nil {
		t.Error("a number decoded into a boolean-or-string")
	}
	if _, err := json.Marshal(kinds.ThinkInputGoggles{}); err == nil {
		t.Error("a choice with no field set encoded")
	}
	var o kinds.ThinkOutput
	if err := json.Unmarshal([]byte(`{"content": [{"type": "audio", "data": "", "mimeType": "audio/wav"}, {"type": "resource", "uri": "u"}], "count": "indeterminate"}`), &o); err != nil {
		t.Fatal(err)
	}
	if o.Content[0].ImageOrAudio == nil || o.Content[1].Resource == nil || o.Count == nil || o.Count.String == nil {
		t.Errorf("output: %+v", o)
	}
}
