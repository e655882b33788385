package runtime

import (
	"bytes"
	"encoding/json"
)

// What a handler may read about the client of its call, in every era: a
// legacy session keeps what the client's initialize declared; a 2026-07-28
// request carries it in its own _meta (io.modelcontextprotocol/clientInfo,
// io.modelcontextprotocol/clientCapabilities and
// io.modelcontextprotocol/protocolVersion), since there is no session.

// ClientInfo is the client's implementation as it declared it: initialize's
// clientInfo, or a 2026-07-28 request's _meta clientInfo. Every member is
// "" when the client sent none (clientInfo is optional in 2026-07-28).
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Title   string `json:"title,omitempty"`
	// Raw is the object as the session keeps it (a legacy session keeps
	// only name, version and title of one larger than
	// Options.MaxClientDataBytes), or nil.
	Raw json.RawMessage `json:"-"`
}

// clientFacts is what a peer knows of its client.
type clientFacts struct {
	sessionID string
	version   string
	info      json.RawMessage
	caps      ClientCapabilities
}

// SessionID is the legacy session the call runs in: its Mcp-Session-Id over
// HTTP, or the stdio connection's own ID (which no header carries) over
// stdio. It is "" in 2026-07-28, which has no session.
func (c *Call) SessionID() string { return c.peer.client().sessionID }

// ProtocolVersion is the protocol version of the call: the one the session
// negotiated, or the 2026-07-28 request's own.
func (c *Call) ProtocolVersion() string { return c.peer.client().version }

// ClientInfo is the client's name and version (and title) as it declared
// them.
func (c *Call) ClientInfo() ClientInfo {
	raw := c.peer.client().info
	var info ClientInfo
	if len(raw) > 0 && json.Unmarshal(raw, &info) != nil {
		info = ClientInfo{} // a malformed object declares nothing
	}
	if len(raw) > 0 {
		info.Raw = bytes.Clone(raw)
	}
	return info
}

// ClientCapabilities are the capabilities the client declared (Raw is the
// whole object as it sent them).
func (c *Call) ClientCapabilities() ClientCapabilities {
	caps := c.peer.client().caps
	caps.Raw = bytes.Clone(caps.Raw)
	return caps
}
