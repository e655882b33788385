package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
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
	// Update applies fn to a session's state atomically, also between
	// replicas (fn may run more than once, each time on a fresh copy, when
	// the store retries a conflict), and returns the state it stored. A
	// session that does not exist is ErrSessionNotFound: Update never
	// brings back one that was deleted or expired.
	Update(ctx context.Context, id string, fn func(*SessionState)) (SessionState, error)
	// Delete ends a session; later Loads return ErrSessionNotFound.
	Delete(ctx context.Context, id string) error
}

// SessionProber is an optional interface of a SessionStore: Exists reports
// whether a session exists without counting as a sign of its client's life
// (it must not restart the session's idle expiry). With it, the tasks of a
// session that expired for idleness end at their next lease renewal on
// every replica.
type SessionProber interface {
	Exists(ctx context.Context, id string) (bool, error)
}

// SessionKeeper is an optional interface of a SessionStore that expires
// idle sessions itself (redisstore's). Every request restarts its session's
// idle expiry through Load; Keep restarts it for the sessions whose client
// holds a connection open without sending requests (a GET stream, a long
// call). The keep-alive tick calls it once for all such sessions of the
// replica, so it should cost a bounded number of round trips however many
// ids there are.
type SessionKeeper interface {
	// Keep restarts the idle expiry of each session in ids and returns
	// those that no longer exist (deleted or expired elsewhere).
	Keep(ctx context.Context, ids []string) (gone []string, err error)
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

// Update implements SessionStore.
func (m *MemorySessionStore) Update(_ context.Context, id string, fn func(*SessionState)) (SessionState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.m[id]
	if !ok {
		return SessionState{}, ErrSessionNotFound
	}
	st.Subscriptions = slices.Clone(st.Subscriptions) // fn must not change the stored slice in place
	fn(&st)
	m.m[id] = st
	return st, nil
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, id)
	return nil
}
