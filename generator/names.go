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

// enumValueName is the suffix of an enum constant for a value.
func enumValueName(v string) string {
	if v == "" {
		return "Empty"
	}
	if n := joinWords(v); n != "" {
		return n
	}
	var b strings.Builder
	for _, r := range v {
		if s, ok := symbolNames[r]; ok {
			b.WriteString(s)
		} else {
			b.WriteString("U")
		}
	}
	return b.String()
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
