package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// ErrSessionNotFound: no session has this ID (never created, deleted or
// expired). Over HTTP it is a 404, which tells the client to initialize again.
var ErrSessionNotFound = errors.New("mcpgen: unknown or terminated session")

// SessionState is what a legacy session carries between requests: what was
// negotiated in initialize and what the client set since.
type SessionState struct {
	ID                 string          `json:"id"`
	ProtocolVersion    string          `json:"protocolVersion"`
	ClientCapabilities json.RawMessage `json:"clientCapabilities,omitempty"`
	ClientInfo         json.RawMessage `json:"clientInfo,omitempty"`
	LogLevel           LogLevel        `json:"logLevel,omitempty"`
	Initialized        bool            `json:"initialized,omitempty"`
	// Subscriptions are the resource URIs the client subscribed to
	// (resources/subscribe), in subscription order.
	Subscriptions []string `json:"subscriptions,omitempty"`
	// Principal is a digest of the issuer and subject of the token that
	// created the session; only that principal may use it (auth_session.go).
	Principal string `json:"principal,omitempty"`
}

// SessionStore keeps legacy sessions. The in-memory default serves one
// process; a shared store lets every replica serve every session. The
// runtime keeps live parts (streams, waiting handlers) in the process and
// consults the store when a session ID it does not hold arrives.
type SessionStore interface {
	// Create stores a new session.
	Create(ctx context.Context, st SessionState) error
	// Load returns a session's state, or ErrSessionNotFound.
	Load(ctx context.Context, id string) (SessionState, error)
	// Save replaces a session's state (log level, initialized).
	Save(ctx context.Context, st SessionState) error
	// Delete ends a session; later Loads return ErrSessionNotFound.
	Delete(ctx context.Context, id string) error
}

// MemorySessionStore is the default SessionStore.
type MemorySessionStore struct {
	mu sync.RWMutex
	m  map[string]SessionState
}

// Create implements SessionStore.
func (m *MemorySessionStore) Create(_ context.Context, st SessionState) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]SessionState{}
	}
	m.m[st.ID] = st
	return nil
}

// Load implements SessionStore.
func (m *MemorySessionStore) Load(_ context.Context, id string) (SessionState, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	st, ok := m.m[id]
	if !ok {
		return SessionState{}, ErrSessionNotFound
	}
	return st, nil
}

// Save implements SessionStore.
func (m *MemorySessionStore) Save(_ context.Context, st SessionState) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.m[st.ID]; !ok {
		return ErrSessionNotFound
	}
	m.m[st.ID] = st
	return nil
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, id)
	return nil
}
