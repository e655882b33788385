package resourceuri

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Template is a parsed RFC 6570 URI template, as far as MCP servers use
// it, compiled into one anchored regular expression for matching:
//
//   - {var} and {a,b} (simple): each value is one or more characters other
//     than / ? # (and , between several names; . when a {.label} follows);
//     required.
//   - {+var} (reserved) and {#var} (fragment): one or more of any
//     character, / included (the shortest that lets the rest match, so a
//     query the template declares is not taken in); required.
//   - {/var} and {/var*} (path segments), {.var} and {.var*} (labels): one
//     segment, or any number for an exploded variable; optional, as an
//     undefined variable expands to nothing.
//   - {?a,b} and {&c} (query): the query string is parsed as a whole, so the
//     parameters may come in any order, absent ones are left out and
//     undeclared ones ignored. Query expressions must end the template.
//
// Prefix modifiers ({var:3}) and exploded query variables are refused when
// the template is registered: a match could not give them back reliably.
// Values are percent-decoded; an exploded variable is split on its
// separator first.
type Template struct {
	raw   string
	re    *regexp.Regexp
	vars  []templateVar // in capture-group order, non-query variables
	query []string      // query variable names
	names []string      // every variable name, in template order
}

// Vars are the variables a template matched in a URI, percent-decoded:
// one value for a plain variable, one per element for an exploded list
// ({/path*}). A query variable the URI leaves out is absent.
type Vars = map[string][]string

// Var is one variable of a URI template.
type Var struct {
	Name string
	// List: the variable is exploded ({/path*}, {list*}) and may have
	// several values; otherwise it has at most one.
	List bool
	// Optional: a URI may leave it out ({/seg}, {.ext}, {?q}); otherwise
	// every matching URI has it.
	Optional bool
}

// Names are the template's variables, in template order.
func (t *Template) Names() []string { return t.names }

// Variables parses template with the rules Match uses and returns its
// variables in template order, or the parse error. The generator uses it
// to type a template's parameters.
func Variables(template string) ([]Var, error) {
	t, err := Parse(template)
	if err != nil {
		return nil, err
	}
	var out []Var
	for _, v := range t.vars {
		for _, n := range v.names {
			out = append(out, Var{Name: n, List: v.sep != "",
				Optional: v.op == '/' || v.op == '.' || len(v.names) > 1 && n != v.names[0]})
		}
	}
	for _, n := range t.query {
		out = append(out, Var{Name: n, Optional: true})
	}
	// t.vars and t.query are in capture order; give them back in template order.
	order := map[string]int{}
	for i, n := range t.names {
		if _, ok := order[n]; !ok {
			order[n] = i
		}
	}
	slices.SortStableFunc(out, func(a, b Var) int { return order[a.Name] - order[b.Name] })
	return out, nil
}

// templateVar is one non-query capture of a template.
type templateVar struct {
	names []string // several for {a,b}
	sep   string   // the separator of an exploded value ("" for none)
	op    byte
}

// MaxLen bounds a URI template (and a URI matched against one).
const MaxLen = 8 << 10

