package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// Pending returns the runtime.PendingRouter on this Store.
//
// A server-to-client request ID names the replica that sent it
// ("<replica>.<copy>-<n>": Configure sets runtime.Options.ReplicaID), so the
// router keeps nothing in Redis: a replica registers, answers and expires
// its own requests in memory, and an answer that reaches another replica
// is forwarded to the one its ID names, over that replica's channel, which
// replies with what became of it. An answer posted to the replica that
// asked costs no round trip; a forwarded one costs two PUBLISHes.
func (s *Store) Pending() runtime.PendingRouter { return pendingRouter{s} }

type pendingRouter struct{ s *Store }

// maxTombstones bounds the expired requests a replica remembers (the
// oldest go first): a late answer to a forgotten one is Unknown rather
// than Expired.
const maxTombstones = 10000

// idKey is the canonical text of a JSON-RPC ID: "7" and 7 are different IDs.
func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// ownerOf returns the replica that sent the request whose ID key is key:
// the replica ID that starts its JSON string. IDs no replica of this
// deployment sends have none.
func ownerOf(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, `"`)
	if !ok {
		return "", false
	}
	i := strings.IndexAny(rest, ".-")
	if i != replicaIDLen || !isHex(rest[:i]) {
		return "", false
	}
	return rest[:i], true
}

func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Register records that this process waits for the answer to id in session.
func (pr pendingRouter) Register(_ context.Context, session string, id json.RawMessage, deliver func(runtime.Answer)) error {
	s := pr.s
	k := pendingKey{session, idKey(id)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("redisstore: store closed")
	}
	if _, dup := s.waits[k]; dup {
		return fmt.Errorf("redisstore: request %s of this session is already pending", k.id)
	}
	s.waits[k] = deliver
	return nil
}

// Resolve hands an answer to the request it answers: here when this
// replica sent it, otherwise on the replica its ID names. Delivered;
// Expired when the wait ended, the request was already answered, or the
// replica that asked is gone; Unknown when the session never asked id (an
// answer carrying another session's ID is Unknown on every replica, since
// the replica that asked looks it up by session).
func (pr pendingRouter) Resolve(ctx context.Context, session string, id json.RawMessage, a runtime.Answer) (runtime.Resolution, error) {
	s := pr.s
	k := idKey(id)
	owner, ok := ownerOf(k)
	switch {
	case !ok:
		return runtime.Unknown, nil
	case owner == s.id:
		return s.resolveLocal(session, k, a), nil
	}
	return s.forwardAnswer(ctx, owner, session, k, a)
}

// resolveLocal delivers an answer to a wait of this process. The first
// answer wins and leaves a tombstone, so a duplicate gets Expired.
func (s *Store) resolveLocal(session, id string, a runtime.Answer) runtime.Resolution {
	k := pendingKey{session, id}
	s.mu.Lock()
	deliver, waiting := s.waits[k]
	if waiting {
		delete(s.waits, k)
		s.tombLocked(k)
	}
	expiry, tomb := s.tombs[k]
	s.mu.Unlock()
	switch {
	case waiting:
		deliver(a)
		return runtime.Delivered
	case tomb && time.Now().Before(expiry):
		return runtime.Expired
	}
	return runtime.Unknown
}

// forwardAnswer sends an answer to the replica owner, which waits for it,
// and waits for that replica to say what became of it (bounded by
// OpTimeout). No subscriber on owner's channel means it is gone: Expired.
func (s *Store) forwardAnswer(ctx context.Context, owner, session, id string, a runtime.Answer) (runtime.Resolution, error) {
	body, err := json.Marshal(wireAnswer(a))
	if err != nil {
		return runtime.Unknown, err
	}
	token := randomHex(8)
	reply := make(chan runtime.Resolution, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return runtime.Unknown, errors.New("redisstore: store closed")
	}
	s.replies[token] = reply
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.replies, token)
		s.mu.Unlock()
	}()
	ctx, cancel := s.op(ctx)
	defer cancel()
	msg := envelope(kindAnswer, []byte(session), []byte(id), body, []byte(s.id), []byte(token))
	n, err := s.rdb.Publish(ctx, s.answerChannel(owner), msg).Result()
	if err != nil {
		return runtime.Unknown, fmt.Errorf("redisstore: forwarding an answer: %w", err)
	}
	if n == 0 {
		s.log.Info("redisstore: answer for a request of a replica that is gone", "session", session, "id", id)
		return runtime.Expired, nil
	}
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		return runtime.Unknown, fmt.Errorf("redisstore: replica %s did not say what became of an answer: %w", owner, ctx.Err())
	}
}

