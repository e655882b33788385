// Package realworld is generated from tools shaped like those of well-known
// public MCP servers (filesystem, git, fetch, a database, a ticket tracker).
// It checks that such definitions generate, compile and stay up to date.
package realworld

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate ./tools
