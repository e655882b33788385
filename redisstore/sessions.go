package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

// Sessions returns the runtime.SessionStore on this Store.
func (s *Store) Sessions() runtime.SessionStore { return sessionStore{s} }

type sessionStore struct{ s *Store }

// Create stores a new session that expires after Options.SessionIdle without
// a request.
func (ss sessionStore) Create(ctx context.Context, st runtime.SessionState) error {
	s := ss.s
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	ok, err := s.rdb.SetNX(ctx, s.sessionKey(st.ID), b, s.opts.SessionIdle).Result()
	if err != nil {
		return s.unavailable("creating session", err)
	}
	if !ok {
		return fmt.Errorf("redisstore: session %q already exists", st.ID)
	}
	return nil
}

// Load returns the session and restarts its idle expiry, in one round trip.
// A deleted session is gone on every replica as soon as Delete returned.
func (ss sessionStore) Load(ctx context.Context, id string) (runtime.SessionState, error) {
	s := ss.s
	ctx, cancel := s.op(ctx)
	defer cancel()
	b, err := s.rdb.GetEx(ctx, s.sessionKey(id), s.opts.SessionIdle).Bytes()
	if errors.Is(err, redis.Nil) {
		return runtime.SessionState{}, runtime.ErrSessionNotFound
	}
	if err != nil {
		return runtime.SessionState{}, s.unavailable("loading session", err)
	}
	var st runtime.SessionState
	if err := json.Unmarshal(b, &st); err != nil || st.ID != id {
		return runtime.SessionState{}, fmt.Errorf("redisstore: session %q is stored malformed", id)
	}
	return st, nil
}

// maxSessionRetries bounds the optimistic retries of one Update under
// contention.
const maxSessionRetries = 32

// Update changes a live session's state in an optimistic transaction
// (WATCH), retried on conflict, so that concurrent updates on any replicas
// all land. It never resurrects a deleted or expired session: that is
// ErrSessionNotFound. Like a request, it restarts the idle expiry.
func (ss sessionStore) Update(ctx context.Context, id string, fn func(*runtime.SessionState)) (runtime.SessionState, error) {
	s := ss.s
	ctx, cancel := s.op(ctx)
	defer cancel()
	key := s.sessionKey(id)
	var out runtime.SessionState
	txf := func(tx *redis.Tx) error {
		b, err := tx.Get(ctx, key).Bytes()
		if errors.Is(err, redis.Nil) {
			return runtime.ErrSessionNotFound
		}
		if err != nil {
			return err
		}
		var st runtime.SessionState
		if err := json.Unmarshal(b, &st); err != nil || st.ID != id {
			return fmt.Errorf("redisstore: session %q is stored malformed", id)
		}
		fn(&st)
		if b, err = json.Marshal(st); err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, b, s.opts.SessionIdle)
			return nil
		})
		out = st
		return err
	}
	for range maxSessionRetries {
		err := s.rdb.Watch(ctx, txf, key)
		switch {
		case errors.Is(err, redis.TxFailedErr):
			continue
		case errors.Is(err, runtime.ErrSessionNotFound):
			return runtime.SessionState{}, err
		case err != nil:
			return runtime.SessionState{}, s.unavailable("updating session", err)
		}
		return out, nil
	}
	return runtime.SessionState{}, fmt.Errorf("redisstore: session %q: %d conflicting updates in a row", id, maxSessionRetries)
}

// Exists reports whether the session exists, without restarting its idle
// expiry (runtime.SessionProber).
func (ss sessionStore) Exists(ctx context.Context, id string) (bool, error) {
	s := ss.s
	ctx, cancel := s.op(ctx)
	defer cancel()
	n, err := s.rdb.Exists(ctx, s.sessionKey(id)).Result()
	if err != nil {
		return false, s.unavailable("probing session", err)
	}
	return n > 0, nil
}

// deleteScript removes a session, its event streams with their index,
// order and byte count, and the record of its GET stream's holder, and
// announces the deletion to every replica, in one round trip however many
// streams it had.
//
// KEYS: session, stream index, holder, event order, event bytes. ARGV: the
// deletion channel, the session ID.
var deleteScript = redis.NewScript(`
local streams = redis.call('SMEMBERS', KEYS[2])
local n = redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
for i = 1, #streams, 1000 do
  redis.call('DEL', unpack(streams, i, math.min(i + 999, #streams)))
end
if ARGV[1] ~= '' then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
return n
`)

// Delete ends the session everywhere: when it returns, Load fails on every
// replica, and the other replicas end the session's streams and calls one
// pub/sub hop later. Its events go with it.
func (ss sessionStore) Delete(ctx context.Context, id string) error {
	s := ss.s
	ctx, cancel := s.op(ctx)
	defer cancel()
	err := deleteScript.Run(ctx, s.rdb, []string{s.sessionKey(id), s.streamsKey(id), s.holderKey(id), s.eventOrderKey(id), s.eventBytesKey(id)},
		s.deletedChannel(), id).Err()
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.unavailable("deleting session", err)
	}
	s.sessionDeleted(id)
	return nil
}

// keepBatch is how many sessions one round trip of Keep restarts.
const keepBatch = 1000

// Keep implements runtime.SessionKeeper: it restarts the idle expiry of
// sessions whose client holds a connection open (and of the record of a GET
// stream held here), one pipelined round trip per keepBatch sessions, and
// returns those that no longer exist.
func (ss sessionStore) Keep(ctx context.Context, ids []string) ([]string, error) {
	s := ss.s
	ctx, cancel := s.op(ctx)
	defer cancel()
	var gone []string
	for len(ids) > 0 {
		batch := ids[:min(len(ids), keepBatch)]
		ids = ids[len(batch):]
		s.mu.Lock()
		holding := make([]bool, len(batch))
		for i, id := range batch {
			holding[i] = len(s.holds[id]) > 0
		}
		s.mu.Unlock()
		pipe := s.rdb.Pipeline()
		kept := make([]*redis.BoolCmd, len(batch))
		for i, id := range batch {
			kept[i] = pipe.PExpire(ctx, s.sessionKey(id), s.opts.SessionIdle)
			if holding[i] {
				pipe.PExpire(ctx, s.holderKey(id), s.opts.SessionIdle)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return gone, s.unavailable("restarting session expiries", err)
		}
		for i, c := range kept {
			if !c.Val() {
				gone = append(gone, batch[i])
			}
		}
	}
	return gone, nil
}

// sessionDeleted ends this process's waits and bus subscriptions of a
// session, and tells the runtime (runtime.SignalEnd), which ends the
// session's calls and streams here at once.
func (s *Store) sessionDeleted(id string) {
	s.dropSession(id)
	s.signal(id, runtime.SignalEnd, nil)
}

func (s *Store) dropSession(id string) {
	s.forgetWaits(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range s.holds[id] {
		sub.closeLocked()
	}
	delete(s.holds, id)
	prefix := s.busChannel(id, "")
	for ch, set := range s.subs {
		if strings.HasPrefix(ch, prefix) {
			for sub := range set {
				sub.closeLocked()
			}
			delete(s.subs, ch)
			s.unsubscribeLocked(ch)
		}
	}
}
