module github.com/mcpgen/mcpgen

go 1.25.0

require github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
