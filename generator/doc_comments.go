package generator

import (
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// docLines are the doc comment lines of a schema: its title and description.
func docLines(n *jsontree.Node) []string {
	if n == nil || n.Kind != jsontree.Object {
		return nil
	}
	var out []string
	if t := n.Get("title"); t != nil && t.Kind == jsontree.String && strings.TrimSpace(t.Str) != "" {
		out = append(out, splitLines(t.Str)...)
	}
	if d := n.Get("description"); d != nil && d.Kind == jsontree.String && strings.TrimSpace(d.Str) != "" {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, splitLines(d.Str)...)
	}
	return out
}

// splitLines splits text into comment lines without control characters.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		line = strings.Map(func(r rune) rune {
			if r == '\t' || !strconv.IsPrint(r) && r < 0x20 || r == 0x7f || r == '\r' || r == 0xfeff {
				return ' '
			}
			return r
		}, line)
		out = append(out, strings.TrimRight(line, " "))
	}
	return out
}

// docLinesOf splits a description into comment lines.
func docLinesOf(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return splitLines(s)
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// andList joins words as "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
