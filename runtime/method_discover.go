package runtime

import (
	"context"
	"encoding/json"
)

// discover answers server/discover (2026-07-28): the versions this endpoint
// offers (Options.SupportedProtocolVersions), legacy ones included (a client that finds only those initializes a
// session), and the same capabilities a legacy initialize reports.
func (s *Server) discover(_ context.Context, rq *request) outcome {
	return outcome{cache: s.listCache(), result: struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		Instructions      string          `json:"instructions,omitempty"`
	}{s.versions.all, s.capabilities(rq.era.version()), s.opts.Instructions}}
}
