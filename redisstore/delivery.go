package redisstore

import (
	"context"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

// Delivery to another replica: an answer forwarded to the replica that
// asked for it, a message for the GET stream another replica holds. Each
// goes out on the receiving replica's channel with a token and the
// sender's ID, and the receiver replies with what it did with it (one
// byte). Until that reply comes the sender sends again, every
// deliveryRetry, for at most Options.DeliveryTimeout; the receiver
// remembers the tokens it handled, so a message that arrives twice is
// handled once and answered twice. Each sending also checks, in the same
// round trip, that the receiver's liveness record exists (liveness.go):
// a receiver whose record stays missing for deliveryGrace is gone.
//
// Nothing here reads the number PUBLISH returns: on a Redis Cluster it
// counts the subscribers of one node, and after a Sentinel failover it
// counts none while the subscription is still on the old primary.

// deliveryRetry is how long a sender waits for a reply before it sends
// again.
const deliveryRetry = 250 * time.Millisecond

// maxDelivered bounds the tokens a replica remembers as handled.
const maxDelivered = 10000

// aliveSendScript publishes a message to a replica's channel if that replica's
// liveness record exists, and reports whether it did.
//
// KEYS: the receiver's liveness record. ARGV: the receiver's channel,
// message.
var aliveSendScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`)

// outcome of a delivery.
type delivery int

const (
	delivered   delivery = iota // the receiver replied
	gone                        // the receiver's liveness record stayed missing
	unconfirmed                 // no reply within DeliveryTimeout
)

// deliver sends msg (built with the token to reply to) to replica and
// waits for its reply. sent says the first sending was already made (a
// script that found the receiver sent it).
func (s *Store) deliver(ctx context.Context, replica, token string, msg []byte, sent bool) (byte, delivery, error) {
	reply := make(chan runtime.Resolution, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return 0, unconfirmed, errClosed
	}
	s.replies[token] = reply
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.replies, token)
		s.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(ctx, s.opts.DeliveryTimeout)
	defer cancel()
	grace := time.Duration(deliveryGraceBeats * float64(s.opts.Heartbeat))
	var missingSince time.Time // when the receiver's liveness record was first found missing
	var lastErr error
	wait := time.Duration(0)
	if sent {
		wait = deliveryRetry
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case r := <-reply:
			return byte(r), delivered, nil
		case <-ctx.Done():
			if lastErr == nil {
				lastErr = ctx.Err()
			}
			return 0, unconfirmed, lastErr
		case <-timer.C:
		}
		found, err := s.send(ctx, replica, msg)
		switch {
		case err != nil:
			lastErr = err
		case found:
			missingSince = time.Time{}
		case missingSince.IsZero():
			missingSince = time.Now()
		case time.Since(missingSince) >= grace:
			return 0, gone, nil
		}
		timer.Reset(deliveryRetry)
	}
}

// deliveryGraceBeats is how many heartbeats a receiver's liveness record may
// be missing before it is taken for gone: after Redis restarted empty (or
// a failover lost recent writes) every record is missing until its
// replica's next heartbeat writes it again.
const deliveryGraceBeats = 1.5

// send publishes msg to replica's channel if replica is alive, in one round
// trip.
func (s *Store) send(ctx context.Context, replica string, msg []byte) (bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	n, err := aliveSendScript.Run(ctx, s.rdb, []string{s.livenessKey(replica)}, s.answerChannel(replica), msg).Int()
	if err != nil {
		return false, s.unavailable("sending to another replica", err)
	}
	return n == 1, nil
}

// reply tells the replica that sent a message what became of it, from a
// goroutine of its own (the caller is the pub/sub reader).
func (s *Store) reply(replyTo string, token []byte, res byte) {
	msg := envelope(kindReply, token, []byte{res})
	go func() {
		ctx, cancel := s.op(s.ctx)
		defer cancel()
		if err := s.rdb.Publish(ctx, s.answerChannel(replyTo), msg).Err(); err != nil && s.ctx.Err() == nil {
			s.logger().Warn("redisstore: replying to another replica", "replica", replyTo, "err", err)
		}
	}()
}

// receiveReply hands a reply to the delivery waiting for it.
func (s *Store) receiveReply(payload []byte) {
	_, f, ok := openEnvelope(payload, 2)
	if !ok || len(f[1]) != 1 {
		s.logger().Warn("redisstore: malformed reply from another replica")
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

// deliveredLog remembers what became of the messages this replica handled,
// by token, for twice the DeliveryTimeout, within maxDelivered.
type deliveredLog struct {
	res   map[string]deliveredEntry
	order []string
}

type deliveredEntry struct {
	res   byte
	until time.Time
}

// handled returns what became of token, if it was handled; s.mu is held.
func (l *deliveredLog) handled(token string) (byte, bool) {
	e, ok := l.res[token]
	if !ok || time.Now().After(e.until) {
		return 0, false
	}
	return e.res, true
}

// record remembers token's outcome for ttl; s.mu is held.
func (l *deliveredLog) record(token string, res byte, ttl time.Duration) {
	if l.res == nil {
		l.res = map[string]deliveredEntry{}
	}
	now := time.Now()
	l.res[token] = deliveredEntry{res, now.Add(ttl)}
	l.order = append(l.order, token)
	i := 0
	for ; i < len(l.order); i++ {
		e, ok := l.res[l.order[i]]
		if ok && now.Before(e.until) && len(l.res) <= maxDelivered {
			break
		}
		delete(l.res, l.order[i])
	}
	if i > 0 {
		l.order = append(l.order[:0:0], l.order[i:]...)
	}
}

// once runs handle for a message of token unless it was handled already,
// and returns the outcome to reply with.
func (s *Store) once(token string, handle func() byte) byte {
	s.mu.Lock()
	if res, ok := s.delivered.handled(token); ok {
		s.mu.Unlock()
		return res
	}
	s.mu.Unlock()
	res := handle()
	s.mu.Lock()
	s.delivered.record(token, res, 2*s.opts.DeliveryTimeout)
	s.mu.Unlock()
	return res
}
