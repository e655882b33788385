package runtime

import "encoding/json"

// serverCapabilities is the capabilities object of initialize and
// server/discover. It follows registration: tools, prompts and resources
// appear once one is registered (each with listChanged, since the
// Notify*ListChanged methods reach every client; resources also with
// subscribe), completions once a prompt or template has a completion
// handler; logging is always there (logging/setLevel, _meta logLevel).
func (s *Server) serverCapabilities() json.RawMessage {
	s.mu.RLock()
	tools := len(s.tools) > 0
	s.mu.RUnlock()
	b := []byte{'{'}
	add := func(member string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, member...)
	}
	if tools {
		add(`"tools":{"listChanged":true}`)
	}
	if s.features.hasPrompts() {
		add(`"prompts":{"listChanged":true}`)
	}
	if s.features.hasResources() {
		add(`"resources":{"subscribe":true,"listChanged":true}`)
	}
	if s.features.hasCompletions() {
		add(`"completions":{}`)
	}
	add(`"logging":{}`)
	return append(b, '}')
}
