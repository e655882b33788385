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

// ErrStoreUnavailable: a shared store (sessions, events, answers between
// replicas, tasks) failed or did not answer in time. A store's errors may
// reach clients inside error messages, so a store reports such a failure
// with an error that errors.Is this one and whose text names no address
// and no driver error (redisstore's UnavailableError: "session store
// unavailable"), and logs the detail itself. Clients get HTTP 503 with
// JSON-RPC -32603 "session store unavailable; try again later" wherever
// the status can still be chosen (docs/replicas.md); the runtime never
// copies a failed store's error text into that answer.
var ErrStoreUnavailable = errors.New("mcpgen: session store unavailable")

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
	// created the session; only that principal may use it.
	Principal string `json:"principal,omitempty"`
	// Caller is who the session's requests without a principal count
	// against in the server's bounds (Options.CallerShare): the network
	// address its initialize came from. Empty: the session itself.
	Caller string `json:"caller,omitempty"`
	// Roots are the client's roots as the server last fetched them
	// (roots/list after notifications/initialized and after each
	// notifications/roots/list_changed); RootsKnown tells an empty list
	// apart from one never fetched, and RootsStale marks a list the client
	// has said changed since (until the refetch lands). Every replica's
	// calls read them (Call.Roots).
	Roots      []Root `json:"roots,omitempty"`
	RootsKnown bool   `json:"rootsKnown,omitempty"`
	RootsStale bool   `json:"rootsStale,omitempty"`
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
// (it must not restart the session's idle expiry). With it, what an
// extension keeps for a session that expired for idleness can end on every
// replica (Host.SessionLives).
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

// SessionBus carries fallback messages between replicas that share a
// session store: the replica holding a session's GET stream subscribes to
// (session, "get"); a replica whose request stream is finished and that
// holds no GET stream of its own publishes the message there. nil (the
// default) means one process: the fallback waits for a local GET stream.
type SessionBus interface {
	// Subscribe delivers messages published to (sessionID, topic) until
	// cancel is called or ctx ends.
	Subscribe(ctx context.Context, sessionID, topic string) (msgs <-chan []byte, cancel func(), err error)
	// Publish sends msg to the current subscribers and returns how many
	// there were, as far as the bus can tell: on a Redis Cluster the count
	// is one node's, so the runtime does not read it for change
	// notifications (a bus with GETRoutes carries fallback messages without
	// it).
	Publish(ctx context.Context, sessionID, topic string, msg []byte) (int, error)
}

// SessionSignals is an optional interface of a SessionBus that reaches every
// replica at once (redisstore's does). With it, a client's
// notifications/cancelled that reaches a replica other than the one running
// the call is carried to that one, and a session that ends on one replica
// ends at once on every replica holding it; without it, cancellation reaches
// only the receiving replica's calls, and a session deleted elsewhere ends
// here at the next keep-alive tick.
type SessionSignals interface {
	// Signal tells every replica, this one included, about a session: kind
	// SignalCancel with a request ID as data.
	Signal(ctx context.Context, sessionID, kind string, data []byte) error
	// OnSignal registers fn for the signals of every replica and for
	// SignalEnd whenever a session is deleted on any replica; stop
	// unregisters it. fn must not block.
	OnSignal(fn func(sessionID, kind string, data []byte)) (stop func())
}

// Kinds of SessionSignals signals.
const (
	SignalCancel = "cancel" // data: the ID of the client request to cancel
	SignalEnd    = "end"    // the session ended; no data
	// SignalGETOpened: a GET stream of the session opened on some replica
	// (GETRoutes.HoldGET announces it); no data. Messages waiting for a
	// route to the client try again.
	SignalGETOpened = "get"
)

// GETRoutes is an optional interface of a SessionBus whose replicas share
// one session store (redisstore's). It carries fallback messages to the
// replica that holds a session's GET stream at the cost of one round trip
// per message, opening, and closing, and it never sends a message when no
// replica holds one, so that a message with no route costs nothing. With
// it, a GET request needs no read of the session store of its own: HoldGET
// checks the session. When the bus has SessionSignals too, HoldGET
// announces SignalGETOpened, which wakes the messages of the session that
// wait for a route on every replica.
type GETRoutes interface {
	// HoldGET makes this replica the one that holds sessionID's GET stream
	// and delivers what SendGET sends it on msgs, until release is called
	// or ctx ends (msgs then closes). In the same step it checks that the
	// session exists (ErrSessionNotFound otherwise) and restarts its idle
	// expiry; release restarts it once more, the connection's end being the
	// client's last sign of life.
	HoldGET(ctx context.Context, sessionID string) (msgs <-chan []byte, release func(), err error)
	// SendGET delivers msg to the replica holding sessionID's GET stream.
	// It reports false, having sent nothing, when no live replica holds one.
	SendGET(ctx context.Context, sessionID string, msg []byte) (sent bool, err error)
}
