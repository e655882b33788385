package docs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The runtime.Options field docs are the one source of each default ("0
// means 15s"); docs/bounds.md repeats them in a table, and this test checks
// that table against them in both directions.

const boundsPage = "docs/bounds.md"

// TestBoundsPageAgreesWithOptions: every row of each Options table in
// docs/bounds.md (runtime.Options, and the Options of the extensions that
// keep bounds of their own) names fields that Options has, with the
// defaults their doc comments state (and says so when a negative value
// disables one), and every field whose doc states a default has a row.
func TestBoundsPageAgreesWithOptions(t *testing.T) {
	for _, table := range []struct{ dir, typ, heading string }{
		{"runtime", "Options", "runtime.Options"},
		{"ext/tasks", "Options", "tasks.Options"},
		{"ext/events", "Options", "events.Options"},
		{"ext/events", "WebhookOptions", "events.WebhookOptions"},
	} {
		fields, err := structDefaults(repoPath(table.dir), table.typ)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := boundsRows(repoPath(boundsPage), table.heading)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			t.Fatalf("%s has no table under its heading \"`%s`\" with the columns | option | default | why |", boundsPage, table.heading)
		}
		for _, p := range checkBounds(fields, rows) {
			t.Errorf("%s: %s", table.heading, p)
		}
	}
}

// TestBoundsPageAgreesWithGeneratorLimits holds the generator's table to
// the doc comments of generator.Limits the same way.
func TestBoundsPageAgreesWithGeneratorLimits(t *testing.T) {
	fields, err := structDefaults(repoPath("generator"), "Limits")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := boundsRows(repoPath(boundsPage), "generator.Limits")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < len(fields) {
		t.Fatalf("%s's table under \"`generator.Limits`\" has %d rows for %d limits", boundsPage, len(rows), len(fields))
	}
	for _, p := range checkBounds(fields, rows) {
		t.Error(strings.ReplaceAll(strings.ReplaceAll(p, "runtime.Options", "generator.Limits"), "Options.", "Limits."))
	}
}

// optionDefault is what a runtime.Options field's doc says of its default.
type optionDefault struct {
	field    string
	pos      string   // file:line of the doc comment
	phrase   string   // the doc's words, "0 means 15s, negative disables"
	values   []string // normalized defaults (one per field)
	negative bool     // the doc says what a negative value does
}

// boundsRow is one row of the runtime.Options table of docs/bounds.md.
type boundsRow struct {
	line     int
	fields   []string
	cell     string   // the default column as written
	values   []string // normalized, one per field
	negative bool
}

// checkBounds compares the two sides and returns every disagreement, each
// naming the row or field and what to do.
func checkBounds(fields map[string]*optionDefault, rows []boundsRow) []string {
	var problems []string
	covered := map[string]bool{}
	for _, r := range rows {
		at := fmt.Sprintf("%s:%d", boundsPage, r.line)
		for _, name := range r.fields {
			covered[name] = true
		}
		if len(r.values) != len(r.fields) {
			problems = append(problems, fmt.Sprintf("%s: the row for %s gives %d defaults (%q) for %d options; give one per option, in the same order",
				at, strings.Join(r.fields, ", "), len(r.values), r.cell, len(r.fields)))
			continue
		}
		for i, name := range r.fields {
			f, ok := fields[name]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: the row names `%s`, which runtime.Options does not have (or whose doc states no default as \"0 means ...\"); rename the row to the field it is about, or remove it", at, name))
				continue
			}
			if r.values[i] != f.values[0] {
				problems = append(problems, fmt.Sprintf("%s: the row says `%s` defaults to %s, but the doc of Options.%s (%s) says %q; make the row say %s, or fix the doc if the row is right",
					at, name, strings.TrimSpace(strings.SplitN(r.cell, "(", 2)[0]), name, f.pos, f.phrase, pretty(f.values[0])))
			}
			if r.negative != f.negative {
				if f.negative {
					problems = append(problems, fmt.Sprintf("%s: the doc of Options.%s (%s) says what a negative value does (%q), but the row does not; add \"(negative: ...)\" to its default", at, name, f.pos, f.phrase))
				} else {
					problems = append(problems, fmt.Sprintf("%s: the row says a negative `%s` does something, but the doc of Options.%s (%s) does not (%q); drop it from the row, or say it in the doc", at, name, name, f.pos, f.phrase))
				}
			}
		}
	}
	for _, name := range sortedKeys(fields) {
		if f := fields[name]; !covered[name] {
			problems = append(problems, fmt.Sprintf("%s: Options.%s states a default (%q) but %s has no row for it; add | `%s` | %s | why it is bounded | to the runtime.Options table",
				f.pos, name, f.phrase, boundsPage, name, pretty(f.values[0])))
		}
	}
	return problems
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

