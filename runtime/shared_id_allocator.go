package runtime

import (
	"encoding/json"
	"strconv"
	"sync/atomic"
)

// sharedIDAllocator is the one ID space of a session for every
// server-to-client request: elicitation, sampling, roots and keep-alive pings
// alike, across every connection and stream of that session. Whoever routes a
// request takes its ID here and registers its pending entry under that ID, so
// delivery and identity are one decision and two requests of one session can
// never share an ID.
//
// IDs are integers counting from 1. With a prefix (Options.ReplicaID, for
// replicas sharing a session store) they are strings "<prefix>-<n>", unique
// across replicas without any coordination per ID.
type sharedIDAllocator struct {
	prefix string
	n      atomic.Uint64
}

// next returns a fresh JSON-RPC ID, already encoded; the encoded bytes are
// also its key in the pending table.
func (a *sharedIDAllocator) next() json.RawMessage {
	n := a.n.Add(1)
	if a.prefix == "" {
		return strconv.AppendUint(nil, n, 10)
	}
	b := make([]byte, 0, len(a.prefix)+24)
	b = append(b, '"')
	b = append(b, a.prefix...)
	b = append(b, '-')
	b = strconv.AppendUint(b, n, 10)
	return append(b, '"')
}
