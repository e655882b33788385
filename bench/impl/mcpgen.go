package impl

import (
	"net/http"

	"github.com/mcpgen/mcpgen/bench/mcpgentools"
	"github.com/mcpgen/mcpgen/runtime"
)

func init() {
	register(Impl{Name: "mcpgen", New: newMCPGen, Modern: true, Elicit: true, Sessions: true})
}

// newMCPGen serves the tools generated from mcpgentools/schemas with the
// runtime's defaults (input validation on, logging discarded), except that
// the session count is unbounded: W4 holds 10,000 idle sessions beside the
// sessions of the other workloads, past the default MaxSessions.
func newMCPGen() (http.Handler, error) {
	srv := runtime.NewServer(runtime.Options{Name: "bench-mcpgen", Version: "0.1.0", MaxSessions: -1})
	if err := mcpgentools.Register(srv, mcpgentools.Tools{}); err != nil {
		return nil, err
	}
	return srv, nil
}
