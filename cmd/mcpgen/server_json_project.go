package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/ext/servercard"
)

// projectFacts are what a project's files say of the server: its package
// path, and serverInfo as main.go passes it to runtime.NewServer.
type projectFacts struct {
	importPath string // of the folder; "" outside a module
	// name, version and title are the string literals of the Name,
	// Version and Title fields of the runtime.Options literal in the
	// folder's package main; "" when not found.
	name, version, title string
	at                   string // file:line of that literal
}

// readProject reads dir's module path and its runtime.Options literal.
func readProject(dir string) (projectFacts, error) {
	f := projectFacts{importPath: importPathOf(dir)}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return f, err
	}
	slices.Sort(files)
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return f, err
		}
		af, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
		if err != nil || af.Name.Name != "main" {
			continue // not the command's package; generate reports syntax errors
		}
		runtimeName := importName(af, "github.com/mcpgen/mcpgen/runtime")
		if runtimeName == "" {
			continue
		}
		ast.Inspect(af, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || f.at != "" || !isSelector(lit.Type, runtimeName, "Options") {
				return true
			}
			f.at = fset.Position(lit.Pos()).String()
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				key, _ := kv.Key.(*ast.Ident)
				val, _ := kv.Value.(*ast.BasicLit)
				if key == nil || val == nil || val.Kind != token.STRING {
					continue
				}
				s, err := strconv.Unquote(val.Value)
				if err != nil {
					continue
				}
				switch key.Name {
				case "Name":
					f.name = s
				case "Version":
					f.version = s
				case "Title":
					f.title = s
				}
			}
			return false
		})
		if f.at != "" {
			break
		}
	}
	return f, nil
}

// importName is the name file uses for the package at path, "" when it
// does not import it.
func importName(file *ast.File, path string) string {
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
}

func isSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == pkg && sel.Sel.Name == name
}

// majorSuffix is a module path's major version element (/v2).
var majorSuffix = regexp.MustCompile(`^v[0-9]+$`)

// registryName derives the registry name of a server from its module path
// and serverInfo.name: github.com/OWNER/... gives io.github.OWNER/NAME (the
// namespace GitHub sign-in grants), gitlab.com/OWNER/... io.gitlab.OWNER/NAME,
// and another host its reverse DNS (example.com/... gives com.example/NAME,
// a namespace proved by DNS or HTTP).
func registryName(importPath, serverName string) (string, error) {
	host, rest, _ := strings.Cut(importPath, "/")
	if !strings.Contains(host, ".") {
		return "", fmt.Errorf("the module path %q names no host to derive a namespace from; pass --name NAMESPACE/NAME (e.g. io.github.OWNER/%s)", importPath, firstOf(serverName, "NAME"))
	}
	if serverName == "" {
		elems := strings.Split(importPath, "/")
		serverName = elems[len(elems)-1]
		if majorSuffix.MatchString(serverName) && len(elems) > 1 {
			serverName = elems[len(elems)-2]
		}
	}
	var namespace string
	switch owner, _, _ := strings.Cut(rest, "/"); host {
	case "github.com", "gitlab.com":
		if owner == "" {
			return "", fmt.Errorf("the module path %q names no owner; pass --name", importPath)
		}
		namespace = "io." + strings.TrimSuffix(host, ".com") + "." + owner
	default:
		labels := strings.Split(strings.Split(host, ":")[0], ".")
		slices.Reverse(labels)
		namespace = strings.Join(labels, ".")
	}
	name := namespace + "/" + serverName
	if err := servercard.CheckName(name); err != nil {
		return "", fmt.Errorf("the name derived from the module path, %w; pass --name", err)
	}
	return name, nil
}

// repositoryOf derives the repository of a module on GitHub or GitLab:
// github.com/OWNER/REPO/sub/v2 is https://github.com/OWNER/REPO, subfolder
// sub. For GitLab, whose projects nest in groups, the whole path is taken
// as the project. nil for other hosts.
func repositoryOf(importPath string) *servercard.Repository {
	elems := strings.Split(importPath, "/")
	if n := len(elems); n > 3 && majorSuffix.MatchString(elems[n-1]) {
		elems = elems[:n-1]
	}
	switch {
	case elems[0] == "github.com" && len(elems) >= 3:
		return &servercard.Repository{URL: "https://github.com/" + elems[1] + "/" + elems[2], Source: "github", Subfolder: strings.Join(elems[3:], "/")}
	case elems[0] == "gitlab.com" && len(elems) >= 3:
		return &servercard.Repository{URL: "https://" + strings.Join(elems, "/"), Source: "gitlab"}
	}
	return nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
