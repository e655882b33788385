package runtime

import (
	"bytes"
	"encoding/json"
)

// Optional is a property that may be absent, null, or hold a value: the
// generated type of an optional property whose schema allows null, so that a
// handler can tell "omit to keep" from "null to clear" from a new value.
//
// Decoding sets it to null for a JSON null and to the value otherwise; a
// property that is not in the JSON leaves it absent, its zero value. The
// generated field carries `json:",omitzero"`, so an absent Optional is left
// out when encoding, a null one is written as null.
type Optional[T any] struct {
	value T
	state optionalState
}

type optionalState uint8

const (
	optionalAbsent optionalState = iota
	optionalNull
	optionalSet
)

// Some returns an Optional holding v.
func Some[T any](v T) Optional[T] { return Optional[T]{value: v, state: optionalSet} }

// Null returns an Optional that is present and null.
func Null[T any]() Optional[T] { return Optional[T]{state: optionalNull} }

// Absent reports whether the property was left out.
func (o Optional[T]) Absent() bool { return o.state == optionalAbsent }

// Null reports whether the property was given as null.
func (o Optional[T]) Null() bool { return o.state == optionalNull }

// Get returns the value and true when the property holds one; the zero value
// and false when it is absent or null.
func (o Optional[T]) Get() (T, bool) { return o.value, o.state == optionalSet }

// IsZero reports whether the property is absent, for omitzero.
func (o Optional[T]) IsZero() bool { return o.state == optionalAbsent }

// MarshalJSON writes the value, or null when the Optional is null (or absent
// and encoded anyway, without omitzero).
func (o Optional[T]) MarshalJSON() ([]byte, error) {
	if o.state != optionalSet {
		return []byte("null"), nil
	}
	return json.Marshal(o.value)
}

// UnmarshalJSON reads null as null and anything else as the value.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		var zero T
		*o = Optional[T]{value: zero, state: optionalNull}
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = Optional[T]{value: v, state: optionalSet}
	return nil
}