var (
	// defaultPhraseRE finds the sentences that state a default.
	defaultPhraseRE = regexp.MustCompile(`\b0 means `)
	// valueRE matches one default: a count (10,000), a size (4 MiB) or a
	// duration (15s, 10 minutes, 1 hour).
	valueRE = regexp.MustCompile(`\b(\d{1,3}(?:,\d{3})+|\d+\.\d+|\d+)\s*(minutes?|hours?|seconds?|ms|s|m|h|KiB|MiB|GiB)?\b`)
)

// optionDefaults reads the runtime package's source, finds `type Options
// struct` and returns, per field, the default its doc comment states.
func optionDefaults(dir string) (map[string]*optionDefault, error) {
	return structDefaults(dir, "Options")
}

// structDefaults reads the source of the package in dir, finds `type
// typeName struct` and returns, per field, the default its doc comment
// states.
func structDefaults(dir, typeName string) (map[string]*optionDefault, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var st *ast.StructType
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == typeName {
				st, _ = ts.Type.(*ast.StructType)
			}
			return st == nil
		})
		if st != nil {
			break
		}
	}
	if st == nil {
		return nil, fmt.Errorf("no `type %s struct` in %s", typeName, dir)
	}
	// A doc comment covers its field and the undocumented fields after it
	// (Options groups related fields under one comment).
	type group struct {
		doc    *ast.CommentGroup
		fields []string
	}
	var groups []*group
	for _, f := range st.Fields.List {
		if f.Doc != nil || len(groups) == 0 {
			groups = append(groups, &group{doc: f.Doc})
		}
		g := groups[len(groups)-1]
		for _, n := range f.Names {
			g.fields = append(g.fields, n.Name)
		}
	}
	out := map[string]*optionDefault{}
	for _, g := range groups {
		if g.doc == nil {
			continue
		}
		pos := fset.Position(g.doc.Pos())
		at := fmt.Sprintf("%s/%s:%d", filepath.Base(dir), filepath.Base(pos.Filename), pos.Line)
		text := strings.Join(strings.Fields(g.doc.Text()), " ")
		for _, loc := range defaultPhraseRE.FindAllStringIndex(text, -1) {
			clause := clauseAt(text, loc[1])
			values := normalizedValues(clause)
			if len(values) == 0 {
				return nil, fmt.Errorf("%s: the doc says %q but no default value follows \"0 means\"", at, "0 means "+clause)
			}
			owners := mentionedBefore(text[:loc[0]], g.fields, len(values))
			if owners == nil {
				return nil, fmt.Errorf("%s: the doc of %s says %q without naming which of the fields it is for; name the field before \"0 means\"",
					at, strings.Join(g.fields, ", "), "0 means "+clause)
			}
			for i, name := range owners {
				if prev, dup := out[name]; dup {
					return nil, fmt.Errorf("%s: Options.%s is given two defaults (%q and %q)", at, name, prev.phrase, "0 means "+clause)
				}
				out[name] = &optionDefault{field: name, pos: at, phrase: "0 means " + clause, values: values[i : i+1], negative: strings.Contains(clause, "negative")}
			}
		}
	}
	return out, nil
}

// clauseAt is the text from i to the end of its sentence, clause or
// parenthesis, with parenthesized asides left out.
func clauseAt(text string, i int) string {
	var b strings.Builder
	depth := 0
	for j := i; j < len(text); j++ {
		c := text[j]
		switch {
		case c == '(':
			depth++
			continue
		case c == ')':
			if depth == 0 {
				return strings.TrimSpace(b.String())
			}
			depth--
			continue
		case depth > 0:
			continue
		case c == ';', c == '.' && (j+1 == len(text) || text[j+1] == ' '):
			return strings.TrimSpace(b.String())
		}
		b.WriteByte(c)
	}
	return strings.TrimSpace(b.String())
}

