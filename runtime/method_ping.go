package runtime

import (
	"context"
	"encoding/json"
)

// ping answers {}. Either side of a legacy session may send it; 2026-07-28
// removed it.
func (s *Server) ping(context.Context, *request) outcome {
	return resultOf(json.RawMessage("{}"))
}
