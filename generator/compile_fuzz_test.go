package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/exportdata"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// FuzzGeneratedCodeBuilds feeds the generator random tool schemas, built
// from the fuzzer's bytes by schemaFromBytes (names that collide with
// methods, tags encoding/json reads specially, references to the schema
// itself and its $defs, defaults, enums, unions, nullables, nesting), and
// fails when Generate accepts one and the package does not type-check
// (go/types, against the export data of the runtime and what generated code
// imports, read once per process), or
// when a sample argument the schema accepts does not survive a decode and
// an encode through the generated input struct's fields and tags.
func FuzzGeneratedCodeBuilds(f *testing.F) {
	for _, seed := range []string{
		"", "\x00", "\x05\x01\x02\x03", "\x07\x07\x07\x07\x07\x07\x07\x07", "\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
		"\x01\x05\x02\x00\x01\x09\x01\x03", "\x0b\x0b\x00\x01\x02\x03\x04", "\x0c\x01\x0c\x02\x0c\x03", "\x0d\x04\x05\x06\x07\x08",
		"\x06\x0a\x06\x0b\x06\x0c", "\x09\x01\x02\x09\x03\x04", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		schema := schemaFromBytes(data)
		tool := fmt.Sprintf(`{"name": "fuzz_tool", "description": "fuzz", "inputSchema": %s}`, schema)
		res, err := Generate(Config{Package: "fuzzpkg", Inputs: []InputFile{{Path: "tool.json", Data: []byte(tool)}}})
		if err != nil {
			if res == nil || !res.Diagnostics.HasErrors() {
				t.Fatalf("Generate failed without a located error: %v", err)
			}
			return
		}
		info, err := typeCheck(res.Files)
		if err != nil {
			t.Fatalf("accepted, but the package does not build: %v\nschema: %s\n%s", err, schema, res.Files["mcpgen_fuzz_tool_tool.go"])
		}
		roundTrip(t, info, "FuzzToolInput", []byte(schema))
	})
}

// schemaFromBytes builds an object schema from data, one choice per byte.
func schemaFromBytes(data []byte) string {
	g := &schemaGen{data: data}
	root := g.object(0, true)
	return root
}

type schemaGen struct {
	data []byte
	pos  int
	defs int // $defs/d0 ... declared at the root
}

func (g *schemaGen) next() int {
	if g.pos >= len(g.data) {
		return 0
	}
	b := g.data[g.pos]
	g.pos++
	return int(b)
}

// propNames are the property names the fuzzer picks from: plain ones, ones
// that collide once made Go names, method names, tags encoding/json reads
// specially, and names that are not identifiers.
var propNames = []string{"a", "b", "-", "unmarshalJSON", "marshalJSON", "valid", "Valid", "userId", "userID", "_",
	"0", "x-y", "with space", "é", "type", "omitempty", "a,b", "say \"hi\"", "a\\b", "\u202e", "MarshalJSON", "Item"}

func (g *schemaGen) object(depth int, root bool) string {
	n := g.next() % 5
	var props, required []string
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		name := propNames[g.next()%len(propNames)]
		if seen[name] {
			continue
		}
		seen[name] = true
		props = append(props, fmt.Sprintf("%s: %s", jsonString(name), g.schema(depth+1)))
		if g.next()%3 == 0 {
			required = append(required, jsonString(name))
		}
	}
	s := `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}`
	if len(required) > 0 {
		s += `, "required": [` + strings.Join(required, ", ") + `]`
	}
	if g.next()%4 == 0 {
		s += `, "additionalProperties": false`
	}
	if root && g.defs > 0 {
		var defs []string
		for i := 0; i < g.defs; i++ {
			defs = append(defs, fmt.Sprintf(`"d%d": %s`, i, g.object(depth+2, false)))
		}
		s += `, "$defs": {` + strings.Join(defs, ", ") + `}`
	}
	return s + "}"
}

