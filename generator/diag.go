package generator

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// Diagnostic is one problem found in the inputs, located by file, line,
// column and JSON pointer.
type Diagnostic struct {
	File      string
	Line, Col int
	// Pointer is the JSON pointer of the offending value ("" for the whole file).
	Pointer string
	Message string
	// Hint says what to do, when there is something useful to say.
	Hint string
	// Warning marks problems that do not stop generation.
	Warning bool
}

// String formats d as file:LINE:COL: /pointer: [warning: ]message (hint).
func (d Diagnostic) String() string {
	var b strings.Builder
	ptr := d.Pointer
	if ptr == "" {
		ptr = "/"
	}
	fmt.Fprintf(&b, "%s:%d:%d: %s: ", d.File, d.Line, d.Col, ptr)
	if d.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Message)
	if d.Hint != "" {
		fmt.Fprintf(&b, " (%s)", d.Hint)
	}
	return b.String()
}

// Diagnostics is a list of problems.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if !d.Warning {
			return true
		}
	}
	return false
}

// String returns one line per diagnostic.
func (ds Diagnostics) String() string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Error makes Diagnostics usable as the error of Generate.
func (ds Diagnostics) Error() string {
	n := 0
	for _, d := range ds {
		if !d.Warning {
			n++
		}
	}
	return fmt.Sprintf("%d problem(s) in the inputs:\n%s", n, strings.TrimSuffix(ds.String(), "\n"))
}

func (ds Diagnostics) sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Message < b.Message
	})
}

// source is one parsed input file.
type source struct {
	path string
	doc  *jsontree.Doc
}

// place is a location in the inputs: a node of a file.
type place struct {
	src  *source
	node *jsontree.Node
}

func (p place) String() string {
	line, col := p.src.doc.Pos(p.node.Start)
	if p.node.Ptr == "" {
		return fmt.Sprintf("%s:%d:%d", p.src.path, line, col)
	}
	return fmt.Sprintf("%s:%d:%d (%s)", p.src.path, line, col, p.node.Ptr)
}

// reporter collects diagnostics.
type reporter struct {
	diags Diagnostics
}

func (r *reporter) add(p place, warning bool, hint, format string, args ...any) {
	line, col := p.src.doc.Pos(p.node.Start)
	r.diags = append(r.diags, Diagnostic{
		File: p.src.path, Line: line, Col: col, Pointer: p.node.Ptr,
		Message: fmt.Sprintf(format, args...), Hint: hint, Warning: warning,
	})
}

// errorf reports an error at p.
func (r *reporter) errorf(p place, hint, format string, args ...any) {
	r.add(p, false, hint, format, args...)
}

// warnf reports a warning at p.
func (r *reporter) warnf(p place, hint, format string, args ...any) {
	r.add(p, true, hint, format, args...)
}

// errorIn and warnIn report a problem in a file that is not JSON (a
// SKILL.md, a file of a skill folder), at a line and column.
func (r *reporter) errorIn(file string, line, col int, pointer, hint, format string, args ...any) {
	r.diags = append(r.diags, Diagnostic{File: file, Line: line, Col: col, Pointer: pointer,
		Message: fmt.Sprintf(format, args...), Hint: hint})
}

func (r *reporter) warnIn(file string, line, col int, pointer, hint, format string, args ...any) {
	r.diags = append(r.diags, Diagnostic{File: file, Line: line, Col: col, Pointer: pointer,
		Message: fmt.Sprintf(format, args...), Hint: hint, Warning: true})
}
