package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// resolve finds the target of a local $ref: "#", "#/json/pointer" or "#anchor".
func (b *typeBuilder) resolve(ref string) *jsontree.Node {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		return b.src.doc.At(b.root.Ptr + frag)
	}
	var found *jsontree.Node
	var walk func(n *jsontree.Node)
	walk = func(n *jsontree.Node) {
		if found != nil || n == nil {
			return
		}
		if a := n.Get("$anchor"); a != nil && a.Str == frag {
			found = n
			return
		}
		for _, m := range n.Members {
			walk(m.Value)
		}
		for _, e := range n.Elems {
			walk(e)
		}
	}
	walk(b.root)
	return found
}

// ref returns the named type for a $ref target, declaring it once.
func (b *typeBuilder) ref(n, ref *jsontree.Node) (*typeRef, bool) {
	target := b.resolve(ref.Str)
	if target == nil {
		return b.fallback(n, fmt.Sprintf("reference %q is not resolved (only #, #/pointer and #anchor in the same schema)", ref.Str))
	}
	if t, ok := b.memo[target]; ok {
		return t, false
	}
	rel := strings.TrimPrefix(target.Ptr, b.root.Ptr)
	toks := strings.Split(rel, "/")
	base := b.prefix + joinWords(jsontree.Unescape(toks[len(toks)-1]))
	if rel == "" {
		base = b.prefix
	}
	name := b.typeName(target, base)
	var canon bytes.Buffer
	_ = json.Compact(&canon, b.src.doc.Raw(target))
	if s, ok := b.ns.shared[name]; ok && bytes.Equal(s.canon, canon.Bytes()) {
		b.memo[target] = s.typ
		return s.typ, false
	}
	t, nullable := b.typeOf(target, name)
	b.memo[target] = t
	if t.kind == refNamed {
		b.ns.shared[name] = sharedDef{canon: canon.Bytes(), typ: t}
	}
	return t, nullable
}
