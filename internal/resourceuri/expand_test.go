package resourceuri

import (
	"reflect"
	"testing"
)

// TestExpandURITemplateRFC6570 checks the expansion against the examples of
// RFC 6570 (sections 1.2 and 3.2).
func TestExpandURITemplateRFC6570(t *testing.T) {
	vars := Vars{
		"var": {"value"}, "hello": {"Hello World!"}, "path": {"/foo/bar"}, "empty": {""},
		"x": {"1024"}, "y": {"768"}, "list": {"red", "green", "blue"},
	}
	for template, want := range map[string]string{
		"{var}":             "value",
		"{hello}":           "Hello%20World%21",
		"{+hello}":          "Hello%20World!",
		"{+path}/here":      "/foo/bar/here",
		"here?ref={+path}":  "here?ref=/foo/bar",
		"X{#var}":           "X#value",
		"X{#hello}":         "X#Hello%20World!",
		"map?{x,y}":         "map?1024,768",
		"{x,hello,y}":       "1024,Hello%20World%21,768",
		"{+x,hello,y}":      "1024,Hello%20World!,768",
		"X{.var}":           "X.value",
		"{/var}":            "/value",
		"{/var,x}/here":     "/value/1024/here",
		"{;x,y}":            ";x=1024;y=768",
		"{;x,y,empty}":      ";x=1024;y=768;empty",
		"{?x,y}":            "?x=1024&y=768",
		"{?x,y,empty}":      "?x=1024&y=768&empty=",
		"?fixed=yes{&x}":    "?fixed=yes&x=1024",
		"{var:3}":           "val",
		"{var:30}":          "value",
		"{list}":            "red,green,blue",
		"{list*}":           "red,green,blue",
		"{/list}":           "/red,green,blue",
		"{/list*}":          "/red/green/blue",
		"{/list*,path:4}":   "/red/green/blue/%2Ffoo",
		"X{.list*}":         "X.red.green.blue",
		"{?list}":           "?list=red,green,blue",
		"{?list*}":          "?list=red&list=green&list=blue",
		"{undef}{?undef}":   "",
		"{?undef,x}":        "?x=1024",
		"a{unclosed":        "a{unclosed",
		"{+path}{?undef}#1": "/foo/bar#1",
	} {
		if got := Expand(template, vars); got != want {
			t.Errorf("Expand(%q) = %q, want %q", template, got, want)
		}
	}
}

// TestExpandURITemplateMatchesBack: what Expand makes of a
// template's variables, resources/read matches back to the same variables,
// characters that need encoding included.
func TestExpandURITemplateMatchesBack(t *testing.T) {
	for _, c := range []struct {
		template string
		vars     Vars
	}{
		{"notes://{title}", Vars{"title": {"groceries, and more / 50% off?"}}},
		{"repo://{owner}/{repo}/blob{/path*}{?ref}", Vars{"owner": {"mcpgen"}, "repo": {"mcpgen"}, "path": {"docs", "a b.md"}, "ref": {"v1#2"}}},
		{"repo://{owner}/{repo}/blob{/path*}{?ref}", Vars{"owner": {"o"}, "repo": {"r"}}},
		{"file:///{+path}", Vars{"path": {"home/user/notes.txt"}}},
		{"weather://forecast/{city}{.format}", Vars{"city": {"Zürich"}, "format": {"json"}}},
		{"search://{?q,lang}", Vars{"q": {"a&b=c"}, "lang": {"en"}}},
	} {
		tpl, err := Parse(c.template)
		if err != nil {
			t.Fatalf("%s: %v", c.template, err)
		}
		uri := Expand(c.template, c.vars)
		got, ok := tpl.Match(uri)
		if !ok {
			t.Errorf("%s: %q does not match its own template", c.template, uri)
			continue
		}
		if !reflect.DeepEqual(got, c.vars) {
			t.Errorf("%s: %q matches back as %v, want %v", c.template, uri, got, c.vars)
		}
	}
}
