package schema

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// Flat is an inputSchema in the common flat subset: an object whose
// properties are strings (enum, minLength, maxLength), numbers or integers
// (minimum, maximum) and booleans, with required and additionalProperties.
// It accepts valid arguments with one scan of their raw bytes and no
// allocation. It never rejects: anything it cannot accept for certain
// (escapes, 1.0 as an integer, a failed check) goes to the full JSON Schema
// validation, which also writes the error message.
type Flat struct {
	props    map[string]*flatProp
	names    [][]byte // the declared names, to spot a key that is one in another case
	required uint64
	closed   bool // additionalProperties: false
}

type flatProp struct {
	bit            uint64
	typ            string // "string", "number", "integer", "boolean"
	enum           []string
	min, max       *float64
	minLen, maxLen int // -1: none
}

// CompileFlat returns the fast path for schema, or nil when the schema is
// outside the subset.
func CompileFlat(schema []byte) *Flat {
	var root map[string]json.RawMessage
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	f := &Flat{props: map[string]*flatProp{}}
	var required []string
	for k, v := range root {
		switch k {
		case "$schema", "$comment", "title", "description":
		case "type":
			if string(v) != `"object"` {
				return nil
			}
		case "additionalProperties":
			switch string(v) {
			case "false":
				f.closed = true
			case "true":
			default:
				return nil
			}
		case "required":
			if json.Unmarshal(v, &required) != nil {
				return nil
			}
		case "properties":
			var props map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil || len(props) > 64 {
				return nil
			}
			n := 0
			for name, ps := range props {
				p := compileFlatProp(ps)
				if p == nil {
					return nil
				}
				p.bit = 1 << n
				n++
				f.props[name] = p
				f.names = append(f.names, []byte(name))
			}
		default:
			return nil
		}
	}
	if string(root["type"]) != `"object"` {
		return nil
	}
	for _, name := range required {
		p := f.props[name]
		if p == nil {
			return nil
		}
		f.required |= p.bit
	}
	return f
}

func compileFlatProp(schema []byte) *flatProp {
	var m map[string]json.RawMessage
	if json.Unmarshal(schema, &m) != nil {
		return nil
	}
	p := &flatProp{minLen: -1, maxLen: -1}
	if json.Unmarshal(m["type"], &p.typ) != nil {
		return nil
	}
	for k, v := range m {
		ok := true
		switch k {
		case "type", "title", "description", "default", "examples", "$comment":
		case "enum":
			ok = p.typ == "string" && json.Unmarshal(v, &p.enum) == nil && p.enum != nil
		case "minimum", "maximum":
			var x float64
			ok = (p.typ == "number" || p.typ == "integer") && json.Unmarshal(v, &x) == nil
			if k == "minimum" {
				p.min = &x
			} else {
				p.max = &x
			}
		case "minLength", "maxLength":
			var n int
			ok = p.typ == "string" && json.Unmarshal(v, &n) == nil && n >= 0
			if k == "minLength" {
				p.minLen = n
			} else {
				p.maxLen = n
			}
		default:
			ok = false
		}
		if !ok {
			return nil
		}
	}
	switch p.typ {
	case "string", "number", "integer", "boolean":
		return p
	}
	return nil
}

// Accepts reports whether args (a JSON object, already known to be valid
// JSON) certainly satisfies the schema.
func (f *Flat) Accepts(args []byte) bool {
	ok, _ := f.Scan(args)
	return ok
}

// Bit is the bit of property name in what Scan reports present; 0 for a
// name the schema does not declare.
func (f *Flat) Bit(name string) uint64 {
	if p := f.props[name]; p != nil {
		return p.bit
	}
	return 0
}

// Scan is Accepts that also returns the bits of the properties present.
func (f *Flat) Scan(args []byte) (bool, uint64) {
	var seen uint64
	ok := jsonscan.EachMember(args, func(key, v []byte) bool {
		p := f.props[string(key)]
		if p == nil {
			// An extra key, unless it is a declared name in another case
			// (see KeyShape): then the slow path removes it.
			for _, n := range f.names {
				if bytes.EqualFold(n, key) {
					return false
				}
			}
			return !f.closed
		}
		seen |= p.bit
		return p.accepts(v)
	})
	return ok && seen&f.required == f.required, seen
}

func (p *flatProp) accepts(v []byte) bool {
	switch p.typ {
	case "boolean":
		return string(v) == "true" || string(v) == "false"
	case "string":
		end, escaped := jsonscan.ScanString(v, 0)
		if end != len(v) || escaped {
			return false
		}
		s := v[1 : len(v)-1]
		if p.minLen >= 0 || p.maxLen >= 0 {
			n := utf8.RuneCount(s)
			if (p.minLen >= 0 && n < p.minLen) || (p.maxLen >= 0 && n > p.maxLen) {
				return false
			}
		}
		if p.enum != nil {
			for _, e := range p.enum {
				if string(s) == e {
					return true
				}
			}
			return false
		}
		return true
	case "integer", "number":
		if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
			return false
		}
		if p.typ == "integer" && bytes.ContainsAny(v, ".eE") {
			return false // 1.0 is an integer too: let the full check decide
		}
		if p.min == nil && p.max == nil {
			return true
		}
		x, err := strconv.ParseFloat(string(v), 64)
		return err == nil && (p.min == nil || x >= *p.min) && (p.max == nil || x <= *p.max)
	}
	return false
}
