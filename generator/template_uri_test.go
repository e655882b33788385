package generator_test

import (
	"testing"

	resourcetemplate "github.com/mcpgen/mcpgen/testdata/golden/resource-template/want"
)

// TestTemplateURIFunction: a template's generated <Name>TemplateURI fills
// each variable from its params field, leaves out the optional ones that
// are nil, and encodes values as the template's operators require.
func TestTemplateURIFunction(t *testing.T) {
	ref, lines := "v1.0", "1-20"
	for _, c := range []struct {
		params resourcetemplate.RepoFileParams
		want   string
	}{
		{resourcetemplate.RepoFileParams{Owner: "mcpgen", Repo: "mcpgen", Path: []string{"docs", "a b.md"}},
			"repo://mcpgen/mcpgen/blob/docs/a%20b.md"},
		{resourcetemplate.RepoFileParams{Owner: "o", Repo: "r", Path: []string{"x"}, Ref: &ref, Lines: &lines},
			"repo://o/r/blob/x?ref=v1.0&lines=1-20"},
		{resourcetemplate.RepoFileParams{Owner: "a/b", Repo: "r?"},
			"repo://a%2Fb/r%3F/blob"},
	} {
		if got := resourcetemplate.RepoFileTemplateURI(c.params); got != c.want {
			t.Errorf("RepoFileTemplateURI(%+v) = %q, want %q", c.params, got, c.want)
		}
	}
}
