// Package registercheck runs the Register function of generated packages
// against the real runtime. It lives apart from the generator's own tests so
// that a generator change that breaks the goldens can still be -update'd.
package registercheck

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	conf "github.com/mcpgen/mcpgen/testdata/golden/conformance-2020-12/want"
	defaults "github.com/mcpgen/mcpgen/testdata/golden/defaults/want"
	defs "github.com/mcpgen/mcpgen/testdata/golden/defs/want"
	draft07 "github.com/mcpgen/mcpgen/testdata/golden/draft-07/want"
	spellings "github.com/mcpgen/mcpgen/testdata/golden/elicit-spellings/want"
	metastrip "github.com/mcpgen/mcpgen/testdata/golden/meta-strip/want"
	multi "github.com/mcpgen/mcpgen/testdata/golden/multi-elicit/want"
	rootshapes "github.com/mcpgen/mcpgen/testdata/golden/root-shapes/want"
	dump "github.com/mcpgen/mcpgen/testdata/golden/tools-list-dump/want"
	kinds "github.com/mcpgen/mcpgen/testdata/golden/unions-by-kind/want"
	unions "github.com/mcpgen/mcpgen/testdata/golden/unions/want"
	"github.com/mcpgen/mcpgen/testdata/realworld"
)

func TestRegister(t *testing.T) {
	for name, register := range map[string]func(*runtime.Server) error{
		"realworld":        func(s *runtime.Server) error { return realworld.Register(s, realworld.UnimplementedHandler{}) },
		"defs":             func(s *runtime.Server) error { return defs.Register(s, defs.UnimplementedHandler{}) },
		"elicit-spellings": func(s *runtime.Server) error { return spellings.Register(s, spellings.UnimplementedHandler{}) },
		"meta-strip":       func(s *runtime.Server) error { return metastrip.Register(s, metastrip.UnimplementedHandler{}) },
		"multi-elicit":     func(s *runtime.Server) error { return multi.Register(s, multi.UnimplementedHandler{}) },
		"unions":           func(s *runtime.Server) error { return unions.Register(s, unions.UnimplementedHandler{}) },
		"unions-by-kind":   func(s *runtime.Server) error { return kinds.Register(s, kinds.UnimplementedHandler{}) },
		"conformance":      func(s *runtime.Server) error { return conf.Register(s, conf.UnimplementedHandler{}) },
		"defaults":         func(s *runtime.Server) error { return defaults.Register(s, defaults.UnimplementedHandler{}) },
		"draft-07":         func(s *runtime.Server) error { return draft07.Register(s, draft07.UnimplementedHandler{}) },
		"root-shapes":      func(s *runtime.Server) error { return rootshapes.Register(s, rootshapes.UnimplementedHandler{}) },
		"tools-list-dump":  func(s *runtime.Server) error { return dump.Register(s, dump.UnimplementedHandler{}) },
	} {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewServer(runtime.Options{Name: name})
			if err := register(s); err != nil {
				t.Fatalf("Register: %v", err)
			}
			if err := register(s); err == nil {
				t.Fatal("registering the same tools twice succeeded")
			}
		})
	}
}

func TestUnimplemented(t *testing.T) {
	_, err := realworld.UnimplementedHandler{}.GitStatus(context.Background(), realworld.GitStatusCall{}, realworld.GitStatusInput{})
	if err == nil || err.Error() != `tool "git_status" is not implemented` {
		t.Fatalf("err = %v", err)
	}
}

// TestTypes checks the generated JSON behaviour: defaults, enum validation
// and discriminated unions.
func TestTypes(t *testing.T) {
	var in realworld.FetchInput
	if err := json.Unmarshal([]byte(`{"url":"https://example.com"}`), &in); err != nil {
		t.Fatal(err)
	}
	if in.MaxLength != 5000 || in.Raw || in.URL != "https://example.com" {
		t.Fatalf("defaults not applied: %+v", in)
	}
	var ci realworld.CreateIssueInput
	if err := json.Unmarshal([]byte(`{"project":"ENG","title":"x"}`), &ci); err != nil || ci.Priority != realworld.CreateIssueInputPriorityMedium {
		t.Fatalf("enum default: %+v %v", ci, err)
	}
	if err := json.Unmarshal([]byte(`{"project":"ENG","title":"x","priority":"whenever"}`), &ci); err == nil {
		t.Fatal("an unknown enum value was accepted")
	}
	var search defaults.SearchInput
	if err := json.Unmarshal([]byte(`{"query":"q"}`), &search); err != nil {
		t.Fatal(err)
	}
	if search.Limit != 20 || search.Ratio != 0.5 || search.Order != defaults.SearchInputOrderDesc || len(search.Tags) != 2 ||
		search.Labels["team"] != "core" || search.Window.From == nil || *search.Window.From != 1 || search.Since.Year() != 2024 {
		t.Fatalf("defaults not applied: %+v", search)
	}
	search = defaults.SearchInput{}
	if err := json.Unmarshal([]byte(`{"query":"q","labels":{"x":"y"},"window":{},"tags":["z"],"limit":0}`), &search); err != nil {
		t.Fatal(err)
	}
	if len(search.Labels) != 1 || search.Labels["x"] != "y" || search.Window.From != nil || len(search.Tags) != 1 || search.Limit != 0 {
		t.Fatalf("given values mixed with defaults: %+v", search)
	}

	var shape unions.DrawShapeInputShape
	if err := json.Unmarshal([]byte(`{"kind":"square","side":2}`), &shape); err != nil || shape.Square == nil || shape.Square.Side != 2 || shape.Circle != nil {
		t.Fatalf("union decode: %+v %v", shape, err)
	}
	b, err := json.Marshal(unions.DrawShapeInputShape{Circle: &unions.DrawShapeCircle{Radius: 1}})
	if err != nil || string(b) != `{"kind":"circle","radius":1}` {
		t.Fatalf("union encode: %s %v", b, err)
	}
	if _, err := json.Marshal(unions.DrawShapeInputShape{}); err == nil {
		t.Fatal("an empty union encoded")
	}
	if err := json.Unmarshal([]byte(`{"kind":"hexagon"}`), &shape); err == nil {
		t.Fatal("an unknown variant decoded")
	}
}
