package runtime

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
		want          URIVars // nil: no match
	}{
		{"test://template/{id}/data", "test://template/123/data", URIVars{"id": {"123"}}},
		{"test://template/{id}/data", "test://template//data", nil},
		{"test://template/{id}/data", "test://template/a/b/data", nil},
		{"test://template/{id}/data", "test://template/a%2Fb/data", URIVars{"id": {"a/b"}}},
		{"test://template/{id}/data", "test://template/123/datax", nil},
		{"x://{name}", "x://caf%C3%A9", URIVars{"name": {"café"}}},
		{"x://{name}", "x://bad%zz", nil},
		{"x://{a,b}", "x://1,2", URIVars{"a": {"1"}, "b": {"2"}}},
		{"x://{a,b}", "x://1", URIVars{"a": {"1"}}},
		{"x://{a,b}", "x://1,2,3", nil},
		{"x://{list*}", "x://red,green", URIVars{"list": {"red", "green"}}},
		{"file:///{+path}", "file:///a/b/c.txt", URIVars{"path": {"a/b/c.txt"}}},
		{"file:///{+path}", "file:///", nil},
		{"file:///{+path}{?rev}", "file:///a/b?rev=2", URIVars{"path": {"a/b"}, "rev": {"2"}}},
		{"file:///{path}", "file:///a/b/c.txt", nil},
		{"manuals://{+path}/index", "manuals://a/b/index", URIVars{"path": {"a/b"}}},
		{"x://doc{#frag}", "x://doc#sec1", URIVars{"frag": {"sec1"}}},
		{"repo://{owner}/{repo}/contents{/path*}", "repo://o/r/contents/src/main.go",
			URIVars{"owner": {"o"}, "repo": {"r"}, "path": {"src", "main.go"}}},
		{"repo://{owner}/{repo}/contents{/path*}", "repo://o/r/contents", URIVars{"owner": {"o"}, "repo": {"r"}}},
		{"x://a{/seg}", "x://a/b", URIVars{"seg": {"b"}}},
		{"x://a{/seg}", "x://a/b/c", nil},
		{"x://{a}{.ext}", "x://file.json", URIVars{"a": {"file"}, "ext": {"json"}}},
		{"x://{a}{.ext*}", "x://file.tar.gz", URIVars{"a": {"file"}, "ext": {"tar", "gz"}}},
		{"db://{table}/rows{?limit,offset}", "db://t/rows?limit=1&offset=2", URIVars{"table": {"t"}, "limit": {"1"}, "offset": {"2"}}},
		{"db://{table}/rows{?limit,offset}", "db://t/rows?offset=2&limit=1", URIVars{"table": {"t"}, "limit": {"1"}, "offset": {"2"}}},
		{"db://{table}/rows{?limit,offset}", "db://t/rows?limit=1", URIVars{"table": {"t"}, "limit": {"1"}}},
		{"db://{table}/rows{?limit,offset}", "db://t/rows", URIVars{"table": {"t"}}},
		{"db://{table}/rows{?limit,offset}", "db://t/rows?limit=1&other=x", URIVars{"table": {"t"}, "limit": {"1"}}},
		{"db://{table}/rows{?q}", "db://t/rows?q=a%20b", URIVars{"table": {"t"}, "q": {"a b"}}},
		{"db://rows?fixed=1{&page}", "db://rows?fixed=1&page=3", URIVars{"page": {"3"}}},
		{"reviews://{isbn}{?limit,sort}", "reviews://978?sort=asc", URIVars{"isbn": {"978"}, "sort": {"asc"}}},
		{"plain://fixed", "plain://fixed", URIVars{}},
		{"plain://fixed", "plain://fixed/", nil},
		{"a.b://{x}", "aXb://1", nil}, // literals are not patterns
	}
	for _, tc := range cases {
		tmpl, err := parseURITemplate(tc.template)
		if err != nil {
			t.Errorf("%s: %v", tc.template, err)
			continue
		}
		got, ok := tmpl.match(tc.uri)
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
		{strings.Repeat("x", maxTemplateLen+1), "longer than"},
	}
	for _, tc := range cases {
		_, err := parseURITemplate(tc.template)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40s: error %v, want %q", tc.template, err, tc.want)
		}
	}
}

// TestURITemplateVariables: what the generator learns of a template's
// variables.
func TestURITemplateVariables(t *testing.T) {
	got, err := URITemplateVariables("repo://{owner}/{repo}/contents{/path*}{?ref,depth}")
	if err != nil {
		t.Fatal(err)
	}
	want := []URITemplateVar{{Name: "owner"}, {Name: "repo"}, {Name: "path", List: true, Optional: true},
		{Name: "ref", Optional: true}, {Name: "depth", Optional: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	got, _ = URITemplateVariables("x://{a,b}{.ext}")
	want = []URITemplateVar{{Name: "a"}, {Name: "b", Optional: true}, {Name: "ext", Optional: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, err := URITemplateVariables("x://{a:3}"); err == nil {
		t.Error("a prefix modifier was accepted")
	}
}
