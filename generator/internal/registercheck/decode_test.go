package registercheck

import (
	"encoding/json"
	"testing"

	nullable "github.com/mcpgen/mcpgen/testdata/golden/nullable/want"
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
