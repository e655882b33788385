package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/generator"
)

// After generate, a handler type that lacks methods of the new Handler
// interface would fail the build one method at a time: the compiler names
// only the first. reportMissingMethods names all of them at once, each with
// its signature and a body that compiles, ready to paste into a file of the
// user's.
//
// The handler types are those the package asserts, `var _ Handler =
// (*Tools)(nil)` (the scaffold's tools.go has that line). Their method sets
// are read from the source (the user's files and the generated ones, so an
// embedded UnimplementedHandler counts); a type embedding a type of another
// package is skipped, since its promoted methods cannot be seen from here.

// handlerGap is one handler type and the Handler methods it lacks.
type handlerGap struct {
	typeName string
	pointer  bool   // the assertion uses *T
	at       string // file:line of the assertion
	methods  []string
	imports  []string // import paths the methods' code uses
}

// reportMissingMethods writes the gaps of the handler types in dir, given
// the files just generated, to w. Problems reading the user's code are not
// reported: the compiler will report them better.
func reportMissingMethods(dir string, generated map[string][]byte, w io.Writer) {
	user := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if _, ours := generated[n]; ours {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil || generator.Owned(n, data) {
			continue // unreadable, or a stale generated file about to be gone
		}
		user[n] = data
	}
	gaps, err := missingMethods(generated, user)
	if err != nil {
		return
	}
	for _, g := range gaps {
		fmt.Fprint(w, g.String(filepath.Base(absolute(dir))))
	}
}

// String is the report of one gap: what lacks what, then the methods.
func (g handlerGap) String(pkgDir string) string {
	recv := g.typeName
	if g.pointer {
		recv = "*" + recv
	}
	var b strings.Builder
	uses := "no package"
	switch n := len(g.imports); {
	case n == 1:
		uses = "the package " + g.imports[0]
	case n > 1:
		uses = "the packages " + strings.Join(g.imports[:n-1], ", ") + " and " + g.imports[n-1]
	}
	if len(g.methods) == 1 {
		fmt.Fprintf(&b, "mcpgen: %s (%s) lacks a method of Handler. Paste it into a file of yours in %s/ (it uses %s):\n\n",
			recv, g.at, pkgDir, uses)
	} else {
		fmt.Fprintf(&b, "mcpgen: %s (%s) lacks %d methods of Handler; the build would stop at the first. "+
			"Paste all %d into a file of yours in %s/ (they use %s):\n\n",
			recv, g.at, len(g.methods), len(g.methods), pkgDir, uses)
	}
	for _, m := range g.methods {
		b.WriteString(m)
		b.WriteString("\n\n")
	}
	return b.String()
}

// missingMethods finds the handler types of the package made of the
// generated and user files and returns, per type, the Handler methods it
// lacks, in the interface's order.
func missingMethods(generated, user map[string][]byte) ([]handlerGap, error) {
	fset := token.NewFileSet()
	handlerSrc, ok := generated["mcpgen_handler.go"]
	if !ok {
		return nil, nil
	}
	handlerFile, err := parser.ParseFile(fset, "mcpgen_handler.go", handlerSrc, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	iface := interfaceNamed(handlerFile, "Handler")
	if iface == nil {
		return nil, nil
	}
	stubs := methodBodies(handlerFile, "UnimplementedHandler")

	pkg := newPackageIndex()
	for _, side := range []struct {
		files map[string][]byte
		user  bool
	}{{generated, false}, {user, true}} {
		for _, name := range sortedNames(side.files) {
			f, err := parser.ParseFile(fset, name, side.files[name], parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			pkg.add(f, side.user)
		}
	}

	var gaps []handlerGap
	for _, a := range pkg.assertions {
		have, known := pkg.methodSet(a.typeName, map[string]bool{})
		if !known {
			continue
		}
		pos := fset.Position(a.pos)
		g := handlerGap{typeName: a.typeName, pointer: a.pointer, at: fmt.Sprintf("%s:%d", pos.Filename, pos.Line)}
		uses := map[string]bool{}
		for _, m := range iface.Methods.List {
			if len(m.Names) != 1 || have[m.Names[0].Name] {
				continue
			}
			text, err := pasteReady(fset, handlerFile, m, a, pkg.receiverName(a.typeName), stubs[m.Names[0].Name], uses)
			if err != nil {
				return nil, err
			}
			g.methods = append(g.methods, text)
		}
		if len(g.methods) == 0 {
			continue
		}
		for path := range uses {
			g.imports = append(g.imports, path)
		}
		sort.Strings(g.imports)
		gaps = append(gaps, g)
	}
	return gaps, nil
}

// interfaceNamed returns the interface type declared as name in f.
func interfaceNamed(f *ast.File, name string) *ast.InterfaceType {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range gd.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == name {
				it, _ := ts.Type.(*ast.InterfaceType)
				return it
			}
		}
	}
	return nil
}

// methodBodies returns the bodies of the methods of typeName declared in f.
func methodBodies(f *ast.File, typeName string) map[string]*ast.BlockStmt {
	out := map[string]*ast.BlockStmt{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && receiverType(fd) == typeName {
			out[fd.Name.Name] = fd.Body
		}
	}
	return out
}

// assertion is a `var _ Handler = ...` of the package.
type assertion struct {
	typeName string
	pointer  bool
	pos      token.Pos
}

// packageIndex is what the package's source declares: types, their methods
// and embedded fields, and the Handler assertions.
type packageIndex struct {
	types      map[string]ast.Expr // type name -> its type expression
	methods    map[string]map[string]bool
	receivers  map[string]string // type name -> the receiver name its methods use
	assertions []assertion
}

func newPackageIndex() *packageIndex {
	return &packageIndex{types: map[string]ast.Expr{}, methods: map[string]map[string]bool{}, receivers: map[string]string{}}
}

