package mcptest_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/mcptest"
)

// Examples of RFC 6570 section 3.2, for the operators the runtime matches.
func TestExpandURITemplate(t *testing.T) {
	vars := map[string][]string{
		"var": {"value"}, "hello": {"Hello World!"}, "path": {"/foo/bar"}, "empty": {""},
		"x": {"1024"}, "y": {"768"}, "list": {"red", "green", "blue"},
	}
	for tmpl, want := range map[string]string{
		"{var}":              "value",
		"{hello}":            "Hello%20World%21",
		"{+hello}":           "Hello%20World!",
		"{+path}/here":       "/foo/bar/here",
		"{#hello}":           "#Hello%20World!",
		"map?{x,y}":          "map?1024,768",
		"{x,hello,y}":        "1024,Hello%20World%21,768",
		"X{.var}":            "X.value",
		"X{.list*}":          "X.red.green.blue",
		"{/var}":             "/value",
		"{/list*}":           "/red/green/blue",
		"{/list}":            "/red,green,blue",
		"{?x,y}":             "?x=1024&y=768",
		"{?x,y,undef}":       "?x=1024&y=768",
		"{?x,empty}":         "?x=1024&empty=",
		"?fixed=yes{&x}":     "?fixed=yes&x=1024",
		"{?undef}":           "",
		"notes://{var}/tail": "notes://value/tail",
	} {
		got, err := mcptest.ExpandURITemplate(tmpl, vars)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", tmpl, got, err, want)
		}
	}
	for _, bad := range []string{"{var:3}", "{var", "{}"} {
		if _, err := mcptest.ExpandURITemplate(bad, vars); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
