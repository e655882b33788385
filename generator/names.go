package generator

import (
	"go/token"
	"strings"
	"unicode"
)

// commonInitialisms are written in capitals inside Go names (userId -> UserID).
var commonInitialisms = keySet("ACL", "API", "ASCII", "CPU", "CSS", "CSV", "DB", "DNS", "EOF", "GID", "GUID", "HTML", "HTTP",
	"HTTPS", "ID", "IP", "JSON", "JWT", "LHS", "MCP", "OS", "PID", "QPS", "RAM", "RHS", "RPC", "SHA", "SLA", "SMTP",
	"SQL", "SSH", "TCP", "TLS", "TTL", "UDP", "UI", "UID", "UUID", "URI", "URL", "UTF8", "VM", "XML", "XMPP", "XSRF", "XSS")

// words splits a name at separators, case changes and letter/digit runs:
// "get_userId" -> get, user, Id; "HTTPServer" -> HTTP, Server.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			switch {
			case unicode.IsLower(prev) && unicode.IsUpper(r):
				flush()
			case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				// "HTTPServer": the S starts a new word, unless the lower
				// case run is a plural "s" ending the word ("IDs").
				if !(rs[i+1] == 's' && (i+2 == len(rs) || !unicode.IsLower(rs[i+2]))) {
					flush()
				}
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// goName turns a JSON name into an exported Go identifier: words in title
// case, common initialisms in capitals, "X" in front when it would not start
// with an upper-case letter. "" when s holds no letters or digits.
func goName(s string) string {
	n := joinWords(s)
	if n == "" {
		return ""
	}
	if r := []rune(n)[0]; !unicode.IsUpper(r) {
		n = "X" + n
	}
	return n
}

// joinWords is goName without the "X" guard, for suffixes of a longer name.
func joinWords(s string) string {
	ws := words(s)
	allCaps := strings.ToUpper(s) == s
	var b strings.Builder
	for _, w := range ws {
		up := strings.ToUpper(w)
		switch {
		case commonInitialisms[up]:
			b.WriteString(up)
		case len(up) > 2 && strings.HasSuffix(up, "S") && commonInitialisms[up[:len(up)-1]]:
			b.WriteString(up[:len(up)-1] + "s") // IDs, URLs
		case up == w && !allCaps && len(w) > 1:
			b.WriteString(w) // an acronym inside a mixed-case name: keep it
		default:
			rs := []rune(strings.ToLower(w))
			rs[0] = unicode.ToUpper(rs[0])
			b.WriteString(string(rs))
		}
	}
	return b.String()
}

// lowerFirst makes an unexported identifier from an exported one
// (DeleteFile -> deleteFile, URLFetch -> urlFetch), avoiding keywords.
func lowerFirst(s string) string {
	rs := []rune(s)
	i := 0
	for i < len(rs) && unicode.IsUpper(rs[i]) {
		i++
	}
	switch {
	case i == 0:
	case i == 1 || i == len(rs):
		i = min(i, len(rs))
		for j := 0; j < i; j++ {
			rs[j] = unicode.ToLower(rs[j])
		}
	default: // "URLFetch": lower the acronym but not the next word's first letter
		for j := 0; j < i-1; j++ {
			rs[j] = unicode.ToLower(rs[j])
		}
	}
	out := string(rs)
	if token.IsKeyword(out) {
		out += "_"
	}
	return out
}

// snake turns a Go name into a file name part: DeleteFile -> delete_file.
func snake(goName string) string {
	ws := words(goName)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return strings.Join(ws, "_")
}

// isExportedIdent reports whether s is an exported Go identifier.
func isExportedIdent(s string) bool {
	return token.IsIdentifier(s) && token.IsExported(s)
}

// symbolNames spell enum values that hold no letters or digits.
var symbolNames = map[rune]string{
	'*': "Star", '+': "Plus", '-': "Minus", '<': "Lt", '>': "Gt", '=': "Eq", '!': "Not", '/': "Slash",
	'.': "Dot", '?': "Question", '@': "At", '#': "Hash", '$': "Dollar", '%': "Percent", '&': "And",
	'|': "Or", '^': "Caret", '~': "Tilde", ':': "Colon", '_': "Underscore", ' ': "Space",
}

// enumValueName is the suffix of an enum constant for a value: its words,
// with a sign before a digit spelled out ("+1" -> Plus1, "reactions--1" ->
// ReactionsMinus1), or every symbol spelled when it holds no letters or
// digits ("*" -> Star).
func enumValueName(v string) string {
	if v == "" {
		return "Empty"
	}
	if n := joinWords(spellSigns(v)); n != "" {
		return n
	}
	return spellSymbols(v)
}

// spellSigns replaces a + or - that stands before a digit, and not after a
// letter or digit, with a word, so that "+1" and "-1" get different names.
func spellSigns(v string) string {
	rs := []rune(v)
	var b strings.Builder
	for i, r := range rs {
		sign := (r == '+' || r == '-') && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) &&
			(i == 0 || !unicode.IsLetter(rs[i-1]) && !unicode.IsDigit(rs[i-1]))
		if sign {
			b.WriteString(" " + symbolNames[r] + " ")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// spellSymbols spells every symbol of v as a word and keeps its words:
// "c++" -> CPlusPlus, ">=" -> GtEq.
func spellSymbols(v string) string {
	var b strings.Builder
	for _, r := range v {
		switch s, ok := symbolNames[r]; {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case ok:
			b.WriteString(" " + s + " ")
		default:
			b.WriteString(" U ")
		}
	}
	return joinWords(b.String())
}

// enumSuffixes names the constants of one enum's string values, settling
// the names two values would share by a rule that depends only on the
// values: values that differ only in case keep the name when mixed case and
// add Lower or Upper when written all in lower or upper case ("Yes", "yes",
// "YES" -> Yes, YesLower, YesUpper); other values that share a name spell
// their symbols ("c", "c++" -> C, CPlusPlus). Names still shared are left for
// the caller to report.
func enumSuffixes(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = enumValueName(v)
	}
	groups := func() map[string][]int {
		g := map[string][]int{}
		for i, n := range out {
			g[n] = append(g[n], i)
		}
		return g
	}
	for _, idx := range groups() {
		if len(idx) < 2 {
			continue
		}
		caseOnly := true
		for _, i := range idx[1:] {
			caseOnly = caseOnly && strings.EqualFold(vals[i], vals[idx[0]])
		}
		for _, i := range idx {
			v := vals[i]
			switch {
			case !caseOnly:
				if n := spellSymbols(v); n != "" {
					out[i] = n
				}
			case strings.ToLower(v) == v && strings.ToUpper(v) != v:
				out[i] += "Lower"
			case strings.ToUpper(v) == v && strings.ToLower(v) != v:
				out[i] += "Upper"
			}
		}
	}
	return out
}

// fieldName is the Go field name for a JSON name (a property, or a union's
// discriminator value): its words as enumValueName spells them, with "X" in
// front when that would not start with an upper-case letter.
func fieldName(s string) string {
	n := enumValueName(s)
	if r := []rune(n)[0]; !isExportedIdent(string(r)) {
		n = "X" + n
	}
	return n
}
