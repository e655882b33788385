package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// Answer is a client's response to a server-to-client request: a result or
// an error.
type Answer struct {
	Result json.RawMessage
	Error  *Error
}

// Resolution says what became of an answer the client posted.
type Resolution int

const (
	// Delivered: the waiting request took the answer.
	Delivered Resolution = iota
	// Expired: the wait for this ID already ended (timeout, cancel); a
	// tombstone remembers it for a while so the client learns "request expired".
	Expired
	// Unknown: this session never asked anything with this ID (or the
	// tombstone is gone).
	Unknown
)

// PendingRouter holds the server-to-client requests that wait for an answer,
// keyed by (session ID, request ID). An answer is delivered only to a request
// of the session that posted it. The in-memory default serves one process; a
// shared implementation forwards an answer that reaches another replica to
// the replica whose handler waits.
type PendingRouter interface {
	// Register records a request sessionID sent with id; deliver receives the
	// answer at most once.
	Register(ctx context.Context, sessionID string, id json.RawMessage, deliver func(Answer)) error
	// Resolve hands an answer to the waiter of (sessionID, id).
	Resolve(ctx context.Context, sessionID string, id json.RawMessage, a Answer) (Resolution, error)
	// Expire ends the wait for (sessionID, id) and leaves a tombstone so that a
	// late answer resolves as Expired. Done without a tombstone when
	// tombstone is false (the request never went out).
	Expire(ctx context.Context, sessionID string, id json.RawMessage, tombstone bool)
	// DeleteSession forgets every entry and tombstone of a session.
	DeleteSession(ctx context.Context, sessionID string)
}

// MemoryPendingRouter is the default PendingRouter.
type MemoryPendingRouter struct {
	// TombstoneTTL is how long an expired request answers "request expired";
	// 0 means one minute.
	TombstoneTTL time.Duration
	// MaxTombstones bounds the tombstones kept (oldest dropped first); 0 means 10000.
	MaxTombstones int

	mu      sync.Mutex
	waiting map[pendingKey]func(Answer)
	tombs   map[pendingKey]time.Time
	order   []pendingKey // tombstones, oldest first
	now     func() time.Time
}

type pendingKey struct{ session, id string }

func keyOf(sessionID string, id json.RawMessage) pendingKey {
	return pendingKey{sessionID, string(trimSpace(id))}
}

// Register implements PendingRouter.
func (m *MemoryPendingRouter) Register(_ context.Context, sessionID string, id json.RawMessage, deliver func(Answer)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.waiting == nil {
		m.waiting = map[pendingKey]func(Answer){}
	}
	m.waiting[keyOf(sessionID, id)] = deliver
	return nil
}

// Resolve implements PendingRouter.
func (m *MemoryPendingRouter) Resolve(_ context.Context, sessionID string, id json.RawMessage, a Answer) (Resolution, error) {
	k := keyOf(sessionID, id)
	m.mu.Lock()
	deliver, ok := m.waiting[k]
	if ok {
		delete(m.waiting, k)
		m.mu.Unlock()
		deliver(a)
		return Delivered, nil
	}
	at, tomb := m.tombs[k]
	m.mu.Unlock()
	if tomb && m.clock().Sub(at) < m.ttl() {
		return Expired, nil
	}
	return Unknown, nil
}

// Expire implements PendingRouter.
func (m *MemoryPendingRouter) Expire(_ context.Context, sessionID string, id json.RawMessage, tombstone bool) {
	k := keyOf(sessionID, id)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.waiting[k]; !ok {
		return // answered meanwhile
	}
	delete(m.waiting, k)
	if !tombstone {
		return
	}
	if m.tombs == nil {
		m.tombs = map[pendingKey]time.Time{}
	}
	now := m.clock()
	m.tombs[k] = now
	m.order = append(m.order, k)
	m.sweepLocked(now)
}

// DeleteSession implements PendingRouter.
func (m *MemoryPendingRouter) DeleteSession(_ context.Context, sessionID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.waiting {
		if k.session == sessionID {
			delete(m.waiting, k)
		}
	}
	for k := range m.tombs {
		if k.session == sessionID {
			delete(m.tombs, k)
		}
	}
}

// Sweep drops tombstones older than TombstoneTTL.
func (m *MemoryPendingRouter) Sweep() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked(m.clock())
}

func (m *MemoryPendingRouter) sweepLocked(now time.Time) {
	limit := m.MaxTombstones
	if limit <= 0 {
		limit = 10000
	}
	ttl := m.ttl()
	i := 0
	for ; i < len(m.order); i++ {
		k := m.order[i]
		at, ok := m.tombs[k]
		if !ok {
			continue // its session was deleted
		}
		if now.Sub(at) < ttl && len(m.tombs) <= limit {
			break
		}
		delete(m.tombs, k)
	}
	if i > 0 {
		m.order = append(m.order[:0:0], m.order[i:]...)
	}
}

func (m *MemoryPendingRouter) ttl() time.Duration {
	if m.TombstoneTTL <= 0 {
		return time.Minute
	}
	return m.TombstoneTTL
}

func (m *MemoryPendingRouter) clock() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}
