package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const corpusRoot = "../testdata/corpus"

// resourcesSuffix ends the name of a snapshot's resources/list.
const resourcesSuffix = ".resources.json"

// corpusServer is one snapshot of testdata/corpus and the package made from it.
type corpusServer struct {
	file  string // base name
	pkg   string
	tools []json.RawMessage // as in the file, in order
	files map[string][]byte
}

// corpusPackage makes a Go package name from a snapshot's file name.
func corpusPackage(file string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			return r
		}
		return -1
	}, strings.TrimSuffix(file, ".json"))
}

// TestCorpus generates the tools/list snapshots of real public servers
// (testdata/corpus/SOURCES.md) unedited and without overrides, compares the
// warnings with diagnostics.txt, then builds and vets every package (and
// its typed test client) in one module and checks that tools/list of each built server returns its tools
// byte for byte as in the snapshot, in the same order.
func TestCorpus(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(corpusRoot, "*.json"))
	if err != nil || len(names) < 12 {
		t.Fatalf("only %d snapshots in %s (%v)", len(names), corpusRoot, err)
	}
	// Generation is pure, so the snapshots are generated side by side.
	// NAME.resources.json is the resources/list of the server of NAME.json,
	// kept for the MCP Apps pages its tools name; it joins that snapshot.
	var snapshots []string
	for _, name := range names {
		if !strings.HasSuffix(name, resourcesSuffix) {
			snapshots = append(snapshots, name)
		}
	}
	names = snapshots
	servers := make([]*corpusServer, len(names))
	results := make([]*Result, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs := []InputFile{{Path: filepath.Base(name), Data: data}}
		companion := strings.TrimSuffix(name, ".json") + resourcesSuffix
		if res, err := os.ReadFile(companion); err == nil {
			inputs = append(inputs, InputFile{Path: filepath.Base(companion), Data: res})
		}
		s := &corpusServer{file: filepath.Base(name), pkg: corpusPackage(filepath.Base(name))}
		var snap struct {
			Tools  []json.RawMessage `json:"tools"`
			Result *struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(data, &snap); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.tools = snap.Tools
		if snap.Result != nil {
			s.tools = snap.Result.Tools
		}
		servers[i] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = Generate(Config{Package: s.pkg, Inputs: inputs, ImportPath: "corpus/" + s.pkg})
		}()
	}
	wg.Wait()
	var diags strings.Builder
	total := 0
	for i, s := range servers {
		total += len(s.tools)
		if errs[i] != nil {
			t.Errorf("%s does not generate unedited:\n%v", s.file, errs[i])
			continue
		}
		diags.WriteString(results[i].Diagnostics.String())
		s.files = results[i].Files
	}
	if total < 300 {
		t.Errorf("the corpus holds only %d tools", total)
	}
	diagFile := filepath.Join(corpusRoot, "diagnostics.txt")
	if *update {
		if err := os.WriteFile(diagFile, []byte(diags.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if want, _ := os.ReadFile(diagFile); string(want) != diags.String() {
		t.Errorf("the corpus diagnostics differ from %s (run with -update and review the diff):\n%s", diagFile, diags.String())
	}
	if t.Failed() || testing.Short() {
		return
	}
	dir := corpusModule(t, servers)
	for _, args := range [][]string{{"vet", "./..."}, {"run", "./check"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
		if args[0] == "run" {
			compareListed(t, servers, out)
		}
	}
}

// compareListed checks the tools/list output of the check program (one line
// per server: {"server": pkg, "tools": [...]}) against the snapshots.
func compareListed(t *testing.T, servers []*corpusServer, out []byte) {
	t.Helper()
	listed := map[string][]json.RawMessage{}
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var l struct {
			Server string            `json:"server"`
			Tools  []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("check output %.200s: %v", line, err)
		}
		listed[l.Server] = l.Tools
	}
	for _, s := range servers {
		got := listed[s.pkg]
		if len(got) != len(s.tools) {
			t.Errorf("%s: tools/list returned %d tools, the snapshot has %d", s.file, len(got), len(s.tools))
			continue
		}
		for i, want := range s.tools {
			var c bytes.Buffer
			if err := json.Compact(&c, want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(c.Bytes(), got[i]) {
				t.Errorf("%s: tool %d differs from the snapshot:\n got %.300s\nwant %.300s", s.file, i, got[i], c.Bytes())
			}
		}
	}
}

// corpusModule writes every package and a check program into a temporary
// module that uses this checkout's runtime, offline.
func corpusModule(t *testing.T, servers []*corpusServer) string {
	t.Helper()
	dir := t.TempDir()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", fmt.Appendf(nil, "module corpus\n\ngo 1.25.0\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => %s\n", root))
	write("go.sum", sum)
	var imports, calls strings.Builder
	for _, s := range servers {
		for name, data := range s.files {
			write(filepath.Join(s.pkg, name), data)
		}
		fmt.Fprintf(&imports, "\t%q\n", "corpus/"+s.pkg)
		fmt.Fprintf(&calls, "\tlist(%q, func(s *runtime.Server) error { return %s.Register(s, %s.UnimplementedHandler{}) })\n", s.pkg, s.pkg, s.pkg)
	}
	write("check/main.go", fmt.Appendf(nil, checkProgram, imports.String(), calls.String()))
	return dir
}

// checkProgram registers each package on a server, asks it for tools/list
// over stdio and prints one line per server.
const checkProgram = `// Command check prints what tools/list returns for each corpus package.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
%s)

func main() {
%s}

func list(name string, register func(*runtime.Server) error) {
	s := runtime.NewServer(runtime.Options{Name: name, PageSize: 1000})
	if err := register(s); err != nil {
		fail(name, err)
	}
	in := strings.Join([]string{
		` + "`" + `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"check","version":"1"}}}` + "`" + `,
		` + "`" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "`" + `,
		` + "`" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "`" + `,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := s.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		fail(name, err)
	}
	for _, line := range bytes.Split(out.Bytes(), []byte("\n")) {
		var resp struct {
			ID     int ` + "`json:\"id\"`" + `
			Result struct {
				Tools      []json.RawMessage ` + "`json:\"tools\"`" + `
				NextCursor string            ` + "`json:\"nextCursor\"`" + `
			} ` + "`json:\"result\"`" + `
		}
		if json.Unmarshal(line, &resp) != nil || resp.ID != 2 {
			continue
		}
		if resp.Result.NextCursor != "" {
			fail(name, fmt.Errorf("tools/list was paged"))
		}
		// Written by hand: json.Marshal would escape <, > and & inside the tools.
		tools := make([]string, len(resp.Result.Tools))
		for i, t := range resp.Result.Tools {
			tools[i] = string(t)
		}
		fmt.Printf("{\"server\":%%q,\"tools\":[%%s]}\n", name, strings.Join(tools, ","))
		return
	}
	fail(name, fmt.Errorf("no tools/list response in %%s", out.Bytes()))
}

func fail(name string, err error) {
	fmt.Fprintf(os.Stderr, "%%s: %%v\n", name, err)
	os.Exit(1)
}
`
