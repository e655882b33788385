package runtime

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryMethodDecidesItsAuthorization walks a server's method table,
// the core's rows: every row names its authorization rule (noScopes is a
// decision too), its cost (whether it takes a slot of MaxConcurrentCalls)
// and its capability, and a row's Mcp-Name member is one of the members it
// reads. A row that decides nothing fails here, so a method cannot be
// added without saying how it is authorized, what it costs and what
// declares it.
func TestEveryMethodDecidesItsAuthorization(t *testing.T) {
	s := NewServer(Options{})
	defer s.Close()
	table := *s.d.methods.Load()
	if len(table) != len(coreMethods) {
		t.Errorf("the table has %d rows, want the %d core rows", len(table), len(coreMethods))
	}
	for name, row := range table {
		switch {
		case row.name != name:
			t.Errorf("row %q is filed under %q", row.name, name)
		case row.auth == nil:
			t.Errorf("method %q decides nothing about authorization: give its row a rule (noScopes when it needs none)", name)
		case row.serve == nil:
			t.Errorf("method %q has no function", name)
		case row.eras == 0:
			t.Errorf("method %q is in no era", name)
		case row.nameParam&row.params != row.nameParam:
			t.Errorf("method %q: Mcp-Name repeats a member it does not read", name)
		case row.cost == costUndecided:
			t.Errorf("method %q decides nothing about its cost: runsHandler if it runs application code (it then takes a slot of MaxConcurrentCalls), else bookkeeping", name)
		case row.capability == "":
			t.Errorf("method %q names no capability: the member of capabilities that declares it, or noCapability", name)
		}
	}
}

// TestParamsOfOtherMethodsAreNotTheirs: a member another method reads does
// not make a request malformed, and an extension's params reach it raw.
func TestParamsOfOtherMethodsAreNotTheirs(t *testing.T) {
	s := NewServer(Options{})
	defer s.Close()
	read := func(body string) *message {
		msgs, bad, _, err := s.d.readMessages([]byte(body))
		if err != nil || bad[0] != nil {
			t.Fatalf("%s: %v %v", body, err, bad[0])
		}
		return msgs[0]
	}
	m := read(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"uri":5,"cursor":"x"}}`)
	if m.params().err != nil || m.params().URI != nil || m.params().Cursor == nil {
		t.Errorf("tools/list with a uri of the wrong type: %+v", m.params())
	}
	m = read(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":5}}`)
	if e := m.params().err; e == nil || e.Message != "invalid params: /uri: expected string, got number" {
		t.Errorf("resources/read with a uri of the wrong type: %v", e)
	}
	m = read(`{"jsonrpc":"2.0","id":1,"method":"x.example/get","params":{"name":1,"_meta":{"progressToken":"p"}}}`)
	if p := m.params(); p.err != nil || p.Name != nil || string(p.ProgressToken) != `"p"` {
		t.Errorf("an extension's method: %+v", p)
	}
}

func TestAddExtensionRefusesWhatIsUndecided(t *testing.T) {
	serve := func(context.Context, *MethodRequest) (*MethodResult, error) {
		return &MethodResult{Result: struct{}{}}, nil
	}
	for _, tc := range []struct {
		ext  Extension
		want string
	}{
		{Extension{ID: "noprefix"}, "reverse-DNS prefix"},
		{Extension{ID: "x.example/a", Settings: json.RawMessage(`[1]`)}, "Settings must be a JSON object"},
		{Extension{ID: "x.example/a", Versions: []string{"2024-01-01"}}, `unknown protocol version "2024-01-01"`},
		{Extension{ID: "x.example/a", Methods: []Method{{Name: "a/b", Serve: serve}}}, `method "a/b" has no Authorize rule`},
		{Extension{ID: "x.example/a", Methods: []Method{{Name: "a/b", Authorize: NoScopes}}}, `method "a/b" has no Serve function`},
		{Extension{ID: "x.example/a", Methods: []Method{{Name: "tools/call", Authorize: NoScopes, Serve: serve}}}, `method "tools/call" is already served`},
		{Extension{ID: echoExt, Methods: []Method{{Name: "a/c", Authorize: NoScopes, Serve: serve}}}, "the extension is already added"},
		{Extension{ID: "x.example/a", Versions: []string{Version20260728}, Methods: []Method{{Name: "a/b", Versions: []string{Version20251125}, Authorize: NoScopes, Serve: serve}}},
			`names protocol version "2025-11-25", which the extension does not`},
	} {
		s := NewServer(Options{})
		if err := s.AddExtension(echoExtension()); err != nil {
			t.Fatal(err)
		}
		err := s.AddExtension(tc.ext)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error saying %q", tc.ext, err, tc.want)
		}
		s.Close()
	}
}