func (g *schemaGen) schema(depth int) string {
	choice := g.next() % 16
	if depth > 3 && choice >= 5 {
		choice %= 5
	}
	var s string
	switch choice {
	case 0:
		s = `{"type": "string"}`
	case 1:
		s = `{"type": "integer"}`
	case 2:
		s = `{"type": "number"}`
	case 3:
		s = `{"type": "boolean"}`
	case 4:
		s = `{"type": "string", "format": "date-time"}`
	case 5:
		vals := []string{`"a"`, `"b"`, `"-"`, `"a b"`, `"Valid"`, `"unmarshalJSON"`, `""`}
		k := 1 + g.next()%3
		s = `{"type": "string", "enum": [` + strings.Join(vals[g.next()%4:][:k], ", ") + `]}`
	case 6:
		s = `{"const": "fixed"}`
	case 7:
		s = g.object(depth, false)
	case 8:
		s = `{"type": "array", "items": ` + g.schema(depth+1) + `}`
	case 9:
		s = `{"type": "object", "additionalProperties": ` + g.schema(depth+1) + `}`
	case 10:
		s = `{"$ref": "#"}`
	case 11:
		if g.defs < 3 {
			g.defs++
		}
		s = fmt.Sprintf(`{"$ref": "#/$defs/d%d"}`, g.next()%g.defs)
	case 12:
		s = `{"anyOf": [` + g.schema(depth+1) + `, {"type": "null"}]}`
	case 13:
		s = `{"oneOf": [{"type": "object", "properties": {"kind": {"const": "x"}, "x": {"type": "string"}}, "required": ["kind"]},` +
			` {"type": "object", "properties": {"kind": {"const": "unmarshalJSON"}, "y": ` + g.schema(depth+1) + `}, "required": ["kind"]}]}`
	case 14:
		s = `{"type": ["string", "null"]}`
	case 15:
		s = `{"oneOf": [{"type": "string"}, {"type": "integer"}, ` + g.object(depth+1, false) + `]}`
	}
	if g.next()%5 == 0 { // a default of the type, or of another
		defaults := []string{`"x"`, `1`, `true`, `{}`, `[]`, `null`, `{"a": "b"}`, `"2024-01-01T00:00:00Z"`}
		s = strings.TrimSuffix(s, "}") + `, "default": ` + defaults[g.next()%len(defaults)] + `}`
	}
	return s
}

// The importer reads the export data the go command builds (go list
// -export, once per process) of the packages generated code imports and
// what they import: far faster than type-checking their source.
var (
	importerOnce sync.Once
	gcImporter   types.Importer
	exportFiles  map[string]string
	importerErr  error
	importMu     sync.Mutex
)

func startImporter() {
	exportFiles, importerErr = exportdata.Files(runtimePkg, appsPkg, "github.com/mcpgen/mcpgen/ext/skills",
		"bytes", "context", "embed", "encoding/json", "errors", "fmt", "time")
	if importerErr == nil {
		gcImporter = exportdata.Importer(token.NewFileSet(), exportFiles)
	}
}

