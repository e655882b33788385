package generator

import "regexp"

// The _meta keys mcpgen reads from several kinds of input. Every key with
// metaPrefix is mcpgen's own and is removed from the advertised definition;
// each kind's loader names the keys of its own (tool_load.go,
// feature_load.go, resource_file.go).
const (
	metaPrefix       = "mcpgen.dev/"
	metaElicitations = metaPrefix + "elicitations"
	metaGoName       = metaPrefix + "go-name"
	metaScopes       = metaPrefix + "scopes"
)

// The schema keywords that settle a Go name collision.
const (
	xGoName      = "x-go-name"       // the Go type made from this schema
	xGoFieldName = "x-go-field-name" // the struct field made from this property
	xGoEnumNames = "x-go-enum-names" // constant name suffixes, one per enum value
)

// nameRE is the specification's tool name rule (2025-11-25: A-Z a-z 0-9 _ - .)
// with the conformance suite's length limit of 64. Elicitation and prompt
// names follow it too.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// nameRule is the hint of a name outside nameRE.
const nameRule = "use 1 to 64 characters from A-Z a-z 0-9 _ - ."
