package runtime

import (
	"encoding/json"
	"unicode/utf8"
)

// maxClientInfoField bounds each member kept of an oversized clientInfo.
const maxClientInfoField = 256

// boundClientData keeps what a session stores of the client's initialize
// within max bytes each: an oversized clientInfo is reduced to its name,
// version and title (each cut to 256 bytes), oversized capabilities to the
// ones the runtime acts on. The session lives as long as the client keeps
// it, and in Redis with replicas, so a client must not make it hold
// megabytes.
func boundClientData(st *SessionState, max int) {
	if len(st.ClientInfo) > max {
		var info struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			Title   string `json:"title,omitempty"`
		}
		_ = json.Unmarshal(st.ClientInfo, &info)
		info.Name, info.Version, info.Title = cutUTF8(info.Name), cutUTF8(info.Version), cutUTF8(info.Title)
		st.ClientInfo, _ = json.Marshal(info)
	}
	if len(st.ClientCapabilities) > max {
		c := parseClientCapabilities(st.ClientCapabilities)
		if c.Sampling != nil && len(*c.Sampling) > max/2 {
			empty := json.RawMessage("{}")
			c.Sampling = &empty
		}
		st.ClientCapabilities, _ = json.Marshal(c)
	}
}

// cutUTF8 cuts s to at most maxClientInfoField bytes on a rune boundary.
func cutUTF8(s string) string {
	if len(s) <= maxClientInfoField {
		return s
	}
	s = s[:maxClientInfoField]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
