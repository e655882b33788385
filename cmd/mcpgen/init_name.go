package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/templates"
)

// maxNameLen bounds a project's name: it is a Go package name, an MCP
// server name and a file name.
const maxNameLen = 64

// validName is what a project's name may be: a Go package name that is also
// an MCP server name and a file name on every system, in the form Go
// expects of package names (lowercase, no underscores).
var validName = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// projectName is --name when given, else the name derived from the folder
// dir; either way checked.
func projectName(flag, dir string) (string, error) {
	if flag != "" {
		if err := checkName(flag); err != nil {
			return "", fmt.Errorf("--name %q: %w", flag, err)
		}
		return flag, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	base := filepath.Base(abs)
	name := nameFromFolder(base)
	if err := checkName(name); err != nil {
		return "", fmt.Errorf("cannot make a project name from the folder's name %q (%q: %v); pass one with --name, e.g. --name tools", base, name, err)
	}
	return name, nil
}

// nameFromFolder derives a name from a folder's: lowercase, without a
// -server or -mcp suffix or an mcp- prefix (tickets-server, mcp-tickets and
// tickets-mcp are all tickets), and only its letters and digits.
func nameFromFolder(base string) string {
	n := strings.ToLower(base)
	for _, affix := range []string{"-mcp-server", "_mcp_server", "-server", "_server", "-mcp", "_mcp"} {
		if s, ok := strings.CutSuffix(n, affix); ok && s != "" {
			n = s
			break
		}
	}
	for _, affix := range []string{"mcp-server-", "mcp_server_", "mcp-", "mcp_"} {
		if s, ok := strings.CutPrefix(n, affix); ok && s != "" {
			n = s
			break
		}
	}
	return strings.Map(func(r rune) rune {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			return r
		}
		return -1
	}, n)
}

// checkName says what is wrong with a project name, if anything.
func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("the name is empty")
	case len(name) > maxNameLen:
		return fmt.Errorf("longer than %d characters", maxNameLen)
	case !validName.MatchString(name):
		return fmt.Errorf("a project's name is its Go package name and its MCP server name: lowercase letters a-z and digits, starting with a letter (such as tickets or notes2)")
	case token.IsKeyword(name):
		return fmt.Errorf("%s is a Go keyword, which cannot name a package", name)
	case name == "main":
		return fmt.Errorf("main is the name of the server's command package; its tools need another")
	case types.Universe.Lookup(name) != nil:
		return fmt.Errorf("%s is predeclared in Go (a built-in type or function), which the package name would hide in main.go", name)
	}
	return nil
}

// checkNameClash refuses a name that a file of the project could not
// import its tools package (or their test client, NAMEtest) by: one that
// another import of the same file, or a top-level name of it, already takes
// (main.go imports runtime, flag, fmt, ...). It reads the rendered files, so
// it holds for whatever the templates import.
func checkNameClash(name, importPath string, files []templates.File) error {
	pkg := importPath + "/" + name
	fset := token.NewFileSet()
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".go") {
			continue
		}
		file, err := parser.ParseFile(fset, f.Path, f.Data, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("the scaffold's %s does not parse: %w", f.Path, err)
		}
		ours := map[string]bool{}
		taken := map[string]string{} // name -> what takes it
		for _, imp := range file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			local := path.Base(p)
			if imp.Name != nil {
				local = imp.Name.Name
			}
			if p == pkg || p == pkg+"/"+name+"test" {
				ours[local] = true
				continue
			}
			taken[local] = "imports " + p
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					taken[d.Name.Name] = "declares func " + d.Name.Name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						taken[s.Name.Name] = "declares type " + s.Name.Name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							taken[n.Name] = "declares " + n.Name
						}
					}
				}
			}
		}
		for local := range ours {
			if what, ok := taken[local]; ok {
				return fmt.Errorf("--name %s: the scaffold's %s %s, so it could not import the package %s; choose another name", name, f.Path, what, local)
			}
		}
	}
	return nil
}
