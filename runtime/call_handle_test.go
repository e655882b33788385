package runtime

import (
	"reflect"
	"testing"
)

// A generated handle embeds ToolCall or FeatureCall and keeps its *Call in
// an unexported field, so that asking for an elicitation the input does not
// declare is a compile error. That holds only while nothing a handler can
// reach through the embedded part hands out the *Call.
func TestCallHandlesDoNotGiveTheCallAway(t *testing.T) {
	callType := reflect.TypeFor[*Call]()
	for _, typ := range []reflect.Type{reflect.TypeFor[ToolCall](), reflect.TypeFor[FeatureCall]()} {
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			for j := range m.Type.NumOut() {
				if out := m.Type.Out(j); out == callType || out == callType.Elem() {
					t.Errorf("%s.%s returns %s", typ.Name(), m.Name, out)
				}
			}
		}
		for i := range typ.NumField() {
			if f := typ.Field(i); f.IsExported() && f.Type == callType {
				t.Errorf("%s.%s is an exported *Call", typ.Name(), f.Name)
			}
		}
	}
	// ToolCall is FeatureCall plus what only a tool's result carries.
	tool, feature := reflect.TypeFor[ToolCall](), reflect.TypeFor[FeatureCall]()
	for i := range feature.NumMethod() {
		if name := feature.Method(i).Name; !hasMethod(tool, name) {
			t.Errorf("ToolCall lacks FeatureCall.%s", name)
		}
	}
	for _, name := range []string{"AddContent", "AddOutputJSON", "State", "SetState"} {
		if !hasMethod(tool, name) {
			t.Errorf("ToolCall lacks %s", name)
		}
	}
}

func hasMethod(typ reflect.Type, name string) bool {
	_, ok := typ.MethodByName(name)
	return ok
}
