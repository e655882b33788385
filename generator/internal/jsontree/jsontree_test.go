package jsontree

import (
	"errors"
	"strings"
	"testing"
)

func TestPositionsAndPointers(t *testing.T) {
	src := "{\n  \"a\": [1, {\"b/c\": \"x\"}],\n  \"t~\": true,\n  \"n\": null\n}\n"
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ptr       string
		line, col int
		raw       string
	}{
		{"", 1, 1, src[:len(src)-1]},
		{"/a", 2, 8, `[1, {"b/c": "x"}]`},
		{"/a/0", 2, 9, "1"},
		{"/a/1/b~1c", 2, 20, `"x"`},
		{"/t~0", 3, 9, "true"},
		{"/n", 4, 8, "null"},
	} {
		n := d.At(tc.ptr)
		if n == nil {
			t.Fatalf("%q: not found", tc.ptr)
		}
		if n.Ptr() != tc.ptr {
			t.Errorf("%q: Ptr = %q", tc.ptr, n.Ptr())
		}
		if line, col := d.Pos(n.Start); line != tc.line || col != tc.col {
			t.Errorf("%q: at %d:%d, want %d:%d", tc.ptr, line, col, tc.line, tc.col)
		}
		if got := string(d.Raw(n)); got != tc.raw {
			t.Errorf("%q: raw %q, want %q", tc.ptr, got, tc.raw)
		}
	}
	if d.At("/a/2") != nil || d.At("/zz") != nil || d.At("/a/01") != nil {
		t.Error("At found a value that does not exist")
	}
	if d.At("/a/1").Get("b/c").Str != "x" {
		t.Error("Get")
	}
}

func TestStringsAndDuplicates(t *testing.T) {
	d, err := Parse([]byte(`{"k": "a\"b\u00e9\n", "k": 1, "e": "", "x": -1.5e3}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Root.Members[0].Value.Str; got != "a\"bé\n" {
		t.Errorf("decoded %q", got)
	}
	if len(d.Duplicates) != 1 || d.Duplicates[0].Num != "1" {
		t.Errorf("duplicates: %+v", d.Duplicates)
	}
	if d.Root.Get("x").Num != "-1.5e3" {
		t.Error("number literal")
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		src string
		off int
	}{
		{`{"a": }`, 6},
		{"{\"a\": 1", 7},
		{"", 0},
		{`{"a": 1} x`, 9},
	} {
		_, err := Parse([]byte(tc.src))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("%q: err = %v", tc.src, err)
		}
		if se.Offset != tc.off {
			t.Errorf("%q: offset %d, want %d (%s)", tc.src, se.Offset, tc.off, se.Msg)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	src := `{"a": [[{"b": 1}]], "c": 2}`
	if _, err := ParseLimited([]byte(src), 4); err != nil {
		t.Fatalf("4 levels: %v", err)
	}
	_, err := ParseLimited([]byte(src), 3)
	var de *DepthError
	if !errors.As(err, &de) || de.Offset != 8 || de.Node.Ptr() != "/a/0/0" || de.Max != 3 {
		t.Fatalf("3 levels: %v at %d %q", err, de.Offset, de.Node.Ptr())
	}
	// Invalid JSON is a syntax error, whatever its depth.
	if _, err := ParseLimited([]byte(`[[[[`), 2); !errors.As(err, new(*SyntaxError)) {
		t.Fatalf("truncated: %v", err)
	}
}

func TestShortPtr(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		b.WriteString(`{"key` + strings.Repeat("x", i%7) + `": `)
	}
	b.WriteString("1" + strings.Repeat("}", 100))
	d, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	leaf := d.Root
	for len(leaf.Members) > 0 {
		leaf = leaf.Members[0].Value
	}
	full := leaf.Ptr()
	short := leaf.ShortPtr(80)
	head, tail, ok := strings.Cut(short, "/...")
	if !ok || len(short) > 84 || !strings.HasPrefix(full, head+"/") || !strings.HasSuffix(full, tail) || len(head) < 30 || len(tail) < 30 {
		t.Fatalf("ShortPtr(80) = %q of %q", short, full)
	}
	if p := leaf.Parent().Parent(); p.ShortPtr(10000) != p.Ptr() {
		t.Fatal("a pointer that fits is returned whole")
	}
	// Escaped tokens count as written.
	d, _ = Parse([]byte(`{"a/b": {"c~": 1}}`))
	if n := d.Root.Get("a/b").Get("c~"); n.Ptr() != "/a~1b/c~0" || n.ShortPtr(9) != "/a~1b/c~0" {
		t.Fatalf("%q %q", n.Ptr(), n.ShortPtr(9))
	}
}
