// Package jsontree parses a JSON document into a tree that remembers where
// every value starts and ends, so that problems can be reported as
// file:LINE:COL with a JSON pointer, and so that a value's original bytes
// (key order, whitespace) can be reused verbatim.
package jsontree

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Kind is the JSON type of a node.
type Kind int

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// Member is one key/value pair of an object, in document order.
type Member struct {
	Key      string
	KeyStart int // offset of the key's opening quote
	Value    *Node
}

// Node is one JSON value.
type Node struct {
	Kind       Kind
	Start, End int    // byte offsets of the value in the document: Data[Start:End]
	Ptr        string // JSON pointer of the value within the document
	Str        string // decoded value of a string
	Num        string // literal of a number
	Bool       bool
	Members    []Member // object members in document order
	Elems      []*Node  // array elements
}

// Get returns the value of key in an object, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for _, m := range n.Members {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Has reports whether an object has key.
func (n *Node) Has(key string) bool { return n.Get(key) != nil }

// Doc is a parsed document.
type Doc struct {
	Data []byte
	Root *Node
	// Duplicates are the values of keys repeated within one object (the later
	// occurrences).
	Duplicates []*Node
	lines      []int // offsets at which lines start
}

// SyntaxError is a document that is not JSON.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Parse parses data. A document that is not valid JSON yields a *SyntaxError.
func Parse(data []byte) (*Doc, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := int(se.Offset) - 1
			if strings.Contains(se.Error(), "unexpected end") {
				off = len(data) // the problem is where the input ends
			}
			if off < 0 {
				off = 0
			}
			return nil, &SyntaxError{Offset: off, Msg: se.Error()}
		}
		return nil, &SyntaxError{Offset: 0, Msg: err.Error()}
	}
	d := &Doc{Data: data, lines: []int{0}}
	for i, c := range data {
		if c == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	p := &parser{doc: d, data: data}
	p.skip()
	d.Root = p.value("")
	return d, nil
}

// Pos converts a byte offset to a 1-based line and column (in bytes).
func (d *Doc) Pos(offset int) (line, col int) {
	i := sort.Search(len(d.lines), func(i int) bool { return d.lines[i] > offset }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1, offset - d.lines[i] + 1
}

// Raw returns the original bytes of n.
func (d *Doc) Raw(n *Node) []byte { return d.Data[n.Start:n.End] }

// At returns the node at a JSON pointer, or nil.
func (d *Doc) At(ptr string) *Node {
	if ptr == "" {
		return d.Root
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	n := d.Root
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = Unescape(tok)
		switch {
		case n == nil:
			return nil
		case n.Kind == Object:
			n = n.Get(tok)
		case n.Kind == Array:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(n.Elems) || fmt.Sprint(i) != tok {
				return nil
			}
			n = n.Elems[i]
		default:
			return nil
		}
	}
	return n
}

// Escape escapes one reference token of a JSON pointer.
func Escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// Unescape reverses Escape.
func Unescape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// Join appends a key or index to a pointer.
func Join(ptr string, tok any) string { return ptr + "/" + Escape(fmt.Sprint(tok)) }

// parser walks a document already known to be valid JSON.
type parser struct {
	doc  *Doc
	data []byte
	pos  int
}

func (p *parser) skip() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(ptr string) *Node {
	n := &Node{Start: p.pos, Ptr: ptr}
	switch c := p.data[p.pos]; {
	case c == '{':
		n.Kind = Object
		p.pos++
		p.skip()
		seen := map[string]bool{}
		for p.data[p.pos] != '}' {
			keyStart := p.pos
			key := p.str()
			p.skip()
			p.pos++ // ':'
			p.skip()
			v := p.value(Join(ptr, key))
			if seen[key] {
				p.doc.Duplicates = append(p.doc.Duplicates, v)
			}
			seen[key] = true
			n.Members = append(n.Members, Member{Key: key, KeyStart: keyStart, Value: v})
			p.skip()
			if p.data[p.pos] == ',' {
				p.pos++
				p.skip()
			}
		}
		p.pos++
	case c == '[':
		n.Kind = Array
		p.pos++
		p.skip()
		for p.data[p.pos] != ']' {
			n.Elems = append(n.Elems, p.value(Join(ptr, len(n.Elems))))
			p.skip()
			if p.data[p.pos] == ',' {
				p.pos++
				p.skip()
			}
		}
		p.pos++
	case c == '"':
		n.Kind = String
		n.Str = p.str()
	case c == 't':
		n.Kind, n.Bool = Bool, true
		p.pos += 4
	case c == 'f':
		n.Kind = Bool
		p.pos += 5
	case c == 'n':
		n.Kind = Null
		p.pos += 4
	default:
		n.Kind = Number
		start := p.pos
		for p.pos < len(p.data) && strings.IndexByte("+-0123456789.eE", p.data[p.pos]) >= 0 {
			p.pos++
		}
		n.Num = string(p.data[start:p.pos])
	}
	n.End = p.pos
	return n
}

// str reads a string literal at p.pos and returns its decoded value.
func (p *parser) str() string {
	start := p.pos
	p.pos++
	for p.data[p.pos] != '"' {
		if p.data[p.pos] == '\\' {
			p.pos++
		}
		p.pos++
	}
	p.pos++
	var s string
	_ = json.Unmarshal(p.data[start:p.pos], &s) // valid: the whole document was checked
	return s
}
