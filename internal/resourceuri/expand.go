package resourceuri

import (
	"strconv"
	"strings"
)

// Expand expands an RFC 6570 URI template with vars: the URI of
// the resource those variables name, which Match gives back as the same
// variables.
//
// A variable absent from vars, or with no values, is undefined: it expands
// to nothing, and a query parameter ({?ref}) is left out. Values are
// percent-encoded as their expression's operator requires ({+path} and
// {#frag} keep reserved characters). An unclosed expression is copied as
// written.
func Expand(template string, vars Vars) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(template[open:], '}')
		if end < 0 {
			break
		}
		b.WriteString(template[:open])
		expandExpression(&b, template[open+1:open+end], vars)
		template = template[open+end+1:]
	}
	b.WriteString(template)
	return b.String()
}

// expansion is how RFC 6570 (section 3.2.1, appendix A) expands the
// expressions of one operator.
type expansion struct {
	first    string // written before the first defined variable
	sep      string // between variables (and exploded values)
	named    bool   // name=value
	ifEmpty  string // after the name of an empty value
	reserved bool   // reserved characters are kept
}

var expansions = map[byte]expansion{
	0:   {sep: ","},
	'+': {sep: ",", reserved: true},
	'#': {first: "#", sep: ",", reserved: true},
	'.': {first: ".", sep: "."},
	'/': {first: "/", sep: "/"},
	';': {first: ";", sep: ";", named: true},
	'?': {first: "?", sep: "&", named: true, ifEmpty: "="},
	'&': {first: "&", sep: "&", named: true, ifEmpty: "="},
}

// expandExpression writes the expansion of one {expression}.
func expandExpression(b *strings.Builder, expr string, vars Vars) {
	var op byte
	if expr != "" && strings.IndexByte("+#./;?&", expr[0]) >= 0 {
		op, expr = expr[0], expr[1:]
	}
	x := expansions[op]
	written := false
	for _, spec := range strings.Split(expr, ",") {
		name, explode := strings.CutSuffix(spec, "*")
		prefix := -1
		if n, p, ok := strings.Cut(name, ":"); ok {
			if v, err := strconv.Atoi(p); err == nil {
				name, prefix = n, v
			}
		}
		values := vars[name]
		if len(values) == 0 {
			continue
		}
		if written {
			b.WriteString(x.sep)
		} else {
			b.WriteString(x.first)
			written = true
		}
		switch {
		case explode:
			for i, v := range values {
				if i > 0 {
					b.WriteString(x.sep)
				}
				writeNamed(b, x, name, v, prefix)
			}
		case len(values) == 1:
			writeNamed(b, x, name, values[0], prefix)
		default:
			if x.named {
				b.WriteString(name + "=")
			}
			for i, v := range values {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(encodeURIValue(v, x.reserved))
			}
		}
	}
}

// writeNamed writes one value, preceded by its name for the named
// operators, cut to prefix characters when prefix >= 0.
func writeNamed(b *strings.Builder, x expansion, name, v string, prefix int) {
	if prefix >= 0 {
		n := 0
		for i := range v { // i steps from rune to rune
			if n == prefix {
				v = v[:i]
				break
			}
			n++
		}
	}
	if x.named {
		b.WriteString(name)
		if v == "" {
			b.WriteString(x.ifEmpty)
			return
		}
		b.WriteByte('=')
	}
	b.WriteString(encodeURIValue(v, x.reserved))
}

// encodeURIValue percent-encodes v, keeping unreserved characters and, when
// reserved is set, reserved characters and percent-encoded triplets.
func encodeURIValue(v string, reserved bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isUnreserved(c), reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0:
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
