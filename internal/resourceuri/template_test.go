package resourceuri

import (
	"reflect"
	"strings"
	"testing"
)

// TestURITemplateMatch: the RFC 6570 forms MCP servers use match the URIs
// they expand to, with the variables decoded.
func TestURITemplateMatch(t *testing.T) {
	cases := []struct {
		template, uri string
		want          Vars // nil: no match
	}{
		{"test://template/{id}/data", "test://template/123/data", Vars{"id": {"123"}}},
		{"test://template/{id}/data", "test://template//data", nil},
		{"test://template/{id}/data", "test://template/a/b/data", nil},
		{"test://template/{id}/data", "test://template/a%2Fb/data", Vars{"id": {"a/b"}}},
		{"test://template/{id}/data", "test://template/123/datax", nil},
		{"x://{name}", "x://caf%C3%A9", Vars{"name": {"café"}}},
		{"x://{name}", "x://bad%zz", nil},
		{"x://{a,b}", "x://1,2", Vars{"a": {"1"}, "b": {"2"}}},
		{"x://{a,b}", "x://1", Vars{"a": {"1"}}},
		{"x://{a,b}", "x://1,2,3", nil},
		{"x://{list*}", "x://red,green", Vars{"list": {"red", "green"}}},
		{"file:///{+path}", "file:///a/b/c.txt", Vars{"path": {"a/b/c.txt"}}},
		{"file:///{+path}", "file:///", nil},
		{"file:///{+path}{?rev}", "file:///a/b?rev=2", Vars{"path": {"a/b"}, "rev": {"2"}}},
		{"file:///{path}", "file:///a/b/c.txt", nil},
		{"manuals://{+path}/index", "manuals://a/b/index", Vars{"path": {"a/b"}}},
		{"x://doc{#frag}", "x://doc#sec1", Vars{"frag": {"sec1"}}},
		{"repo://{owner}/{repo}/contents{/path*}", "repo://o/r/contents/src/main.go",
			Vars{"owner": {"o"}, "repo": {"r"}, "path": {"src", "main.go"}}},
		{"repo://{owner}/{repo}/contents{/path*}", "repo://o/r/contents", Vars{"owner": {"o"}, "repo": {"r"}}},
		{"x://a{/seg}", "x://a/b", Vars{"seg": {"b"}}},
		{"x://a{/seg}", "x://a/b/c", nil},
		{"x://{a}{.ext}", "x://file.json", Vars{"a": {"file"}, "ext": {"json"}}},
		{"x://{a}{.ext*}", "x://file.tar.gz", Vars{"a": {"file"}, "ext": {"tar", "gz"}}},
		{"db://{table}/rows{?limit,offset}", "db://t/rows?limit=1&offset=2", Vars{"table": {"t"}, "limit": {"1"}, "offset": {"2"}}},
		{"db://{table}/rows{?limit,offset}", "db://t/rows?offset=2&limit=1", Vars{"table": {"t"}, "limit": {"1"}, "offset": {"2"}}},
		{"db://{table}/rows{?limit,offset}", "db://t/rows?limit=1", Vars{"table": {"t"}, "limit": {"1"}}},
		{"db://{table}/rows{?limit,offset}", "db://t/rows", Vars{"table": {"t"}}},
		{"db://{table}/rows{?limit,offset}", "db://t/rows?limit=1&other=x", Vars{"table": {"t"}, "limit": {"1"}}},
		{"db://{table}/rows{?q}", "db://t/rows?q=a%20b", Vars{"table": {"t"}, "q": {"a b"}}},
		{"db://rows?fixed=1{&page}", "db://rows?fixed=1&page=3", Vars{"page": {"3"}}},
		{"reviews://{isbn}{?limit,sort}", "reviews://978?sort=asc", Vars{"isbn": {"978"}, "sort": {"asc"}}},
		{"plain://fixed", "plain://fixed", Vars{}},
		{"plain://fixed", "plain://fixed/", nil},
		{"a.b://{x}", "aXb://1", nil}, // literals are not patterns
	}
	for _, tc := range cases {
		tmpl, err := Parse(tc.template)
		if err != nil {
			t.Errorf("%s: %v", tc.template, err)
			continue
		}
		got, ok := tmpl.Match(tc.uri)
		if tc.want == nil {
			if ok {
				t.Errorf("%s matched %s: %v", tc.template, tc.uri, got)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s on %s = %v, %v; want %v", tc.template, tc.uri, got, ok, tc.want)
		}
	}
}

// TestURITemplateParseErrors: what the matcher cannot give back is refused
// at registration, saying where.
func TestURITemplateParseErrors(t *testing.T) {
	cases := []struct{ template, want string }{
		{"x://{id", "unclosed { at offset 4"},
		{"x://id}", "unmatched } at offset 6"},
		{"x://{}", "empty expression"},
		{"x://{var:3}", "prefix modifier"},
		{"x://{?q*}", "exploded query variables"},
		{"x://{?q}/more", "text after a query expression"},
		{"x://{?q}{id}", "expression after a query expression"},
		{"x://{a b}", `invalid variable name "a b"`},
		{"x://{=a}", "reserved operator"},
		{"x://{a*,b}", "must be alone"},
		{strings.Repeat("x", MaxLen+1), "longer than"},
	}
	for _, tc := range cases {
		_, err := Parse(tc.template)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40s: error %v, want %q", tc.template, err, tc.want)
		}
	}
}

// TestURITemplateVariables: what the generator learns of a template's
// variables.
func TestURITemplateVariables(t *testing.T) {
	got, err := Variables("repo://{owner}/{repo}/contents{/path*}{?ref,depth}")
	if err != nil {
		t.Fatal(err)
	}
	want := []Var{{Name: "owner"}, {Name: "repo"}, {Name: "path", List: true, Optional: true},
		{Name: "ref", Optional: true}, {Name: "depth", Optional: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	got, _ = Variables("x://{a,b}{.ext}")
	want = []Var{{Name: "a"}, {Name: "b", Optional: true}, {Name: "ext", Optional: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, err := Variables("x://{a:3}"); err == nil {
		t.Error("a prefix modifier was accepted")
	}
}
