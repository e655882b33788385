package runtime

import (
	"encoding/json"
	"slices"
	"strconv"
)

// capabilities is the capabilities object of initialize (in a legacy
// session of version) and server/discover. It follows registration: tools,
// prompts and resources appear once one is registered (each with
// listChanged, since the Notify*ListChanged methods reach every client;
// resources also with subscribe), completions once a prompt or template
// has a completion handler; logging is always there (logging/setLevel,
// _meta logLevel). The extensions declared in version follow, in
// capabilities.extensions (and, for an extension with a legacy member of
// its own, that member: 2025-11-25's tasks).
func (s *Server) capabilities(version string) json.RawMessage {
	s.mu.RLock()
	tools := len(s.tools) > 0
	exts := slices.Clone(s.extensions)
	s.mu.RUnlock()
	b := []byte{'{'}
	add := func(key string, value []byte) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, key)
		b = append(b, ':')
		b = append(b, value...)
	}
	if tools {
		add("tools", []byte(`{"listChanged":true}`))
	}
	if s.features.hasPrompts() {
		add("prompts", []byte(`{"listChanged":true}`))
	}
	if s.features.hasResources() {
		add("resources", []byte(`{"subscribe":true,"listChanged":true}`))
	}
	if s.features.hasCompletions() {
		add("completions", []byte(`{}`))
	}
	add("logging", []byte(`{}`))
	var declared []byte
	for _, x := range exts {
		if x.legacyMember != nil && isLegacyVersion(version) {
			if key, v, ok := x.legacyMember(version); ok {
				add(key, v)
			}
		}
		if !x.declares(version) {
			continue
		}
		if len(declared) > 0 {
			declared = append(declared, ',')
		}
		declared = strconv.AppendQuote(declared, x.id)
		declared = append(declared, ':')
		declared = append(declared, x.settings...)
	}
	if declared != nil {
		add("extensions", append(append([]byte{'{'}, declared...), '}'))
	}
	return append(b, '}')
}
