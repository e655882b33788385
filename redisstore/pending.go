package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
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
		return errClosed
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
// and waits for that replica to say what became of it (delivery.go: sent
// again until it replies, within Options.DeliveryTimeout). An owner whose
// liveness record is gone has stopped: Expired. An owner that never
// replies is an error (HTTP 503 to the client, which may post the answer
// again), never Expired: it may still wait for the answer.
func (s *Store) forwardAnswer(ctx context.Context, owner, session, id string, a runtime.Answer) (runtime.Resolution, error) {
	body, err := json.Marshal(wireAnswer(a))
	if err != nil {
		return runtime.Unknown, err
	}
	token := randomHex(8)
	msg := envelope(kindAnswer, []byte(session), []byte(id), body, []byte(s.id), []byte(token))
	res, outcome, err := s.deliver(ctx, owner, token, msg, false)
	switch outcome {
	case delivered:
		return runtime.Resolution(res), nil
	case gone:
		s.logger().Info("redisstore: answer for a request of a replica that is gone", "session", session, "id", id, "replica", owner)
		return runtime.Expired, nil
	}
	return runtime.Unknown, s.unavailable("forwarding an answer to replica "+owner+" (no reply)", err)
}

// receiveAnswer resolves an answer another replica forwarded and tells it
// the outcome; an answer that arrives again (sent again before the reply
// reached the sender) gets the first one's outcome.
func (s *Store) receiveAnswer(payload []byte) {
	_, f, ok := openEnvelope(payload, 5)
	var w wireAnswerT
	if ok {
		ok = json.Unmarshal(f[2], &w) == nil
	}
	if !ok {
		s.logger().Warn("redisstore: malformed forwarded answer")
		return
	}
	session, id, replyTo, token := string(f[0]), string(f[1]), string(f[3]), bytes.Clone(f[4])
	res := s.once(string(token), func() byte {
		return byte(s.resolveLocal(session, id, runtime.Answer{Result: w.Result, Error: w.Error}))
	})
	s.reply(replyTo, token, res)
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
