package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

// Events returns the runtime.EventStore on this Store.
func (s *Store) Events() runtime.EventStore { return eventStore{s} }

type eventStore struct{ s *Store }

// Append stores one SSE event of stream and returns its ID,
// "<stream>_<Redis stream entry ID>": unique within the session, and it names
// its stream, so any replica can replay it. A stream keeps its newest
// Options.EventsPerStream events for Options.EventTTL after its last event;
// an event larger than Options.MaxEventBytes is kept without its data.
func (es eventStore) Append(ctx context.Context, session, stream string, data []byte) (string, error) {
	s := es.s
	if stream == "" || strings.ContainsAny(stream, "\r\n") {
		return "", fmt.Errorf("redisstore: invalid stream ID %q", stream)
	}
	if len(data) > s.opts.MaxEventBytes {
		data = nil
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	key := s.eventsKey(session, stream)
	var add *redis.StringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		add = p.XAdd(ctx, &redis.XAddArgs{Stream: key, MaxLen: s.opts.EventsPerStream, Values: []any{"d", data}})
		p.PExpire(ctx, key, s.opts.EventTTL)
		p.SAdd(ctx, s.streamsKey(session), key)
		p.PExpire(ctx, s.streamsKey(session), s.opts.EventTTL)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("redisstore: storing an event: %w", err)
	}
	return stream + "_" + add.Val(), nil
}

// Replay calls fn, in order, for each event of lastEventID's stream stored
// after it (priming events, with empty data, replay as nothing), and returns
// the stream's ID. ErrEventNotFound when the ID is malformed, unknown, of
// another session (keys are per session), or already evicted.
func (es eventStore) Replay(ctx context.Context, session, lastEventID string, fn func(string, []byte) error) (string, error) {
	s := es.s
	stream, xid, ok := parseEventID(lastEventID)
	if !ok {
		return "", runtime.ErrEventNotFound
	}
	rctx, cancel := s.op(ctx)
	defer cancel()
	// Inclusive range: the first entry must be lastEventID itself, which
	// proves that neither it nor anything after it was evicted.
	msgs, err := s.rdb.XRange(rctx, s.eventsKey(session, stream), xid, "+").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("redisstore: reading events: %w", err)
	}
	if len(msgs) == 0 || msgs[0].ID != xid {
		return "", runtime.ErrEventNotFound
	}
	for _, m := range msgs[1:] {
		d, _ := m.Values["d"].(string)
		if d == "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return stream, err
		}
		if err := fn(stream+"_"+m.ID, []byte(d)); err != nil {
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

// DeleteSession drops every event of a session.
func (es eventStore) DeleteSession(ctx context.Context, session string) error {
	s := es.s
	ctx, cancel := s.op(ctx)
	defer cancel()
	if err := deleteScript.Run(ctx, s.rdb, []string{s.opts.Prefix + "none:{" + session + "}", s.streamsKey(session)}).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("redisstore: deleting events: %w", err)
	}
	return nil
}

func parseEventID(id string) (stream, xid string, ok bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 || i == len(id)-1 {
		return "", "", false
	}
	stream, xid = id[:i], id[i+1:]
	ms, seq, ok := strings.Cut(xid, "-")
	return stream, xid, ok && digits(ms) && digits(seq)
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
