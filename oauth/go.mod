module github.com/mcpgen/mcpgen/oauth

go 1.26.0

replace github.com/mcpgen/mcpgen => ../

require github.com/mcpgen/mcpgen v0.0.0-00010101000000-000000000000

require go.uber.org/goleak v1.3.0

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1 // indirect
)
