package runtime

import (
	"encoding/json"
	"testing"
)

func TestOptionalTellsAbsentNullAndValueApart(t *testing.T) {
	type args struct {
		Note Optional[string]   `json:"note,omitzero"`
		Tags Optional[[]string] `json:"tags,omitzero"`
	}
	for _, tc := range []struct {
		in                 string
		absent, null, set  bool
		value              string
		tagsAbsent, tagSet bool
	}{
		{in: `{}`, absent: true, tagsAbsent: true},
		{in: `{"note": null, "tags": null}`, null: true},
		{in: `{"note": "hi", "tags": ["a"]}`, set: true, value: "hi", tagSet: true},
		{in: `{"note": ""}`, set: true, tagsAbsent: true},
	} {
		var a args
		if err := json.Unmarshal([]byte(tc.in), &a); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		v, ok := a.Note.Get()
		if a.Note.Absent() != tc.absent || a.Note.Null() != tc.null || ok != tc.set || v != tc.value {
			t.Errorf("%s: note absent=%v null=%v get=(%q, %v)", tc.in, a.Note.Absent(), a.Note.Null(), v, ok)
		}
		if _, ok := a.Tags.Get(); a.Tags.Absent() != tc.tagsAbsent || ok != tc.tagSet {
			t.Errorf("%s: tags absent=%v set=%v", tc.in, a.Tags.Absent(), ok)
		}
		// Encoding gives back what was decoded.
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var back args
		if err := json.Unmarshal(out, &back); err != nil || back.Note.Absent() != a.Note.Absent() || back.Note.Null() != a.Note.Null() {
			t.Errorf("%s: round trip gave %s", tc.in, out)
		}
	}
	if _, err := json.Marshal(args{Note: Some("x"), Tags: Null[[]string]()}); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(args{Note: Some("x"), Tags: Null[[]string]()}); string(b) != `{"note":"x","tags":null}` {
		t.Errorf("Some and Null encode as %s", b)
	}
	var bad args
	if err := json.Unmarshal([]byte(`{"note": 3}`), &bad); err == nil {
		t.Error("a number decoded into Optional[string]")
	}
}
