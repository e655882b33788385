package redisstore

import (
	"context"
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
// streams are listed in "<prefix>es:{<session>}" for Delete.

// AppendAfter implements runtime.StreamEventStore: one pipelined round
// trip, XADD and PEXPIRE, and at a stream's first event (last == "") its
// SADD to the session's index; the index's PEXPIRE follows every event so
// that it outlives its streams. A stream keeps its newest
// Options.EventsPerStream events for Options.EventTTL after its last event;
// an event larger than Options.MaxEventBytes is kept without its data.
func (es eventStore) AppendAfter(ctx context.Context, session, stream, last string, data []byte) (string, error) {
	s := es.s
	if stream == "" || strings.ContainsAny(stream, "\r\n") {
		return "", fmt.Errorf("redisstore: invalid stream ID %q", stream)
	}
	if len(data) > s.opts.MaxEventBytes {
		data = nil
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	key, index := s.eventsKey(session, stream), s.streamsKey(session)
	pipe := s.rdb.Pipeline()
	add := pipe.XAdd(ctx, &redis.XAddArgs{Stream: key, MaxLen: s.opts.EventsPerStream, ID: "0-*", Values: []any{"d", data}})
	pipe.PExpire(ctx, key, s.opts.EventTTL)
	if last == "" {
		pipe.SAdd(ctx, index, key)
	}
	pipe.PExpire(ctx, index, s.opts.EventTTL)
	if _, err := pipe.Exec(ctx); err != nil {
		return "", fmt.Errorf("redisstore: storing an event: %w", err)
	}
	_, n, ok := strings.Cut(add.Val(), "-")
	if !ok {
		return "", fmt.Errorf("redisstore: event stored as %q", add.Val())
	}
	return stream + "_" + n, nil
}

// PrimeAfter implements runtime.StreamEventStore: a priming event is named,
// not stored. Its ID is that of the stream's last event, or "<stream>_0"
// before the first: a replay from it starts right after.
func (es eventStore) PrimeAfter(_, stream, last string) string {
	if last != "" {
		return last
	}
	return stream + "_0"
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
		return "", fmt.Errorf("redisstore: reading events: %w", err)
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
	keys := []string{s.opts.Prefix + "none:{" + session + "}", s.streamsKey(session), s.opts.Prefix + "none:{" + session + "}"}
	if err := deleteScript.Run(ctx, s.rdb, keys, "", "").Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("redisstore: deleting events: %w", err)
	}
	return nil
}

// parseEventID splits "<stream>_<n>".
func parseEventID(id string) (stream string, n uint64, ok bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 || !digits(id[i+1:]) {
		return "", 0, false
	}
	n, err := strconv.ParseUint(id[i+1:], 10, 64)
	return id[:i], n, err == nil
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