// TestCapabilitiesNameEveryMethod: a server with one of everything
// declares, in every version a method exists in, the capability the
// method's row names; and every capability it declares is some row's. A
// method whose capability is never declared, or a capability no method
// serves, fails here.
func TestCapabilitiesNameEveryMethod(t *testing.T) {
	s := NewServer(Options{})
	defer s.Close()
	if err := s.AddTool(echoTool()); err != nil {
		t.Fatal(err)
	}
	registerFeatures(t, s)
	named := map[string]bool{"extensions": true}
	for _, row := range coreMethods {
		named[row.capability] = true
	}
	for _, v := range supportedVersions {
		var caps map[string]json.RawMessage
		if err := json.Unmarshal(s.d.capabilities(v), &caps); err != nil {
			t.Fatal(err)
		}
		for key := range caps {
			if !named[key] {
				t.Errorf("%s declares capability %q, which no method's row names", v, key)
			}
		}
		kind := modernEra
		if isLegacyVersion(v) {
			kind = legacyEra
		}
		for _, row := range coreMethods {
			if row.eras&kind == 0 || row.capability == noCapability {
				continue
			}
			if _, ok := caps[row.capability]; !ok {
				t.Errorf("%s: %s exists, but capabilities do not declare %q", v, row.name, row.capability)
			}
		}
	}
}

// singleEraCoverage names, for each method of one era only (which the
// parity suites cannot compare across eras), the test that covers it.
var singleEraCoverage = map[string]string{
	methodInitialize:  "TestInitializeNegotiatesVersion",
	methodPing:        "TestPingAndElicitationNeverShareAnID",
	methodSetLevel:    "TestSetLogLevel",
	methodDiscover:    "TestModernDiscover",
	methodListen:      "TestModernListen",
	methodSubscribe:   "TestSubscribeEveryTransport",
	methodUnsubscribe: "TestSubscribeEveryTransport",
}

// TestEveryMethodHasParity: every core method of both eras has a
// happy-path case in the parity suites (TestMethodParity,
// TestFeatureParity), which run it in every era and transport; every
// method of one era names the test that covers it, and that test exists.
func TestEveryMethodHasParity(t *testing.T) {
	happy := map[string]bool{}
	for _, c := range append(slices.Clone(methodParityCases), featureParityCases...) {
		if c.want == "result" {
			happy[c.method] = true
		}
	}
	tests := map[string]bool{}
	names, _ := filepath.Glob("*_test.go")
	fset := token.NewFileSet()
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				tests[fn.Name.Name] = true
			}
		}
	}
	for _, row := range coreMethods {
		if row.eras == everyEra {
			if !happy[row.name] {
				t.Errorf("method %q has no happy-path parity case: add one to methodParityCases or featureParityCases", row.name)
			}
			continue
		}
		test, ok := singleEraCoverage[row.name]
		switch {
		case !ok:
			t.Errorf("method %q of one era names no test in singleEraCoverage", row.name)
		case !tests[test]:
			t.Errorf("method %q is said to be covered by %s, which is no test of this package", row.name, test)
		}
	}
}
