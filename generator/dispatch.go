package generator

import (
	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// loadFile parses one JSON input and offers what it holds to the kinds: the
// whole file, each element of an array, or each item of a list result
// ({"tools": [...]}, also saved as a whole JSON-RPC response). The kind
// with the strongest claim loads an item (input_kind.go); what no kind
// claims is an error naming the shapes the kinds know.
func loadFile(in InputFile, kinds []inputKind, lc *loadContext) {
	rep := lc.rep
	doc, err := jsontree.Parse(in.Data)
	if err != nil {
		se := err.(*jsontree.SyntaxError)
		line, col := lineCol(in.Data, se.Offset)
		rep.diags = append(rep.diags, Diagnostic{File: in.Path, Line: line, Col: col,
			Message: "invalid JSON: " + se.Msg, Hint: "fix the syntax; nothing was generated"})
		return
	}
	src := &source{path: in.Path, doc: doc}
	for _, dup := range doc.Duplicates {
		rep.errorf(place{src, dup}, "remove one of them", "key appears twice in the same object")
	}
	root := doc.Root
	at := place{src, root}
	lists := map[string]bool{}
	var methods []string
	for _, k := range kinds {
		for _, l := range k.lists() {
			lists[l.key] = true
			methods = append(methods, l.method)
		}
	}
	isList := func(n *jsontree.Node) bool {
		if n.Kind != jsontree.Object {
			return false
		}
		for _, m := range n.Members {
			if lists[m.Key] {
				return true
			}
		}
		return false
	}
	// A list response saved whole: {"jsonrpc": "2.0", "id": ..., "result": {"tools": [...]}}.
	if root.Kind == jsontree.Object && root.Has("jsonrpc") && !root.Has("inputSchema") {
		res := root.Get("result")
		if res == nil || !isList(res) {
			rep.errorf(at, "save the response of a successful "+orList(methods)+`, or just its "result"`,
				"the file holds a JSON-RPC message that is not a list result")
			return
		}
		root, at = res, place{src, res}
	}
	switch {
	case root.Kind == jsontree.Array:
		for _, el := range root.Elems {
			offer(kinds, place{src, el}, "[]", lc)
		}
	case root.Kind != jsontree.Object:
		rep.errorf(at, shapes(kinds), "the file holds a JSON %s", root.Kind)
	case best(kinds, root, "") != nil:
		offer(kinds, at, "", lc)
	case isList(root):
		for _, m := range root.Members {
			if !lists[m.Key] {
				continue
			}
			if m.Value.Kind != jsontree.Array {
				rep.errorf(place{src, m.Value}, "a list result holds an array", "%q is a %s", m.Key, m.Value.Kind)
				continue
			}
			for _, el := range m.Value.Elems {
				offer(kinds, place{src, el}, m.Key, lc)
			}
		}
	default:
		rep.errorf(at, shapes(kinds), "cannot tell what this file holds")
	}
}

// offer loads the item at with the kind that claims it best, or reports
// that none does.
func offer(kinds []inputKind, at place, list string, lc *loadContext) {
	if k := best(kinds, at.node, list); k != nil {
		k.load(at, list, lc)
		return
	}
	lc.rep.errorf(at, shapes(kinds), "cannot tell what this %s holds", map[bool]string{true: "file", false: "item"}[list == ""])
}

// best is the kind with the strongest claim on item (the first of equals),
// or nil.
func best(kinds []inputKind, item *jsontree.Node, list string) inputKind {
	var top inputKind
	strongest := noClaim
	for _, k := range kinds {
		if c := k.claim(item, list); c > strongest {
			top, strongest = k, c
		}
	}
	return top
}

// shapes is the hint of a file no kind claims: what the kinds' files look
// like.
func shapes(kinds []inputKind) string {
	var all []string
	for _, k := range kinds {
		if s := k.shapes(); s != "" {
			all = append(all, s)
		}
	}
	return "expected " + orList(all)
}

func lineCol(data []byte, off int) (int, int) {
	line, col := 1, 1
	for i := 0; i < off && i < len(data); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
