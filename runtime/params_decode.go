package runtime

import (
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// DecodeParams decodes a request's params (MethodRequest.Params) into dst,
// a pointer to the method's params struct, as encoding/json does. A value
// of the wrong JSON type is a -32602 *Error whose message names where it
// is, as a JSON Pointer, and what was expected:
//
//	invalid params: /cursor: expected string, got number
//
// never encoding/json's text, which names the server's Go types and
// fields. Every params decode whose error may reach a client goes through
// here (the runtime's own members too, see requestParams.fail), so that
// all methods, core and extension, word these errors alike. Absent or null
// params leave dst as it is. The error is always an *Error (nil when the
// params decode).
func DecodeParams(params json.RawMessage, dst any) error {
	if e := decodeAt(params, dst, ""); e != nil {
		return e
	}
	return nil
}

// decodeAt is DecodeParams for the member of params at pointer at ("" for
// params itself): its errors name their place from params down.
func decodeAt(raw json.RawMessage, dst any, at string) *Error {
	raw = trimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	err := json.Unmarshal(raw, dst)
	if err == nil {
		return nil
	}
	if t := reflect.TypeOf(dst); t != nil && t.Kind() == reflect.Pointer {
		if e := typeMismatch(raw, t.Elem(), at); e != nil {
			return e
		}
	}
	var rpc *Error
	if errors.As(err, &rpc) {
		return rpc // a params type's own UnmarshalJSON said what is wrong
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		// A value the walk below cannot judge (a number out of range, say):
		// encoding/json's path has no indices, but it names the member.
		got, _, _ := strings.Cut(te.Value, " ")
		return invalidParams(at+"/"+strings.ReplaceAll(te.Field, ".", "/"), "a value "+jsonTypeOf(te.Type)+" can hold", got)
	}
	return NewError(CodeInvalidParams, "invalid params: a member has a value of the wrong type or range")
}

// invalidParams is the -32602 of a value at pointer (a JSON Pointer into
// params, "" for params itself) that is not of type want.
func invalidParams(pointer, want, got string) *Error {
	if pointer == "" {
		return NewError(CodeInvalidParams, "invalid params: expected %s, got %s", want, got)
	}
	return NewError(CodeInvalidParams, "invalid params: %s: expected %s, got %s", clip(pointer, 128), want, got)
}

// jsonKind is the JSON type of the value v starts with.
func jsonKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// jsonTypeOf is the JSON type a Go type decodes from, as a message says it.
func jsonTypeOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "string"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		return "array"
	case reflect.Array:
		return "array"
	}
	return "any JSON value"
}

// typeMismatch walks raw beside t the way encoding/json decodes it and
// returns the -32602 of the first value (in document order) t cannot hold,
// or nil. It runs only after a decode failed, so it may be slow.
func typeMismatch(raw []byte, t reflect.Type, at string) *Error {
	raw = trimSpace(raw)
	got := jsonKind(raw)
	if got == "null" {
		return nil // encoding/json takes null for every type
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return nil // the type judges its own values (json.RawMessage takes any)
	}
	want := jsonTypeOf(t)
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		if got != "string" {
			return invalidParams(at, want, got)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Interface:
		return nil
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64:
		if got != want {
			return invalidParams(at, want, got)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if got != "number" {
			return invalidParams(at, want, got)
		}
		if strings.ContainsAny(string(raw), ".eE") || t.Kind() >= reflect.Uint && raw[0] == '-' {
			return invalidParams(at, want, "number "+clip(string(raw), 32))
		}
	case reflect.Struct:
		if got != "object" {
			return invalidParams(at, want, got)
		}
		var bad *Error
		jsonscan.EachMember(raw, func(key, v []byte) bool {
			if f, ok := fieldOf(t, string(key)); ok {
				bad = typeMismatch(v, f, at+"/"+pointerToken(string(key)))
			}
			return bad == nil
		})
		return bad
	case reflect.Map:
		if got != "object" {
			return invalidParams(at, want, got)
		}
		var bad *Error
		jsonscan.EachMember(raw, func(key, v []byte) bool {
			bad = typeMismatch(v, t.Elem(), at+"/"+pointerToken(string(key)))
			return bad == nil
		})
		return bad
	case reflect.Slice, reflect.Array:
		if want == "string" {
			if got != "string" {
				return invalidParams(at, want, got)
			}
			return nil
		}
		if got != "array" {
			return invalidParams(at, want, got)
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil
		}
		for i, v := range items {
			if bad := typeMismatch(v, t.Elem(), at+"/"+strconv.Itoa(i)); bad != nil {
				return bad
			}
		}
	}
	return nil
}

// fieldOf is the type of the struct field that encoding/json fills from
// member key: the exact JSON name first, then one equal under case folding,
// looking into embedded structs.
func fieldOf(t reflect.Type, key string) (reflect.Type, bool) {
	var folded reflect.Type
	var walk func(t reflect.Type) (reflect.Type, bool)
	walk = func(t reflect.Type) (reflect.Type, bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				et := f.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					if ft, ok := walk(et); ok {
						return ft, true
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if name == key {
				return f.Type, true
			}
			if folded == nil && strings.EqualFold(name, key) {
				folded = f.Type
			}
		}
		return nil, false
	}
	if ft, ok := walk(t); ok {
		return ft, true
	}
	return folded, folded != nil
}

// pointerToken escapes a member name for a JSON Pointer (RFC 6901).
func pointerToken(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// decodeValue is DecodeParams for a value inside params (a client's answer
// to an input request, say): the same words, without "invalid params: ",
// for a message that says which value it was.
func decodeValue(raw json.RawMessage, dst any) error {
	if e := decodeAt(raw, dst, ""); e != nil {
		return errors.New(strings.TrimPrefix(e.Message, "invalid params: "))
	}
	return nil
}
