package generator

import (
	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// Scopes: metaScopes lists the OAuth scopes a caller's token must grant to call the
// tool (or get the prompt, read the resource): _meta["mcpgen.dev/scopes"]:
// ["files:write"]. Like every mcpgen key it is stripped from the advertised
// definition; generated code carries the scopes to the runtime as the Scopes
// of runtime.Tool, Prompt, Resource or ResourceTemplate, which checks them
// before the handler runs when the server has authorization switched on.

// loadScopes reads the scopes array (of a tool, prompt, resource or
// template) into dst, reporting each bad entry. A scope is an RFC 6749
// scope-token: printable ASCII without space, '"' or '\'.
func loadScopes(at place, v *jsontree.Node, dst *[]string, rep *reporter) bool {
	if v.Kind != jsontree.Array {
		rep.errorf(place{at.src, v}, `write ["files:read", ...]`, "%q must be an array of scope strings", metaScopes)
		return false
	}
	ok := true
	seen := map[string]bool{}
	for _, el := range v.Elems {
		switch {
		case el.Kind != jsontree.String:
			rep.errorf(place{at.src, el}, "", "scopes are strings, not a %s", el.Kind)
			ok = false
		case !isScopeToken(el.Str):
			rep.errorf(place{at.src, el}, "use printable ASCII without spaces, quotes or backslashes, such as \"files:write\"",
				"scope %q is not a valid OAuth scope (RFC 6749 section 3.3)", el.Str)
			ok = false
		case seen[el.Str]:
			rep.errorf(place{at.src, el}, "list each scope once", "scope %q is listed twice", el.Str)
			ok = false
		default:
			seen[el.Str] = true
			*dst = append(*dst, el.Str)
		}
	}
	return ok
}

// isScopeToken is RFC 6749's scope-token: 1*( %x21 / %x23-5B / %x5D-7E ).
func isScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
