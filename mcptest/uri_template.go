package mcptest

import (
	"fmt"
	"strings"
)

// ExpandURITemplate expands an RFC 6570 URI template with vars (one value
// per plain variable, any number for an exploded one; a variable that is
// absent or has no values is undefined and expands to nothing). It covers
// the expressions the runtime's templates match: {var}, {+var}, {#var},
// {/var}, {.var}, {?a,b}, {&c}, lists and explode (*); prefix modifiers
// ({var:3}) are an error, as they are when the runtime registers a template.
func ExpandURITemplate(template string, vars map[string][]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(template); {
		open := strings.IndexByte(template[i:], '{')
		if open < 0 {
			b.WriteString(template[i:])
			break
		}
		b.WriteString(template[i : i+open])
		end := strings.IndexByte(template[i+open:], '}')
		if end < 0 {
			return "", fmt.Errorf("URI template %q: unclosed { at offset %d", template, i+open)
		}
		expr := template[i+open+1 : i+open+end]
		if err := expand(&b, expr, vars); err != nil {
			return "", fmt.Errorf("URI template %q: %w", template, err)
		}
		i += open + end + 1
	}
	return b.String(), nil
}

// operator is how one RFC 6570 operator expands (section 3.2, table in
// appendix A).
type operator struct {
	first, sep string
	named      bool
	ifEmpty    string
	reserved   bool // reserved characters pass unencoded
}

var operators = map[byte]operator{
	'+': {sep: ",", reserved: true},
	'#': {first: "#", sep: ",", reserved: true},
	'.': {first: ".", sep: "."},
	'/': {first: "/", sep: "/"},
	'?': {first: "?", sep: "&", named: true, ifEmpty: "="},
	'&': {first: "&", sep: "&", named: true, ifEmpty: "="},
}

func expand(b *strings.Builder, expr string, vars map[string][]string) error {
	op := operator{sep: ","}
	if expr != "" {
		if o, ok := operators[expr[0]]; ok {
			op, expr = o, expr[1:]
		}
	}
	first := true
	for _, spec := range strings.Split(expr, ",") {
		name, explode := strings.CutSuffix(spec, "*")
		if name == "" || strings.ContainsAny(name, ":{}") {
			return fmt.Errorf("unsupported variable %q (prefix modifiers are not supported)", spec)
		}
		values := vars[name]
		if len(values) == 0 {
			continue
		}
		if first {
			b.WriteString(op.first)
			first = false
		} else {
			b.WriteString(op.sep)
		}
		encoded := make([]string, len(values))
		for j, v := range values {
			encoded[j] = encodeURIValue(v, op.reserved)
		}
		if !explode {
			writeNamed(b, op, name, strings.Join(encoded, ","))
			continue
		}
		for j, v := range encoded {
			if j > 0 {
				b.WriteString(op.sep)
			}
			writeNamed(b, op, name, v)
		}
	}
	return nil
}

// writeNamed writes one expanded value, as name=value for the named
// operators (? and &).
func writeNamed(b *strings.Builder, op operator, name, value string) {
	if op.named {
		b.WriteString(name)
		if value == "" {
			b.WriteString(op.ifEmpty)
			return
		}
		b.WriteString("=")
	}
	b.WriteString(value)
}

// encodeURIValue percent-encodes v: every byte but the unreserved ones, and
// with reserved, also leaves reserved characters and existing %XX as they
// are.
func encodeURIValue(v string, reserved bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~", c) >= 0:
			b.WriteByte(c)
		case reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0:
			b.WriteByte(c)
		case reserved && c == '%' && i+2 < len(v) && isHex(v[i+1]) && isHex(v[i+2]):
			b.WriteString(v[i : i+3])
			i += 2
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
