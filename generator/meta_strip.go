package generator

import (
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// stripMeta returns the tool's bytes as written with mcpgen's own keys
// removed: every _meta key starting with mcpgen.dev/ (and _meta itself when
// nothing else is left in it), and the name overrides (x-go-name,
// x-go-field-name, x-go-enum-names) wherever they stand as keywords of the
// inputSchema, outputSchema or an event type's payloadSchema. Clients
// never see them.
func stripMeta(doc *jsontree.Doc, tool *jsontree.Node) []byte {
	var edits []edit
	for _, k := range []string{"inputSchema", "outputSchema", "payloadSchema"} {
		edits = append(edits, overrideEdits(tool.Get(k))...)
	}
	var meta *jsontree.Node
	metaIdx := -1
	for i, mem := range tool.Members {
		if mem.Key == "_meta" && mem.Value.Kind == jsontree.Object {
			meta, metaIdx = mem.Value, i
		}
	}
	if meta != nil {
		keep := make([]bool, len(meta.Members))
		kept := 0
		for i, mem := range meta.Members {
			keep[i] = !strings.HasPrefix(mem.Key, metaPrefix)
			if keep[i] {
				kept++
			}
		}
		switch {
		case kept == len(meta.Members):
		case kept == 0:
			dropTool := make([]bool, len(tool.Members))
			for i := range dropTool {
				dropTool[i] = i != metaIdx
			}
			edits = append(edits, removals(tool, dropTool)...)
		default:
			edits = append(edits, removals(meta, keep)...)
		}
	}
	if len(edits) == 0 {
		return append([]byte(nil), doc.Raw(tool)...)
	}
	return apply(doc.Data, tool.Start, tool.End, edits)
}

// stripOverrides returns a schema's bytes as written without the name
// overrides (an elicitation's requestedSchema, as elicitation/create sends it).
func stripOverrides(doc *jsontree.Doc, schema *jsontree.Node) []byte {
	edits := overrideEdits(schema)
	if len(edits) == 0 {
		return append([]byte(nil), doc.Raw(schema)...)
	}
	return apply(doc.Data, schema.Start, schema.End, edits)
}

// isOverride reports whether a schema keyword is one of mcpgen's name overrides.
func isOverride(key string) bool {
	return key == xGoName || key == xGoFieldName || key == xGoEnumNames
}

// Keywords whose value is a schema, a map of schemas or an array of schemas.
var (
	schemaKeywords = keySet("items", "additionalItems", "additionalProperties", "unevaluatedItems",
		"unevaluatedProperties", "propertyNames", "contains", "not", "if", "then", "else")
	schemaMapKeywords   = keySet("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
	schemaArrayKeywords = keySet("allOf", "anyOf", "oneOf", "prefixItems", "items")
)

// overrideEdits are the deletions that remove the name overrides from schema
// n and the schemas inside it. Only keyword positions are looked at, so a
// property named "x-go-name", or an enum value, is left alone.
func overrideEdits(n *jsontree.Node) []edit {
	if n == nil || n.Kind != jsontree.Object {
		return nil
	}
	var edits []edit
	keep := make([]bool, len(n.Members))
	drop := false
	for i, mem := range n.Members {
		keep[i] = !isOverride(mem.Key)
		drop = drop || !keep[i]
		v := mem.Value
		switch {
		case !keep[i]:
		case schemaKeywords[mem.Key] && v.Kind == jsontree.Object:
			edits = append(edits, overrideEdits(v)...)
		case schemaArrayKeywords[mem.Key] && v.Kind == jsontree.Array:
			for _, el := range v.Elems {
				edits = append(edits, overrideEdits(el)...)
			}
		case schemaMapKeywords[mem.Key] && v.Kind == jsontree.Object:
			for _, sub := range v.Members {
				edits = append(edits, overrideEdits(sub.Value)...)
			}
		}
	}
	if drop {
		edits = append(edits, removals(n, keep)...)
	}
	return edits
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
