package generator

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

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

// splitLines splits text into comment lines without control characters:
// tabs and other C0 controls become spaces, and the characters that
// hiddenRune names are spelled out (commentSafe).
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		line = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, line)
		out = append(out, commentSafe(strings.TrimRight(line, " ")))
	}
	return out
}

// hiddenRune reports whether r shows as something other than itself, or
// as nothing, where Go source is read: a control character (but a tab or
// a newline), a line or paragraph separator (U+2028, U+2029, NEL U+0085),
// a bidirectional formatting character (RLO, LRI, PDI, RLM, ALM, ...),
// another format character (a zero-width space, a byte order mark), or a
// code point not assigned to a printable character. Editors and review
// tools lay such characters out ("Trojan Source", CVE-2021-42574), so what
// a reviewer reads is not what the compiler reads; spaces of other widths
// stay, since they show as space.
func hiddenRune(r rune) bool {
	return r != '\t' && r != '\n' && !unicode.IsPrint(r) && !unicode.Is(unicode.Zs, r)
}

// commentSafe spells out, as \uXXXX, every character of s that hiddenRune
// names and every newline and tab, so that s is one comment line that
// reads as what it holds. Text from the inputs reaches a comment only
// through it (comment, splitLines, and the names in single-line comments).
func commentSafe(s string) string {
	clean := true
	for _, r := range s {
		if r == '\n' || r == '\t' || hiddenRune(r) {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || hiddenRune(r):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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
