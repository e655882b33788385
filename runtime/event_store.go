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

// StreamEventStore is an optional interface of an EventStore that a
// stream's writer tells where the stream stands: the ID of the last event
// it stored there ("" before the first). A shared store (redisstore) then
// writes each event once, indexes a stream for deletion at its first event
// only, and stores nothing at all for a priming event. The runtime uses it
// whenever the store has it.
type StreamEventStore interface {
	EventStore
	// AppendAfter stores the next event of a stream whose last stored event
	// is last ("" when none) and returns its ID.
	AppendAfter(ctx context.Context, sessionID, streamID, last string, data []byte) (eventID string, err error)
	// PrimeAfter returns the ID of a priming event of a stream whose last
	// stored event is last ("" when none), storing nothing: a Replay from it
	// replays every event stored after it.
	PrimeAfter(sessionID, streamID, last string) string
}

// MemoryEventStore is the default EventStore: per session, the newest Limit
// events across all its streams, at most MaxBytes of data. Event IDs are
// "<stream>_<n>" with n counting the store's events, so they are unique in
// the session without a counter per stream, and never handed out twice,
// not even after DeleteSession. When either bound is reached
// the oldest events are dropped; a resume from before a dropped event
// replays what is left of its stream. An event larger than MaxBytes is not
// kept at all (its ID still counts).
type MemoryEventStore struct {
	// Limit is the number of events kept per session; 0 means 512.
	Limit int
	// MaxBytes is the data kept per session, in bytes; 0 means 1 MiB.
	MaxBytes int

	mu       sync.Mutex
	sessions map[string]*sessionEvents
	seq      uint64 // the last event number handed out, in any session
}

type sessionEvents struct {
	last  uint64        // the session's last event number
	queue []storedEvent // oldest first
	bytes int           // data held in queue
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

func (m *MemoryEventStore) limit() int {
	if m.Limit <= 0 {
		return 512
	}
	return m.Limit
}

func (m *MemoryEventStore) maxBytes() int {
	if m.MaxBytes <= 0 {
		return 1 << 20
	}
	return m.MaxBytes
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
		se = &sessionEvents{}
		m.sessions[sessionID] = se
	}
	m.seq++
	se.last = m.seq
	if len(data) > m.maxBytes() {
		return eventID(streamID, se.last), nil // too large to keep
	}
	for len(se.queue) > 0 && (len(se.queue) >= m.limit() || se.bytes+len(data) > m.maxBytes()) {
		se.bytes -= len(se.queue[0].data)
		se.queue[0] = storedEvent{} // release its data now
		se.queue = se.queue[1:]     // append moves the live events to a new array when needed
	}
	se.queue = append(se.queue, storedEvent{stream: streamID, seq: se.last, data: data})
	se.bytes += len(data)
	return eventID(streamID, se.last), nil
}

// Replay implements EventStore.
func (m *MemoryEventStore) Replay(ctx context.Context, sessionID, lastEventID string, fn func(string, []byte) error) (string, error) {
	stream, after, ok := parseEventID(lastEventID)
	if !ok {
		return "", ErrEventNotFound
	}
	m.mu.Lock()
	se := m.sessions[sessionID]
	if se == nil || se.last < after {
		m.mu.Unlock()
		return "", ErrEventNotFound
	}
	var todo []storedEvent
	for _, e := range se.queue {
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
	if se == nil || se.last < after {
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