// receiveAnswer resolves an answer another replica forwarded and tells it
// the outcome. It runs on the pub/sub goroutine: the reply goes out from
// a goroutine of its own.
func (s *Store) receiveAnswer(payload []byte) {
	_, f, ok := openEnvelope(payload, 5)
	var w wireAnswerT
	if ok {
		ok = json.Unmarshal(f[2], &w) == nil
	}
	if !ok {
		s.log.Warn("redisstore: malformed forwarded answer")
		return
	}
	res := s.resolveLocal(string(f[0]), string(f[1]), runtime.Answer{Result: w.Result, Error: w.Error})
	replyTo, token := string(f[3]), bytes.Clone(f[4])
	go func() {
		ctx, cancel := s.op(s.ctx)
		defer cancel()
		if err := s.rdb.Publish(ctx, s.answerChannel(replyTo), envelope(kindReply, token, []byte{byte(res)})).Err(); err != nil && s.ctx.Err() == nil {
			s.log.Warn("redisstore: replying to a forwarded answer", "replica", replyTo, "err", err)
		}
	}()
}

// receiveReply hands the outcome of a forwarded answer to its Resolve.
func (s *Store) receiveReply(payload []byte) {
	_, f, ok := openEnvelope(payload, 2)
	if !ok || len(f[1]) != 1 {
		s.log.Warn("redisstore: malformed reply to a forwarded answer")
		return
	}
	s.mu.Lock()
	reply := s.replies[string(f[0])]
	s.mu.Unlock()
	if reply != nil {
		select {
		case reply <- runtime.Resolution(f[1][0]):
		default:
		}
	}
}

// Expire ends the wait for (session, id) and, when tombstone is set,
// remembers it for Options.TombstoneTTL, so that a late answer, on any
// replica, resolves as Expired.
func (pr pendingRouter) Expire(_ context.Context, session string, id json.RawMessage, tombstone bool) {
	s := pr.s
	k := pendingKey{session, idKey(id)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.waits[k]; !ok {
		return // answered meanwhile
	}
	delete(s.waits, k)
	if tombstone {
		s.tombLocked(k)
	}
}

// tombLocked remembers k as expired for TombstoneTTL, within
// maxTombstones; s.mu is held.
func (s *Store) tombLocked(k pendingKey) {
	s.tombs[k] = time.Now().Add(s.opts.TombstoneTTL)
	s.tombOrder = append(s.tombOrder, k)
	s.sweepLocked()
}

// Sweep forgets tombstones past their TTL (the runtime's keep-alive tick
// calls it).
func (pr pendingRouter) Sweep() {
	s := pr.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
}

func (s *Store) sweepLocked() {
	now := time.Now()
	i := 0
	for ; i < len(s.tombOrder); i++ {
		k := s.tombOrder[i]
		expiry, ok := s.tombs[k]
		if !ok {
			continue // its session was deleted
		}
		if now.Before(expiry) && len(s.tombs) <= maxTombstones {
			break
		}
		delete(s.tombs, k)
	}
	if i > 0 {
		s.tombOrder = append(s.tombOrder[:0:0], s.tombOrder[i:]...)
	}
}

// DeleteSession forgets this process's waits and tombstones of a session.
func (pr pendingRouter) DeleteSession(_ context.Context, session string) {
	pr.s.forgetWaits(session)
}

func (s *Store) forgetWaits(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.waits {
		if k.session == session {
			delete(s.waits, k)
		}
	}
	for k := range s.tombs {
		if k.session == session {
			delete(s.tombs, k)
		}
	}
}

// wireAnswer is runtime.Answer as it crosses Redis.
type wireAnswerT struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *runtime.Error  `json:"error,omitempty"`
}

func wireAnswer(a runtime.Answer) wireAnswerT { return wireAnswerT{a.Result, a.Error} }
