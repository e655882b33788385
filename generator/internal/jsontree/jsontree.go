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
	"strconv"
	"strings"
	"unicode/utf8"
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
	Str        string // decoded value of a string
	Num        string // literal of a number
	Bool       bool
	Members    []Member // object members in document order
	Elems      []*Node  // array elements
	// Depth is how deep the value is nested: 0 for the root.
	Depth int
	// parent, key and index say where the value stands, from which Ptr
	// builds its pointer on demand: a pointer stored in every node would
	// cost the square of the depth.
	parent *Node
	key    string
	index  int
	plen   int // the length of Ptr
	// head is the memoized start of the pointer (headPtr).
	head              string
	headSet, headFull bool
}

// Ptr returns the JSON pointer of the value within the document.
func (n *Node) Ptr() string {
	if n.parent == nil {
		return ""
	}
	var toks []string
	for m := n; m.parent != nil; m = m.parent {
		toks = append(toks, m.token())
	}
	var b strings.Builder
	for i := len(toks) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(toks[i])
	}
	return b.String()
}

// ShortPtr returns Ptr when it fits max bytes; else its first and last
// tokens around "...", about max bytes in all. Its cost is bounded by max,
// whatever the depth of the value and the length of its pointer.
func (n *Node) ShortPtr(max int) string {
	if n.plen <= max {
		return n.Ptr()
	}
	var tail []string
	budget := max / 2
	m := n
	for ; m.parent != nil; m = m.parent {
		t := m.token()
		if len(tail) > 0 && 1+len(t) > budget {
			break // whole tokens only, but for the value's own
		}
		tail, budget = append(tail, clip(t, budget)), budget-1-len(t)
	}
	var b strings.Builder
	head, _ := m.headPtr(max / 2)
	b.WriteString(head)
	b.WriteString("/...")
	for i := len(tail) - 1; i >= 0; i-- {
		b.WriteString("/" + tail[i])
	}
	return b.String()
}

// headPtr is the start of the pointer, whole tokens up to about max
// bytes, and whether it stopped short of the value; memoized, so that the
// heads of all the values of a deep document take linear time.
func (n *Node) headPtr(max int) (string, bool) {
	if n.parent == nil {
		return "", false
	}
	if !n.headSet {
		h, full := n.parent.headPtr(max)
		switch t := n.token(); {
		case full:
		case h == "":
			h = "/" + clip(t, max)
		case len(h)+1+len(t) <= max:
			h += "/" + t
		default:
			full = true
		}
		n.head, n.headFull, n.headSet = h, full, true
	}
	return n.head, n.headFull
}

// token is the value's reference token in its parent's pointer.
func (n *Node) token() string {
	if n.parent.Kind == Array {
		return strconv.Itoa(n.index)
	}
	return Escape(n.key)
}

// clip cuts s to at most max bytes, on a rune boundary.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// Parent returns the array or object holding the value, or nil for the
// root.
func (n *Node) Parent() *Node { return n.parent }

// Key returns the key of the value in the object holding it ("" in an
// array and for the root).
func (n *Node) Key() string { return n.key }

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

// DepthError is a document nested deeper than Parse's limit.
type DepthError struct {
	Offset int   // of the first value past the limit
	Node   *Node // that value
	Max    int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("the document nests arrays and objects deeper than %d levels", e.Max)
}

// Parse parses data with no limit on nesting but encoding/json's. A
// document that is not valid JSON yields a *SyntaxError.
func Parse(data []byte) (*Doc, error) { return ParseLimited(data, 0) }

// ParseLimited parses data, refusing with a *DepthError a document whose
// arrays and objects nest deeper than maxDepth levels (the root counts as
// one; 0: no limit of its own). A document that is not valid JSON yields a *SyntaxError. The time
// and memory it takes grow linearly with the document.
func ParseLimited(data []byte, maxDepth int) (*Doc, error) {
	// Validated first, without building a value: the walk below trusts
	// the syntax.
	var v json.RawMessage
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
	p := &parser{doc: d, data: data, maxDepth: maxDepth}
	p.skip()
	d.Root = p.value(nil, "", 0)
	if p.tooDeep != nil {
		return nil, &DepthError{Offset: p.tooDeep.Start, Node: p.tooDeep, Max: maxDepth}
	}
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
	doc      *Doc
	data     []byte
	pos      int
	maxDepth int
	// tooDeep is the first value past maxDepth; the walk then skips the
	// rest of the document.
	tooDeep *Node
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

func (p *parser) value(parent *Node, key string, index int) *Node {
	n := &Node{Start: p.pos, parent: parent, key: key, index: index}
	if parent != nil {
		n.Depth = parent.Depth + 1
		tok := len(key) + strings.Count(key, "~") + strings.Count(key, "/")
		if parent.Kind == Array {
			tok = len(strconv.Itoa(index))
		}
		n.plen = parent.plen + 1 + tok
	}
	container := p.data[p.pos] == '{' || p.data[p.pos] == '['
	if p.tooDeep != nil || container && p.maxDepth > 0 && n.Depth >= p.maxDepth {
		if p.tooDeep == nil {
			p.tooDeep = n
		}
		p.pos = len(p.data) // the document is refused: nothing more to read
		return n
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		n.Kind = Object
		p.pos++
		p.skip()
		seen := map[string]bool{}
		for p.pos < len(p.data) && p.data[p.pos] != '}' {
			keyStart := p.pos
			key := p.str()
			p.skip()
			p.pos++ // ':'
			p.skip()
			v := p.value(n, key, len(n.Members))
			if seen[key] {
				p.doc.Duplicates = append(p.doc.Duplicates, v)
			}
			seen[key] = true
			n.Members = append(n.Members, Member{Key: key, KeyStart: keyStart, Value: v})
			p.skip()
			if p.pos < len(p.data) && p.data[p.pos] == ',' {
				p.pos++
				p.skip()
			}
		}
		p.pos++
	case c == '[':
		n.Kind = Array
		p.pos++
		p.skip()
		for p.pos < len(p.data) && p.data[p.pos] != ']' {
			n.Elems = append(n.Elems, p.value(n, "", len(n.Elems)))
			p.skip()
			if p.pos < len(p.data) && p.data[p.pos] == ',' {
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
