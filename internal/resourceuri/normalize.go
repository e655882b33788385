// Package resourceuri holds what mcpgen knows of resource URIs: their normal form
// (RFC 3986 section 6.2.2), and RFC 6570 URI templates as far as MCP
// servers use them: matching a URI against a template, with the rules
// that keep decoded values from turning into path tricks, and expanding a
// template. The runtime matches resources with it; the generator types a
// template's parameters with it.
package resourceuri

import "strings"

// A resource has one identity however its URI is spelled: "notes://secret",
// "NOTES://secret" and "notes://%73ecret" name the same resource (RFC 3986
// section 6.2.2), so they must find the same resource, need the same
// scopes and reach the same subscribers. Every URI the runtime matches,
// authorizes, subscribes or announces goes through Normalize first; a
// fixed resource is filed under its normalized URI, and the literal parts
// of a template are normalized when it is parsed.
//
// Normalize applies the syntax-based normalizations that keep meaning
// for every scheme: the scheme and host lowercased, percent-encoded
// unreserved characters (ALPHA, DIGIT, "-", ".", "_", "~") decoded, and
// the hex digits of the remaining percent-encodings uppercased. It leaves
// dot segments alone: removing them is only meaningful for hierarchical
// paths, and template variables refuse them instead (template.go).
// A malformed percent-encoding ("%zz") is kept as it is; no template
// matches it.
func Normalize(u string) string {
	scheme, rest, hasScheme := splitScheme(u)
	host := ""
	if hasScheme && strings.HasPrefix(rest, "//") {
		end := strings.IndexAny(rest[2:], "/?#")
		if end < 0 {
			end = len(rest) - 2
		}
		host = rest[2 : 2+end]
	}
	if !strings.Contains(u, "%") && !hasUpper(scheme) && !hasUpper(host) {
		return u // the common case: nothing to do, nothing allocated
	}
	var b strings.Builder
	b.Grow(len(u))
	if hasScheme {
		b.WriteString(strings.ToLower(scheme))
		b.WriteByte(':')
		if host != "" || strings.HasPrefix(rest, "//") {
			b.WriteString("//")
			// userinfo keeps its case; the host (and port) is lowercased.
			at := strings.LastIndexByte(host, '@')
			writePercentNormalized(&b, host[:at+1])
			writePercentNormalized(&b, strings.ToLower(host[at+1:]))
			rest = rest[2+len(host):]
		}
	} else {
		rest = u
	}
	writePercentNormalized(&b, rest)
	return b.String()
}

// splitScheme splits "scheme:rest" when u starts with an RFC 3986 scheme.
func splitScheme(u string) (scheme, rest string, ok bool) {
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return u[:i], u[i+1:], true
		default:
			return "", u, false
		}
	}
	return "", u, false
}

// writePercentNormalized writes s with percent-encoded unreserved
// characters decoded and other percent-encodings' hex digits uppercased.
func writePercentNormalized(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' || i+2 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		hi, lo := unhex(s[i+1]), unhex(s[i+2])
		if hi < 0 || lo < 0 {
			b.WriteByte(s[i]) // malformed: kept
			continue
		}
		if c := byte(hi<<4 | lo); isUnreserved(c) {
			b.WriteByte(c)
		} else {
			const digits = "0123456789ABCDEF"
			b.WriteByte('%')
			b.WriteByte(digits[hi])
			b.WriteByte(digits[lo])
		}
		i += 2
	}
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}
