package runtime

import (
	"encoding/json"
	"testing"
)

// TestDecodeParamsNamesTheValueNotTheGoType: a value of the wrong JSON
// type is -32602 naming its JSON Pointer and the JSON types, at any depth,
// in arrays and maps too, and never encoding/json's words.
func TestDecodeParamsNamesTheValueNotTheGoType(t *testing.T) {
	type leaf struct {
		Tags []string `json:"tags"`
	}
	type params struct {
		Cursor *string            `json:"cursor"`
		Count  int                `json:"count"`
		Ratio  float64            `json:"ratio"`
		On     bool               `json:"on"`
		Leaf   *leaf              `json:"leaf"`
		Leaves []leaf             `json:"leaves"`
		ByName map[string]leaf    `json:"byName"`
		Raw    json.RawMessage    `json:"raw"`
		Any    any                `json:"any"`
		Kept   map[string]float64 `json:"a/b~c"`
	}
	for _, c := range []struct{ in, want string }{
		{`{"cursor":1}`, "invalid params: /cursor: expected string, got number"},
		{`{"cursor":{}}`, "invalid params: /cursor: expected string, got object"},
		{`{"CURSOR":true}`, "invalid params: /CURSOR: expected string, got boolean"},
		{`{"count":"1"}`, "invalid params: /count: expected integer, got string"},
		{`{"count":1.5}`, "invalid params: /count: expected integer, got number 1.5"},
		{`{"ratio":[]}`, "invalid params: /ratio: expected number, got array"},
		{`{"on":"yes"}`, "invalid params: /on: expected boolean, got string"},
		{`{"leaf":"x"}`, "invalid params: /leaf: expected object, got string"},
		{`{"leaf":{"tags":{}}}`, "invalid params: /leaf/tags: expected array, got object"},
		{`{"leaf":{"tags":["a",2]}}`, "invalid params: /leaf/tags/1: expected string, got number"},
		{`{"leaves":[{"tags":[]},{"tags":[null,false]}]}`, "invalid params: /leaves/1/tags/1: expected string, got boolean"},
		{`{"byName":{"x/y":{"tags":7}}}`, "invalid params: /byName/x~1y/tags: expected array, got number"},
		{`{"a/b~c":{"k":"v"}}`, "invalid params: /a~1b~0c/k: expected number, got string"},
		{`[1]`, "invalid params: expected object, got array"},
		{`"s"`, "invalid params: expected object, got string"},
		{`{"cursor":1,"count":"x"}`, "invalid params: /cursor: expected string, got number"},
	} {
		var p params
		err := DecodeParams(json.RawMessage(c.in), &p)
		e, ok := err.(*Error)
		if !ok || e.Code != CodeInvalidParams || e.Message != c.want {
			t.Errorf("%s: got %v, want -32602 %q", c.in, err, c.want)
		}
	}
	for _, in := range []string{``, `null`, `{}`, `{"cursor":null,"leaf":null,"raw":[1,{"x":2}],"any":3,"other":{"x":1}}`} {
		var p params
		if err := DecodeParams(json.RawMessage(in), &p); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}
