// Command mcpgen generates typed Go MCP servers from JSON tool and
// elicitation schemas. See Run.
package main

import "os"

func main() {
	os.Exit(Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
