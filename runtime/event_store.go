package runtime

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// ErrEventNotFound: Last-Event-ID names no event the store still holds for
// this session.
var ErrEventNotFound = errors.New("mcpgen: unknown or expired Last-Event-ID")

// EventStore keeps the SSE events of legacy sessions so that a client can
// resume a stream with Last-Event-ID. Event IDs are unique within a session
// and encode the stream they belong to, so a replay covers exactly one
// stream. The in-memory default keeps a bounded number of events per session;
// a shared store (Redis) lets any replica replay.
type EventStore interface {
	// Append stores the next event of a stream and returns its ID. Empty data
	// is a priming event: a resume point that replays as nothing.
	Append(ctx context.Context, sessionID, streamID string, data []byte) (eventID string, err error)
	// Replay calls fn, in order, for each event of lastEventID's stream stored
	// after it, and returns that stream's ID. An unknown ID is ErrEventNotFound.
	Replay(ctx context.Context, sessionID, lastEventID string, fn func(eventID string, data []byte) error) (streamID string, err error)
	// StreamOf returns the stream an event ID belongs to without replaying.
	StreamOf(sessionID, eventID string) (streamID string, ok bool)
	// DeleteSession drops every event of a session.
	DeleteSession(ctx context.Context, sessionID string) error
}

// MemoryEventStore is the default EventStore: per session, the newest Limit
// events across all its streams (older ones are evicted first).
type MemoryEventStore struct {
	// Limit is the number of events kept per session; 0 means 512.
	Limit int

	mu       sync.Mutex
	sessions map[string]*sessionEvents
}

type sessionEvents struct {
	seq    map[string]uint64 // per stream: the last sequence number handed out
	events []storedEvent     // oldest first
}

type storedEvent struct {
	stream string
	seq    uint64
	data   []byte
}

// eventID encodes stream and sequence: "<stream>_<seq>".
func eventID(stream string, seq uint64) string {
	return stream + "_" + strconv.FormatUint(seq, 10)
}

func parseEventID(id string) (stream string, seq uint64, ok bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(id[i+1:], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return id[:i], n, true
}

// Append implements EventStore.
func (m *MemoryEventStore) Append(_ context.Context, sessionID, streamID string, data []byte) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessions == nil {
		m.sessions = map[string]*sessionEvents{}
	}
	se := m.sessions[sessionID]
	if se == nil {
		se = &sessionEvents{seq: map[string]uint64{}}
		m.sessions[sessionID] = se
	}
	se.seq[streamID]++
	n := se.seq[streamID]
	limit := m.Limit
	if limit <= 0 {
		limit = 512
	}
	if len(se.events) >= limit {
		copy(se.events, se.events[1:])
		se.events = se.events[:len(se.events)-1]
	}
	se.events = append(se.events, storedEvent{stream: streamID, seq: n, data: data})
	return eventID(streamID, n), nil
}

// Replay implements EventStore.
func (m *MemoryEventStore) Replay(ctx context.Context, sessionID, lastEventID string, fn func(string, []byte) error) (string, error) {
	stream, after, ok := parseEventID(lastEventID)
	if !ok {
		return "", ErrEventNotFound
	}
	m.mu.Lock()
	se := m.sessions[sessionID]
	if se == nil || se.seq[stream] < after {
		m.mu.Unlock()
		return "", ErrEventNotFound
	}
	var todo []storedEvent
	for _, e := range se.events {
		if e.stream == stream && e.seq > after && len(e.data) > 0 {
			todo = append(todo, e)
		}
	}
	m.mu.Unlock()
	for _, e := range todo {
		if err := ctx.Err(); err != nil {
			return stream, err
		}
		if err := fn(eventID(stream, e.seq), e.data); err != nil {
			return stream, err
		}
	}
	return stream, nil
}

// StreamOf implements EventStore.
func (m *MemoryEventStore) StreamOf(sessionID, eventID string) (string, bool) {
	stream, after, ok := parseEventID(eventID)
	if !ok {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	se := m.sessions[sessionID]
	if se == nil || se.seq[stream] < after {
		return "", false
	}
	return stream, true
}

// DeleteSession implements EventStore.
func (m *MemoryEventStore) DeleteSession(_ context.Context, sessionID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.sessions, sessionID)
	return nil
}