// typeCheck type-checks a generated package (its own folder only).
func typeCheck(files map[string][]byte) (*types.Info, error) {
	importerOnce.Do(startImporter)
	if importerErr != nil {
		return nil, importerErr
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	names := make([]string, 0, len(files))
	for name := range files {
		if !strings.Contains(name, "/") && strings.HasSuffix(name, ".go") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, f)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	var errs []string
	conf := types.Config{Importer: lockedImporter{}, Error: func(err error) { errs = append(errs, err.Error()) }}
	pkg, _ := conf.Check("fuzzpkg", fset, parsed, info)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	info.Types = map[ast.Expr]types.TypeAndValue{}
	_ = pkg
	return info, nil
}

type lockedImporter struct{}

func (lockedImporter) Import(path string) (*types.Package, error) {
	importMu.Lock()
	defer importMu.Unlock()
	return gcImporter.Import(path)
}

// roundTrip decodes a sample argument of schema into a struct with the
// fields and json tags of the generated type typeName and encodes it
// again: every property of the sample must come back with its value. Types
// with methods of their own (unions, Optional) are kept as raw JSON.
func roundTrip(t *testing.T, info *types.Info, typeName string, schema []byte) {
	var named *types.Named
	for id, obj := range info.Defs {
		if tn, ok := obj.(*types.TypeName); ok && id.Name == typeName {
			named, _ = tn.Type().(*types.Named)
		}
	}
	if named == nil {
		return // the input is not a struct of that name (a composed root)
	}
	doc, err := jsontree.Parse(schema)
	if err != nil {
		t.Fatal(err)
	}
	sample, ok := sampleOf(doc, doc.Root, 0)
	if !ok {
		return
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", bytes.NewReader(schema)); err != nil {
		return
	}
	compiled, err := c.Compile("s.json")
	if err != nil {
		return
	}
	var v any
	_ = json.Unmarshal(sample, &v)
	if compiled.Validate(v) != nil {
		return // the sampler does not satisfy every schema: nothing to check
	}
	rt := reflectType(named, map[*types.Named]bool{})
	ptr := reflect.New(rt)
	if err := json.Unmarshal(sample, ptr.Interface()); err != nil {
		t.Fatalf("the sample %s does not decode into %s: %v\nschema: %s", sample, typeName, err, schema)
	}
	back, err := json.Marshal(ptr.Interface())
	if err != nil {
		t.Fatal(err)
	}
	var in, out map[string]any
	_ = json.Unmarshal(sample, &in)
	_ = json.Unmarshal(back, &out)
	for k, want := range in {
		got, ok := out[k]
		if !ok && emptyCollection(want) || ok && covers(want, got) {
			continue
		}
		{
			t.Fatalf("property %q of the sample %s came back as %v (in %s)\nschema: %s", k, sample, got, back, schema)
		}
	}
}

// covers reports whether got holds what want holds: the same values, but
// an optional empty array or map may be left out (omitempty), which to the
// handler is the same.
func covers(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if gv, ok := g[k]; ok && !covers(v, gv) || !ok && !emptyCollection(v) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !covers(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, got)
}

func emptyCollection(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

// reflectType is a reflect type with the generated type's fields and tags;
// what has methods of its own, or refers back to a type being built, is
// json.RawMessage.
func reflectType(t types.Type, busy map[*types.Named]bool) reflect.Type {
	switch t := t.(type) {
	case *types.Basic:
		switch t.Kind() {
		case types.String:
			return reflect.TypeOf("")
		case types.Int64:
			return reflect.TypeOf(int64(0))
		case types.Int32:
			return reflect.TypeOf(int32(0))
		case types.Float64:
			return reflect.TypeOf(float64(0))
		case types.Bool:
			return reflect.TypeOf(false)
		}
	case *types.Pointer:
		return reflect.PointerTo(reflectType(t.Elem(), busy))
	case *types.Slice:
		if b, ok := t.Elem().(*types.Basic); ok && b.Kind() == types.Byte {
			return rawMessage
		}
		return reflect.SliceOf(reflectType(t.Elem(), busy))
	case *types.Map:
		return reflect.MapOf(reflect.TypeOf(""), reflectType(t.Elem(), busy))
	case *types.Interface:
		return reflect.TypeOf((*any)(nil)).Elem()
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && obj.Pkg().Path() == "time" && obj.Name() == "Time" {
			return reflect.TypeOf(time.Time{})
		}
		st, isStruct := t.Underlying().(*types.Struct)
		if busy[t] || obj.Pkg() == nil || obj.Pkg().Path() != "fuzzpkg" || (isStruct && hasOwnDecoder(t)) {
			return rawMessage
		}
		if !isStruct {
			return reflectType(t.Underlying(), busy)
		}
		busy[t] = true
		defer delete(busy, t)
		var fields []reflect.StructField
		for i := 0; i < st.NumFields(); i++ {
			f := st.Field(i)
			fields = append(fields, reflect.StructField{Name: f.Name(), Type: reflectType(f.Type(), busy), Tag: reflect.StructTag(st.Tag(i))})
		}
		return reflect.StructOf(fields)
	}
	return rawMessage
}

// hasOwnDecoder reports whether a struct type decodes itself by more than
// filling defaults: a union or a choice (their fields are not properties).
func hasOwnDecoder(t *types.Named) bool {
	st := t.Underlying().(*types.Struct)
	for i := 0; i < st.NumFields(); i++ {
		if st.Tag(i) == "" {
			return true
		}
	}
	return false
}

// sampleOf is a value the schema at n should accept: every property, the
// first of an enum or of a union's branches; ok is false where it cannot
// tell.
func sampleOf(doc *jsontree.Doc, n *jsontree.Node, depth int) ([]byte, bool) {
	if depth > 6 || n.Kind != jsontree.Object {
		return nil, false
	}
	if r := n.Get("$ref"); r != nil {
		target := doc.At(strings.TrimPrefix(r.Str, "#"))
		if target == nil {
			return nil, false
		}
		return sampleOf(doc, target, depth+1)
	}
	if c := n.Get("const"); c != nil {
		return doc.Raw(c), true
	}
	if e := n.Get("enum"); e != nil && len(e.Elems) > 0 {
		return doc.Raw(e.Elems[0]), true
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts := n.Get(k); alts != nil && len(alts.Elems) > 0 {
			return sampleOf(doc, alts.Elems[0], depth+1)
		}
	}
	typ := n.Get("type")
	if typ == nil {
		return nil, false
	}
	kind := typ.Str
	if typ.Kind == jsontree.Array && len(typ.Elems) > 0 {
		kind = typ.Elems[0].Str
	}
	switch kind {
	case "string":
		if f := n.Get("format"); f != nil && f.Str == "date-time" {
			return []byte(`"2024-01-02T03:04:05Z"`), true
		}
		return []byte(`"text"`), true
	case "integer":
		return []byte(`7`), true
	case "number":
		return []byte(`1.5`), true
	case "boolean":
		return []byte(`true`), true
	case "array":
		items := n.Get("items")
		if items == nil {
			return []byte(`[]`), true
		}
		el, ok := sampleOf(doc, items, depth+1)
		if !ok {
			return []byte(`[]`), true
		}
		return append(append([]byte("["), el...), ']'), true
	case "object":
		var parts []string
		if props := n.Get("properties"); props != nil {
			for _, m := range props.Members {
				v, ok := sampleOf(doc, m.Value, depth+1)
				if !ok {
					continue
				}
				parts = append(parts, jsonString(m.Key)+": "+string(v))
			}
		}
		return []byte("{" + strings.Join(parts, ", ") + "}"), true
	}
	return nil, false
}
