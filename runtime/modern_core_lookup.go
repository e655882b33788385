package runtime

import "sync"

// modernCores holds each Server's modernCore until server.go carries it as a
// field (requested from the transport's owner); then core returns s.modern.
var modernCores sync.Map // *Server -> *modernCore

// core returns s's 2026-07-28 state, creating it on first use.
func (s *Server) core() *modernCore {
	if c, ok := modernCores.Load(s); ok {
		return c.(*modernCore)
	}
	c, _ := modernCores.LoadOrStore(s, newModernCore(s))
	return c.(*modernCore)
}
