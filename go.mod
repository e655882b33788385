module github.com/mcpgen/mcpgen

go 1.25.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/pmezard/go-difflib v1.0.0
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v3 v3.0.6
)

require github.com/inconshreveable/mousetrap v1.1.0 // indirect
