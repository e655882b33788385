package generator

import (
	"bytes"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"
)

// emitPackage renders the package the parts make: each part's own files,
// mcpgen_handler.go, and with an import path the typed test client. Files
// are independent, so they are rendered by up to GOMAXPROCS goroutines;
// the IR is only read.
func emitPackage(pkg, importPath string, parts []part) (map[string][]byte, error) {
	pc := &packageCode{pkg: pkg, importPath: importPath}
	for _, p := range parts {
		p.emit(pc)
	}
	jobs := append([]genFile(nil), pc.files...)
	jobs = append(jobs, genFile{"mcpgen_handler.go", func() *jen.File { return emitHandler(pc) }})
	if importPath != "" {
		jobs = append(jobs, genFile{TestClientFile(pkg), func() *jen.File { return emitTestClient(pc) }})
	}

	results := make([][]byte, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(goruntime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var buf bytes.Buffer
				if err := jobs[i].build().Render(&buf); err != nil {
					errs[i] = fmt.Errorf("rendering %s: %w", jobs[i].name, err)
					continue
				}
				results[i] = groupImports(buf.Bytes())
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(jobs))
	for i, j := range jobs {
		out[j.name] = results[i]
	}
	return out, nil
}

// groupImports puts the standard library imports first and the others in a
// second group, as goimports does, so that running it changes nothing.
func groupImports(src []byte) []byte {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return src
	}
	start += len("\nimport (\n")
	end := start + bytes.Index(src[start:], []byte("\n)\n"))
	var std, other []string
	for _, line := range strings.Split(string(src[start:end]), "\n") {
		p := strings.Trim(strings.TrimSpace(line), `"`)
		if p == "" {
			continue
		}
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	block := strings.Join(std, "\n")
	if len(std) > 0 && len(other) > 0 {
		block += "\n"
	}
	if len(other) > 0 {
		block += "\n" + strings.Join(other, "\n")
	}
	// Each group stays sorted, so the result is already gofmt-clean.
	return append(append(append([]byte(nil), src[:start]...), block...), src[end:]...)
}