// mentionedBefore returns the n fields of the group that text names last,
// in the order it names them; a group of one field owns its default
// unnamed. It returns nil when it cannot tell.
func mentionedBefore(text string, fields []string, n int) []string {
	if len(fields) == 1 && n == 1 {
		return fields
	}
	type mention struct {
		at   int
		name string
	}
	var ms []mention
	for _, f := range fields {
		for _, loc := range regexp.MustCompile(`\b`+f+`\b`).FindAllStringIndex(text, -1) {
			ms = append(ms, mention{loc[0], f})
		}
	}
	slices.SortFunc(ms, func(a, b mention) int { return a.at - b.at })
	var owners []string
	for i := len(ms) - 1; i >= 0 && len(owners) < n; i-- {
		if !slices.Contains(owners, ms[i].name) {
			owners = append([]string{ms[i].name}, owners...)
		}
	}
	if len(owners) < n {
		return nil
	}
	return owners
}

// boundsRows reads the table under the heading that names "`heading`".
func boundsRows(page, heading string) ([]boundsRow, error) {
	data, err := os.ReadFile(page)
	if err != nil {
		return nil, err
	}
	nameRE := regexp.MustCompile("`([A-Z][A-Za-z0-9]*)`")
	var rows []boundsRow
	in := false
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			in = strings.Contains(line, "`"+heading+"`")
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if len(cells) < 2 {
			continue
		}
		first := strings.TrimSpace(cells[0])
		if first == "option" || first == "limit" || strings.Trim(first, "-: ") == "" {
			continue // the header and its rule
		}
		r := boundsRow{line: i + 1, cell: strings.TrimSpace(cells[1])}
		for _, m := range nameRE.FindAllStringSubmatch(first, -1) {
			r.fields = append(r.fields, m[1])
		}
		if len(r.fields) == 0 {
			return nil, fmt.Errorf("%s:%d: the first cell names no option in backquotes: %q", boundsPage, i+1, first)
		}
		r.values = normalizedValues(strings.SplitN(r.cell, "(", 2)[0])
		r.negative = strings.Contains(r.cell, "negative")
		rows = append(rows, r)
	}
	return rows, nil
}

// normalizedValues returns the defaults written in s, each as a count
// ("n=10000"), a size in bytes ("bytes=4194304") or a duration ("15s").
func normalizedValues(s string) []string {
	var out []string
	for _, m := range valueRE.FindAllStringSubmatch(s, -1) {
		if strings.Contains(m[1], ".") && m[2] == "" { // a fraction (CallerShare)
			out = append(out, "f="+m[1])
			continue
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if err != nil {
			continue
		}
		unit := strings.TrimSuffix(m[2], "s")
		if m[2] == "s" || m[2] == "ms" {
			unit = m[2]
		}
		switch unit {
		case "":
			out = append(out, fmt.Sprintf("n=%d", n))
		case "KiB", "MiB", "GiB":
			shift := map[string]uint{"KiB": 10, "MiB": 20, "GiB": 30}[unit]
			out = append(out, fmt.Sprintf("bytes=%d", n<<shift))
		default:
			d := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "second": time.Second,
				"m": time.Minute, "minute": time.Minute, "h": time.Hour, "hour": time.Hour}[unit]
			out = append(out, (time.Duration(n) * d).String())
		}
	}
	return out
}

// pretty writes a normalized value the way the table does.
func pretty(v string) string {
	switch {
	case strings.HasPrefix(v, "n="):
		n, _ := strconv.Atoi(strings.TrimPrefix(v, "n="))
		return withThousands(n)
	case strings.HasPrefix(v, "f="):
		return strings.TrimPrefix(v, "f=")
	case strings.HasPrefix(v, "bytes="):
		n, _ := strconv.Atoi(strings.TrimPrefix(v, "bytes="))
		for _, u := range []struct {
			name  string
			shift uint
		}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
			if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
				return fmt.Sprintf("%d %s", n>>u.shift, u.name)
			}
		}
		return fmt.Sprintf("%d bytes", n)
	}
	// time.Duration's "15m0s" and "1h0m0s" as the table writes them: "15m", "1h"
	if strings.HasSuffix(v, "m0s") {
		v = strings.TrimSuffix(v, "0s")
	}
	if strings.HasSuffix(v, "h0m") {
		v = strings.TrimSuffix(v, "0m")
	}
	return v
}

func withThousands(n int) string {
	s := strconv.Itoa(n)
	if n < 10_000 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
