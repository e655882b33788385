package mcptest

import "github.com/mcpgen/mcpgen/internal/resourceuri"

// ExpandURITemplate expands an RFC 6570 URI template with vars (one value
// per plain variable, any number for an exploded one; a variable that is
// absent or has no values is undefined and expands to nothing), as the
// runtime's runtime.ExpandURITemplate does. A template the runtime would
// not register (unclosed braces, prefix modifiers such as {var:3}) is an
// error.
func ExpandURITemplate(template string, vars map[string][]string) (string, error) {
	if _, err := resourceuri.Parse(template); err != nil {
		return "", err
	}
	return resourceuri.Expand(template, vars), nil
}
