package generator

import (
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// stripMeta returns the tool's bytes as written with every mcpgen _meta key
// removed, and _meta itself when nothing else is left in it.
func stripMeta(doc *jsontree.Doc, tool *jsontree.Node) []byte {
	var meta *jsontree.Node
	metaIdx := -1
	for i, mem := range tool.Members {
		if mem.Key == "_meta" && mem.Value.Kind == jsontree.Object {
			meta, metaIdx = mem.Value, i
		}
	}
	if meta == nil {
		return append([]byte(nil), doc.Raw(tool)...)
	}
	keep := make([]bool, len(meta.Members))
	kept := 0
	for i, mem := range meta.Members {
		keep[i] = !strings.HasPrefix(mem.Key, metaPrefix)
		if keep[i] {
			kept++
		}
	}
	if kept == len(meta.Members) {
		return append([]byte(nil), doc.Raw(tool)...)
	}
	var edits []edit
	if kept == 0 {
		dropTool := make([]bool, len(tool.Members))
		for i := range dropTool {
			dropTool[i] = i != metaIdx
		}
		edits = removals(tool, dropTool)
	} else {
		edits = removals(meta, keep)
	}
	return apply(doc.Data, tool.Start, tool.End, edits)
}

// edit deletes Data[start:end].
type edit struct{ start, end int }

// removals returns the deletions that drop the members of obj whose keep
// flag is false, leaving the JSON valid and the rest byte for byte.
func removals(obj *jsontree.Node, keep []bool) []edit {
	ms := obj.Members
	last := -1
	for i := range ms {
		if keep[i] {
			last = i
		}
	}
	var edits []edit
	for i := 0; i < last; i++ {
		if !keep[i] {
			edits = append(edits, edit{ms[i].KeyStart, ms[i+1].KeyStart})
		}
	}
	if n := len(ms) - 1; last < n {
		if last >= 0 {
			edits = append(edits, edit{ms[last].Value.End, ms[n].Value.End})
		} else {
			edits = append(edits, edit{ms[0].KeyStart, ms[n].Value.End})
		}
	}
	return edits
}

func apply(data []byte, start, end int, edits []edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var out []byte
	pos := start
	for _, e := range edits {
		out = append(out, data[pos:e.start]...)
		pos = e.end
	}
	return append(out, data[pos:end]...)
}