// add indexes one file; only the user's files assert handler types and
// name receivers.
func (p *packageIndex) add(f *ast.File, user bool) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				continue
			}
			t := receiverType(d)
			if p.methods[t] == nil {
				p.methods[t] = map[string]bool{}
			}
			p.methods[t][d.Name.Name] = true
			if names := d.Recv.List[0].Names; user && len(names) == 1 && names[0].Name != "_" && p.receivers[t] == "" {
				p.receivers[t] = names[0].Name
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					p.types[s.Name.Name] = s.Type
				case *ast.ValueSpec:
					if user {
						p.assertion(s)
					}
				}
			}
		}
	}
}

// assertion records `var _ Handler = (*T)(nil)`, `= &T{}`, `= T{}` or
// `= new(T)`.
func (p *packageIndex) assertion(s *ast.ValueSpec) {
	if len(s.Names) != 1 || s.Names[0].Name != "_" || len(s.Values) != 1 {
		return
	}
	if id, ok := s.Type.(*ast.Ident); !ok || id.Name != "Handler" {
		return
	}
	v := s.Values[0]
	pointer := false
	switch x := v.(type) {
	case *ast.CallExpr: // (*T)(nil), T(x) or new(T)
		if fn, ok := x.Fun.(*ast.Ident); ok && fn.Name == "new" && len(x.Args) == 1 {
			v, pointer = x.Args[0], true
		} else {
			v = x.Fun
		}
	case *ast.UnaryExpr: // &T{}
		if x.Op == token.AND {
			v, pointer = x.X, true
		}
	}
	for {
		switch x := v.(type) {
		case *ast.ParenExpr:
			v = x.X
			continue
		case *ast.StarExpr:
			v, pointer = x.X, true
			continue
		case *ast.CompositeLit:
			v = x.Type
			continue
		}
		break
	}
	if id, ok := v.(*ast.Ident); ok {
		p.assertions = append(p.assertions, assertion{typeName: id.Name, pointer: pointer, pos: s.Pos()})
	}
}

// methodSet returns the names of the methods of typeName, its own and those
// its embedded fields promote; known is false when a type it embeds is not
// declared in the package (another package's), so the set is not complete.
func (p *packageIndex) methodSet(typeName string, visiting map[string]bool) (set map[string]bool, known bool) {
	if visiting[typeName] {
		return map[string]bool{}, true
	}
	visiting[typeName] = true
	te, ok := p.types[typeName]
	if !ok {
		return nil, false
	}
	set = map[string]bool{}
	for m := range p.methods[typeName] {
		set[m] = true
	}
	st, ok := te.(*ast.StructType)
	if !ok {
		return set, true
	}
	for _, f := range st.Fields.List {
		if len(f.Names) > 0 {
			continue
		}
		t := f.Type
		if star, ok := t.(*ast.StarExpr); ok {
			t = star.X
		}
		id, ok := t.(*ast.Ident)
		if !ok {
			return nil, false // another package's type: its methods are not visible here
		}
		promoted, ok := p.methodSet(id.Name, visiting)
		if !ok {
			return nil, false
		}
		for m := range promoted {
			set[m] = true
		}
	}
	return set, true
}

// receiverName is the receiver name typeName's methods use in the user's
// code, else its initial in lower case.
func (p *packageIndex) receiverName(typeName string) string {
	if r := p.receivers[typeName]; r != "" {
		return r
	}
	r, _ := utf8.DecodeRuneInString(typeName)
	return string(unicode.ToLower(r))
}

// receiverType is the name of a method's receiver type.
func receiverType(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// pasteReady renders one Handler method as a method of the handler type:
// its doc, its signature with the interface's parameter names, and the
// body UnimplementedHandler gives it (so that it compiles as pasted). The
// packages it uses are added to uses.
func pasteReady(fset *token.FileSet, handlerFile *ast.File, m *ast.Field, a assertion, recvName string, body *ast.BlockStmt, uses map[string]bool) (string, error) {
	var recvType ast.Expr = ast.NewIdent(a.typeName)
	if a.pointer {
		recvType = &ast.StarExpr{X: recvType}
	}
	ft, ok := m.Type.(*ast.FuncType)
	if !ok {
		return "", fmt.Errorf("Handler.%s is not a method", m.Names[0].Name)
	}
	if body == nil {
		body = &ast.BlockStmt{List: []ast.Stmt{&ast.ExprStmt{X: &ast.CallExpr{Fun: ast.NewIdent("panic"),
			Args: []ast.Expr{&ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(m.Names[0].Name + " is not implemented")}}}}}}
	}
	decl := &ast.FuncDecl{
		Recv: &ast.FieldList{List: []*ast.Field{{Names: []*ast.Ident{ast.NewIdent(recvName)}, Type: recvType}}},
		Name: ast.NewIdent(m.Names[0].Name),
		Type: ft,
		Body: body,
	}
	var code bytes.Buffer
	if err := format.Node(&code, fset, decl); err != nil {
		return "", err
	}
	ast.Inspect(decl, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				if path := importPath(handlerFile, id.Name); path != "" {
					uses[path] = true
				}
			}
		}
		return true
	})
	var doc strings.Builder
	if m.Doc != nil {
		for _, line := range strings.Split(strings.TrimSuffix(m.Doc.Text(), "\n"), "\n") {
			doc.WriteString(strings.TrimRight("// "+line, " ") + "\n")
		}
	}
	return doc.String() + code.String(), nil
}

// importPath is the path f imports as name.
func importPath(f *ast.File, name string) string {
	for _, im := range f.Imports {
		path, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		local := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			local = im.Name.Name
		}
		if local == name {
			return path
		}
	}
	return ""
}
