// Package mcpgentools is the benchmark's two tools as mcpgen generates them
// from schemas/ (the mcpgen_*.go files), with the hand-written handler in
// handler.go.
package mcpgentools

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate ./schemas
