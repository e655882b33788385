package schema

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/internal/schemacheck"
)

const flatTestSchema = `{"type":"object","properties":{
	"s":{"type":"string","minLength":1,"maxLength":5},
	"e":{"type":"string","enum":["a","b","ü"]},
	"n":{"type":"number","minimum":-1.5,"maximum":10},
	"i":{"type":"integer","minimum":0},
	"b":{"type":"boolean","description":"flag"}},
	"required":["s","i"],"additionalProperties":false}`

// TestFlatSchemaAgreesWithJSONSchema: the fast path never accepts what the
// full validation rejects, and accepts the plain valid cases.
func TestFlatSchemaAgreesWithJSONSchema(t *testing.T) {
	f := CompileFlat([]byte(flatTestSchema))
	if f == nil {
		t.Fatal("schema not in the flat subset")
	}
	for _, tc := range []struct {
		args string
		fast bool
	}{
		{`{"s":"abc","i":3}`, true},
		{` { "s" : "abc" , "i" : 3 , "b" : true, "e":"ü", "n": -1.5 } `, true},
		{`{"s":"abc"}`, false},
		{`{"s":"","i":3}`, false},
		{`{"s":"abcdef","i":3}`, false},
		{`{"s":"abc","i":-1}`, false},
		{`{"s":"abc","i":1.0}`, false}, // valid, but left to the full check
		{`{"s":"a\"b","i":1}`, false},  // escapes: left to the full check
		{`{"s":"abc","i":3,"x":1}`, false},
		{`{"s":"abc","i":3,"e":"c"}`, false},
		{`{"s":"abc","i":3,"n":11}`, false},
		{`{"s":"abc","i":3,"b":"true"}`, false},
		{`{"s":null,"i":3}`, false},
	} {
		if got := f.Accepts([]byte(tc.args)); got != tc.fast {
			t.Errorf("%s: fast path %v, want %v", tc.args, got, tc.fast)
		}
	}
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","format":"email"}}}`,
		`{"type":"object","properties":{"a":{"type":"array"}}}`,
		`{"type":"object","$defs":{}}`,
		`{"type":"object","required":["missing"]}`,
	} {
		if CompileFlat([]byte(s)) != nil {
			t.Errorf("%s: compiled to the fast path", s)
		}
	}
}

func FuzzFlatSchema(f *testing.F) {
	for _, s := range []string{`{"s":"abc","i":3}`, `{"s":"x","i":0,"n":2.5,"e":"a","b":false}`, `{"s":"日本","i":1e2}`, `{"s":"a","i":3,"s":""}`, `{"s":"a","i":3,"z":{"q":[1,"]"]}}`} {
		f.Add([]byte(s))
	}
	schema, err := schemacheck.Compile("mcpgen:test/flat", []byte(flatTestSchema))
	if err != nil {
		f.Fatal(err)
	}
	fast := CompileFlat([]byte(flatTestSchema))
	f.Fuzz(func(t *testing.T, args []byte) {
		if !json.Valid(args) || !bytes.HasPrefix(bytes.TrimSpace(args), []byte("{")) {
			return
		}
		if !fast.Accepts(args) {
			return
		}
		d := json.NewDecoder(bytes.NewReader(args))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Fatalf("fast path accepted %s, the schema says %v", args, err)
		}
	})
}