func Parse(raw string) (*Template, error) {
	if len(raw) > MaxLen {
		return nil, fmt.Errorf("URI template is longer than %d bytes", MaxLen)
	}
	t := &Template{raw: raw}
	var re strings.Builder
	re.WriteString("^")
	lastSimple := -1 // where the pattern of a simple variable ends, when nothing follows it yet
	inQuery := false
	for i := 0; i < len(raw); {
		if raw[i] == '}' {
			return nil, fmt.Errorf("URI template %q: unmatched } at offset %d", raw, i)
		}
		if raw[i] != '{' {
			j := strings.IndexByte(raw[i:], '{')
			if j < 0 {
				j = len(raw) - i
			}
			lit := raw[i : i+j]
			if strings.Contains(lit, "}") {
				return nil, fmt.Errorf("URI template %q: unmatched } at offset %d", raw, i+strings.IndexByte(lit, '}'))
			}
			if inQuery {
				return nil, fmt.Errorf("URI template %q: text after a query expression at offset %d; query expressions must end the template", raw, i)
			}
			// Literals are matched against normalized URIs
			// (normalize.go): the template's own are normalized too,
			// the first as a URI (its scheme and host), the others for
			// their percent-encodings.
			if i == 0 {
				lit = Normalize(lit)
			} else {
				var nb strings.Builder
				writePercentNormalized(&nb, lit)
				lit = nb.String()
			}
			re.WriteString(regexp.QuoteMeta(lit))
			lastSimple = -1
			i += j
			continue
		}
		end := strings.IndexByte(raw[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("URI template %q: unclosed { at offset %d", raw, i)
		}
		expr := raw[i+1 : i+end]
		at := i
		i += end + 1
		if expr == "" {
			return nil, fmt.Errorf("URI template %q: empty expression at offset %d", raw, at)
		}
		var op byte
		if strings.IndexByte("+#./?&", expr[0]) >= 0 {
			op, expr = expr[0], expr[1:]
		} else if strings.IndexByte("=,!@|", expr[0]) >= 0 {
			return nil, fmt.Errorf("URI template %q: reserved operator %q at offset %d", raw, expr[0], at)
		}
		var names []string
		explode := false
		for _, n := range strings.Split(expr, ",") {
			if strings.HasSuffix(n, "*") {
				n, explode = n[:len(n)-1], true
			}
			if strings.Contains(n, ":") {
				return nil, fmt.Errorf("URI template %q: prefix modifier in {%s} is not supported", raw, raw[at+1:i-1])
			}
			if !validVarName(n) {
				return nil, fmt.Errorf("URI template %q: invalid variable name %q at offset %d", raw, n, at)
			}
			names = append(names, n)
		}
		t.names = append(t.names, names...)
		if op == '?' || op == '&' {
			if explode {
				return nil, fmt.Errorf("URI template %q: exploded query variables are not supported", raw)
			}
			if !inQuery {
				re.WriteString(`(?:[?&]([^#]*))?`)
				inQuery = true
			}
			t.query = append(t.query, names...)
			continue
		}
		if inQuery {
			return nil, fmt.Errorf("URI template %q: expression after a query expression at offset %d; query expressions must end the template", raw, at)
		}
		if explode && len(names) > 1 {
			return nil, fmt.Errorf("URI template %q: an exploded variable must be alone in its expression", raw)
		}
		v := templateVar{names: names, op: op}
		if op == '.' && lastSimple == re.Len() {
			// {name}{.ext}: the label starts at the name's last dot.
			head := strings.TrimSuffix(re.String(), `([^/?#]+)`)
			re.Reset()
			re.WriteString(head + `([^/?#.]+)`)
		}
		lastSimple = -1
		switch op {
		case 0:
			re.WriteString(`([^/?#]+)`)
			lastSimple = re.Len()
			if explode {
				v.sep = ","
			}
		case '+':
			re.WriteString(`(.+?)`)
			if explode {
				v.sep = ","
			}
		case '#':
			re.WriteString(`#(.+?)`)
			if explode {
				v.sep = ","
			}
		case '/':
			if explode {
				re.WriteString(`((?:/[^/?#]+)*)`)
				v.sep = "/"
			} else {
				re.WriteString(`(?:/([^/?#]+))?`)
			}
		case '.':
			if explode {
				re.WriteString(`((?:\.[^/?#.]+)*)`)
				v.sep = "."
			} else {
				re.WriteString(`(?:\.([^/?#.]+))?`)
			}
		}
		t.vars = append(t.vars, v)
	}
	re.WriteString("$")
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("URI template %q: %v", raw, err)
	}
	t.re = compiled
	return t, nil
}

// validVarName reports whether n is an RFC 6570 varname (ALPHA, DIGIT, _,
// pct-encoded, dots between).
func validVarName(n string) bool {
	if n == "" || n[0] == '.' || n[len(n)-1] == '.' {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '%':
		default:
			return false
		}
	}
	return true
}

// Safe reports whether matched values keep the rules the runtime states
// for URIVars (no control character, no "." or ".." segment, no separator
// in a single-segment variable): they cannot turn a handler that joins
// them into a path or key into a traversal.
func (t *Template) Safe(vars Vars) bool {
	for _, v := range t.vars {
		single := v.op == 0 || v.op == '/' || v.op == '.'
		for _, n := range v.names {
			for _, val := range vars[n] {
				if !safeValue(val, single) {
					return false
				}
			}
		}
	}
	for _, n := range t.query {
		for _, val := range vars[n] {
			if !safeValue(val, false) {
				return false
			}
		}
	}
	return true
}

// safeValue checks one decoded value: no control character, no "." or
// ".." segment, and for a single-segment variable no separator at all.
func safeValue(v string, single bool) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f || single && (c == '/' || c == '\\') {
			return false
		}
	}
	for seg := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// Match returns the variables of uri, or false when the template does not
// match it (or a value is not valid percent-encoding).
func (t *Template) Match(uri string) (Vars, bool) {
	if len(uri) > MaxLen {
		return nil, false
	}
	m := t.re.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := Vars{}
	g := 1
	for _, v := range t.vars {
		s := m[g]
		g++
		if s == "" {
			continue // an optional expression that expanded to nothing
		}
		var parts []string
		switch {
		case v.sep != "" && (v.op == '/' || v.op == '.'):
			parts = strings.Split(s[1:], v.sep) // without the leading separator
		case v.sep != "" || len(v.names) > 1:
			parts = strings.Split(s, ",")
		default:
			parts = []string{s}
		}
		for i := range parts {
			d, err := url.PathUnescape(parts[i])
			if err != nil {
				return nil, false
			}
			parts[i] = d
		}
		if len(v.names) > 1 {
			if len(parts) > len(v.names) {
				return nil, false
			}
			for i, p := range parts {
				vars[v.names[i]] = []string{p}
			}
			continue
		}
		vars[v.names[0]] = parts
	}
	if len(t.query) > 0 && m[g] != "" {
		q, err := url.ParseQuery(m[g])
		if err != nil {
			return nil, false
		}
		for _, n := range t.query {
			if vs, ok := q[n]; ok {
				vars[n] = vs
			}
		}
	}
	return vars, true
}
