// Package tools is the test server's tools as mcpgen generates them from
// schemas/ (the mcpgen_*.go files), scopes included, with the hand-written
// handler in handler.go.
package tools

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate ./schemas
