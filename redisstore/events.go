package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

// Events returns the runtime.EventStore on this Store (a
// runtime.StreamEventStore).
func (s *Store) Events() runtime.EventStore { return eventStore{s: s} }

type eventStore struct {
	s *Store
	// deletedWithSessions: the Store's session Delete drops a session's
	// events in the same step (Configure), so DeleteSession has nothing left
	// to do.
	deletedWithSessions bool
}

// Each SSE stream is one Redis stream, "<prefix>e:{<session>}:<stream>",
// whose entries are numbered 0-1, 0-2, ... (XADD with ID "0-*"), and an
// event's ID is "<stream>_<n>": unique within the session, naming its
// stream, so any replica replays it, and numbered without gaps, so a replay
// sees whether the events it must start with were evicted. A session's
// streams are listed in "<prefix>es:{<session>}" for Delete, its events in
// the order they were stored in "<prefix>eo:{<session>}", and their total
// cost in "<prefix>eb:{<session>}" (streamAppendScript).

// AppendAfter implements runtime.StreamEventStore: one script, in one round
// trip and in the session's hash slot, adds the event to its stream and
// keeps the session within its byte budget. A stream keeps its newest
// Options.EventsPerStream events for Options.EventTTL after its last event;
// a session keeps, across all its streams, its newest events up to
// Options.SessionEventBytes (each event counting its data and
// eventOverhead), the oldest going first, as the in-memory store does. An
// event larger than Options.MaxEventBytes, or than the budget, is kept
// without its data (it replays as nothing).
func (es eventStore) AppendAfter(ctx context.Context, session, stream, last string, data []byte) (string, error) {
	s := es.s
	if stream == "" || strings.ContainsAny(stream, "\r\n") {
		return "", fmt.Errorf("redisstore: invalid stream ID %q", stream)
	}
	if len(data) > s.opts.MaxEventBytes || len(data)+eventOverhead > s.opts.SessionEventBytes {
		data = nil
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	first := "0"
	if last == "" {
		first = "1"
	}
	keys := []string{s.eventsKey(session, stream), s.streamsKey(session), s.eventOrderKey(session), s.eventBytesKey(session)}
	id, err := streamAppendScript.Run(ctx, s.rdb, keys, data, s.opts.EventsPerStream, s.opts.SessionEventBytes,
		s.opts.EventTTL.Milliseconds(), first, eventOverhead).Text()
	if err != nil {
		return "", s.unavailable("storing an event", err)
	}
	_, n, ok := strings.Cut(id, "-")
	if !ok {
		return "", fmt.Errorf("redisstore: event stored as %q", id)
	}
	return stream + "_" + n, nil
}

// eventOverhead is what each stored event counts against its session's
// budget besides its data: its stream entry and its place in the
// session's order. It also bounds the number of events a session keeps
// (SessionEventBytes / eventOverhead: 8192 by default).
const eventOverhead = 128

// streamAppendScript adds an event to its stream and evicts the session's oldest
// events, whatever their stream, until the session is within its budget.
// The session's events are listed oldest first in its order list, each as
// "<cost> <entry ID> <stream key>"; its byte counter is their total cost
// (an entry the stream's own length cap trimmed keeps counting until its
// place in the order comes). Every key is the session's, so the script runs
// in one hash slot.
//
// KEYS: stream, stream index, order list, byte counter. ARGV: data, events
// per stream, session budget, TTL ms, "1" at the stream's first event,
// overhead per event.
var streamAppendScript = redis.NewScript(`
local cost = string.len(ARGV[1]) + tonumber(ARGV[6])
local budget = tonumber(ARGV[3])
local used = tonumber(redis.call('GET', KEYS[4]) or '0')
while used + cost > budget do
  local e = redis.call('LPOP', KEYS[3])
  if not e then used = 0 break end
  local a = string.find(e, ' ', 1, true)
  local b = string.find(e, ' ', a + 1, true)
  redis.call('XDEL', string.sub(e, b + 1), string.sub(e, a + 1, b - 1))
  used = used - tonumber(string.sub(e, 1, a - 1))
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], '0-*', 'd', ARGV[1])
redis.call('RPUSH', KEYS[3], cost .. ' ' .. id .. ' ' .. KEYS[1])
redis.call('SET', KEYS[4], used + cost, 'PX', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
if ARGV[5] == '1' then redis.call('SADD', KEYS[2], KEYS[1]) end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return id
`)

// PrimeAfter implements runtime.StreamEventStore: a priming event is named,
// not stored. Its ID is "<stream>_<n>p<nonce>", n being the number of the
// stream's last event (0 before the first), so that a replay from it starts
// right after that event; the random nonce keeps it apart from that event's
// ID and from every other priming event of the stream (a GET stream is
// primed again at each reconnection, possibly on another replica): an event
// ID is never used twice on a stream.
func (es eventStore) PrimeAfter(_, stream, last string) string {
	n := "0"
	if _, num, ok := parseEventID(last); ok {
		n = strconv.FormatUint(num, 10)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return stream + "_" + n + "p" + hex.EncodeToString(b[:])
}

// Append stores one SSE event of stream and returns its ID (AppendAfter for
// a writer that does not say where its stream stands; it indexes the
// stream every time).
func (es eventStore) Append(ctx context.Context, session, stream string, data []byte) (string, error) {
	return es.AppendAfter(ctx, session, stream, "", data)
}

// Replay calls fn, in order, for each event of lastEventID's stream stored
// after it (events without data replay as nothing), and returns the
// stream's ID, in one round trip. ErrEventNotFound when the ID is malformed
// or the events after it were evicted; an ID of another session, or of a
// stream that expired, replays nothing (keys are per session).
func (es eventStore) Replay(ctx context.Context, session, lastEventID string, fn func(string, []byte) error) (string, error) {
	s := es.s
	stream, n, ok := parseEventID(lastEventID)
	if !ok {
		return "", runtime.ErrEventNotFound
	}
	rctx, cancel := s.op(ctx)
	defer cancel()
	from := "0-" + strconv.FormatUint(n+1, 10)
	msgs, err := s.rdb.XRange(rctx, s.eventsKey(session, stream), from, "+").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", s.unavailable("reading events", err)
	}
	if len(msgs) > 0 && msgs[0].ID != from {
		return "", runtime.ErrEventNotFound // the events right after lastEventID were evicted
	}
	for _, m := range msgs {
		d, _ := m.Values["d"].(string)
		if d == "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return stream, err
		}
		_, seq, _ := strings.Cut(m.ID, "-")
		if err := fn(stream+"_"+seq, []byte(d)); err != nil {
			return stream, err
		}
	}
	return stream, nil
}

