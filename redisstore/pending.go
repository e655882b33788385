package redisstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

// Pending returns the runtime.PendingRouter on this Store.
func (s *Store) Pending() runtime.PendingRouter { return pendingRouter{s} }

type pendingRouter struct{ s *Store }

// idKey is the canonical text of a JSON-RPC ID: "7" and 7 are different IDs.
func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// Register records that this process waits for the answer to id in session.
// The Redis record holds this process's routing ID and expires after
// Options.PendingTTL, so the record of a process that died does not outlive
// its request. It is SET NX: should two replicas ever produce one ID in one
// session, the second is refused instead of taking the first one's answer.
func (pr pendingRouter) Register(ctx context.Context, session string, id json.RawMessage, deliver func(runtime.Answer)) error {
	s := pr.s
	k := pendingKey{session, idKey(id)}
	w := &waiter{deliver: deliver}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("redisstore: store closed")
	}
	if _, dup := s.pending[k]; dup {
		s.mu.Unlock()
		return fmt.Errorf("redisstore: request %s of this session is already pending", k.id)
	}
	s.pending[k] = w
	s.mu.Unlock()

	ctx, cancel := s.op(ctx)
	defer cancel()
	ok, err := s.rdb.SetNX(ctx, s.pendingKey(session, k.id), s.id, s.opts.PendingTTL).Result()
	if err == nil && !ok {
		err = fmt.Errorf("request %s of this session is already pending on another replica", k.id)
	}
	if err != nil {
		s.mu.Lock()
		if s.pending[k] == w {
			delete(s.pending, k)
		}
		s.mu.Unlock()
		return fmt.Errorf("redisstore: registering a pending request: %w", err)
	}
	return nil
}

// resolveScript claims a pending request: the first answer wins and leaves
// an "answered" tombstone, so a duplicate gets "request expired". The answer
// is published to the owner's channel unless the owner is the caller; no
// subscriber there means the owner is gone.
//
// KEYS: pending, tombstone. ARGV: envelope, tombstone ms, caller's routing ID, prefix.
var resolveScript = redis.NewScript(`
local owner = redis.call('GET', KEYS[1])
if owner then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], 'answered', 'PX', ARGV[2])
  if owner == ARGV[3] then return 'local' end
  if redis.call('PUBLISH', ARGV[4] .. 'r:' .. owner, ARGV[1]) == 0 then return 'gone' end
  return 'sent'
end
if redis.call('EXISTS', KEYS[2]) == 1 then return 'expired' end
return 'unknown'
`)

// Resolve hands an answer POSTed to this replica to the replica waiting for
// it, in one round trip. Delivered; Expired when the wait ended, the request
// was already answered, or the replica that waited is gone; Unknown when
// this session never asked id (an answer carrying another session's ID is
// Unknown on every replica, because records are keyed by session).
func (pr pendingRouter) Resolve(ctx context.Context, session string, id json.RawMessage, a runtime.Answer) (runtime.Resolution, error) {
	s := pr.s
	k := idKey(id)
	body, err := json.Marshal(wireAnswer(a))
	if err != nil {
		return runtime.Unknown, err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	res, err := resolveScript.Run(ctx, s.rdb,
		[]string{s.pendingKey(session, k), s.tombKey(session, k)},
		encodeEnvelope(session, k, body), s.opts.TombstoneTTL.Milliseconds(), s.id, s.opts.Prefix).Text()
	if err != nil {
		return runtime.Unknown, fmt.Errorf("redisstore: routing an answer: %w", err)
	}
	switch res {
	case "local":
		s.deliver(session, k, a)
		return runtime.Delivered, nil
	case "sent":
		return runtime.Delivered, nil
	case "gone":
		s.log.Info("redisstore: answer for a request of a replica that is gone", "session", session, "id", k)
		return runtime.Expired, nil
	case "expired":
		return runtime.Expired, nil
	default:
		return runtime.Unknown, nil
	}
}

// Expire ends the wait for (session, id) and, when tombstone is set, leaves a
// cluster-wide tombstone for Options.TombstoneTTL so a late answer on any
// replica resolves as Expired. A Redis error is logged: the pending record
// then expires after Options.PendingTTL, and until then a late answer is
// accepted and dropped.
func (pr pendingRouter) Expire(ctx context.Context, session string, id json.RawMessage, tombstone bool) {
	s := pr.s
	k := idKey(id)
	s.mu.Lock()
	delete(s.pending, pendingKey{session, k})
	s.mu.Unlock()
	ctx, cancel := s.op(ctx)
	defer cancel()
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, s.pendingKey(session, k))
		if tombstone {
			p.Set(ctx, s.tombKey(session, k), "expired", s.opts.TombstoneTTL)
		}
		return nil
	})
	if err != nil {
		s.log.Warn("redisstore: ending a pending request", "session", session, "id", k, "err", err)
	}
}

// DeleteSession forgets this process's waits of a session. Its Redis records
// expire on their own (a deleted session's answers are refused with 404 before
// they reach the router).
func (pr pendingRouter) DeleteSession(_ context.Context, session string) {
	s := pr.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.pending {
		if k.session == session {
			delete(s.pending, k)
		}
	}
}

// wireAnswer is runtime.Answer as it crosses Redis.
type wireAnswerT struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *runtime.Error  `json:"error,omitempty"`
}

func wireAnswer(a runtime.Answer) wireAnswerT { return wireAnswerT{a.Result, a.Error} }

func (s *Store) deliverAnswer(payload string) {
	session, id, body, ok := decodeEnvelope([]byte(payload))
	var w wireAnswerT
	if ok {
		ok = json.Unmarshal(body, &w) == nil
	}
	if !ok {
		s.log.Warn("redisstore: malformed answer envelope")
		return
	}
	s.deliver(session, id, runtime.Answer{Result: w.Result, Error: w.Error})
}

func (s *Store) deliver(session, id string, a runtime.Answer) {
	s.mu.Lock()
	w, ok := s.pending[pendingKey{session, id}]
	if ok {
		delete(s.pending, pendingKey{session, id})
	}
	s.mu.Unlock()
	if !ok {
		s.log.Debug("redisstore: answer for a wait that already ended", "session", session, "id", id)
		return
	}
	w.deliver(a)
}

// An envelope is session and id, each with a 4-byte length, then the answer.
func encodeEnvelope(session, id string, msg []byte) []byte {
	b := make([]byte, 0, 8+len(session)+len(id)+len(msg))
	b = binary.BigEndian.AppendUint32(b, uint32(len(session)))
	b = append(b, session...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(id)))
	b = append(b, id...)
	return append(b, msg...)
}

func decodeEnvelope(b []byte) (session, id string, msg []byte, ok bool) {
	next := func() (string, bool) {
		if len(b) < 4 {
			return "", false
		}
		n := binary.BigEndian.Uint32(b)
		b = b[4:]
		if uint64(len(b)) < uint64(n) {
			return "", false
		}
		v := string(b[:n])
		b = b[n:]
		return v, true
	}
	if session, ok = next(); !ok {
		return
	}
	if id, ok = next(); !ok {
		return
	}
	return session, id, b, true
}