// StreamOf returns the stream an event ID names. It needs no round trip (the
// ID encodes its stream); whether the events are still kept is Replay's answer.
func (es eventStore) StreamOf(_ string, eventID string) (string, bool) {
	stream, _, ok := parseEventID(eventID)
	return stream, ok
}

// DeleteSession drops every event of a session (nothing to do when the
// session's Delete did it: Configure).
func (es eventStore) DeleteSession(ctx context.Context, session string) error {
	if es.deletedWithSessions {
		return nil
	}
	s := es.s
	ctx, cancel := s.op(ctx)
	defer cancel()
	none := s.opts.Prefix + "none:{" + session + "}"
	keys := []string{none, s.streamsKey(session), none, s.eventOrderKey(session), s.eventBytesKey(session)}
	if err := deleteScript.Run(ctx, s.rdb, keys, "", "").Err(); err != nil && !errors.Is(err, redis.Nil) {
		return s.unavailable("deleting events", err)
	}
	return nil
}

// parseEventID splits "<stream>_<n>", or a priming event's
// "<stream>_<n>p<nonce>" (PrimeAfter), into the stream and n.
func parseEventID(id string) (stream string, n uint64, ok bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 {
		return "", 0, false
	}
	num := id[i+1:]
	if j := strings.IndexByte(num, 'p'); j >= 0 {
		if !primeNonce(num[j+1:]) {
			return "", 0, false
		}
		num = num[:j]
	}
	if !digits(num) {
		return "", 0, false
	}
	n, err := strconv.ParseUint(num, 10, 64)
	return id[:i], n, err == nil
}

// primeNonce reports whether s is a priming event's nonce: 12 hex digits.
func primeNonce(s string) bool {
	if len(s) != 12 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

func digits(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
