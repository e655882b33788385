package redisstore

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

type subscription struct {
	ch     chan []byte
	closed bool
}

func (sub *subscription) closeLocked() {
	if !sub.closed {
		sub.closed = true
		close(sub.ch)
	}
}

// Subscribe delivers what is published to (session, topic) on any replica
// from the moment it returns, until cancel is called, ctx ends, the session
// is deleted, or the subscriber falls Options.BusBuffer messages behind; in
// each case the channel closes. Messages published while the connection to
// Redis is being re-established are lost (the runtime's streams are
// resumable from the event store). On a Redis Cluster a message published
// a moment before Subscribe returned may still arrive: the cluster bus
// carries it to the subscription's node after the subscription is made.
func (s *Store) Subscribe(ctx context.Context, session, topic string) (<-chan []byte, func(), error) {
	channel := s.busChannel(session, topic)
	sub := &subscription{ch: make(chan []byte, s.opts.BusBuffer)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, errClosed
	}
	set := s.subs[channel]
	if set == nil {
		set = map[*subscription]struct{}{}
		s.subs[channel] = set
	}
	set[sub] = struct{}{}
	s.mu.Unlock()

	cancel := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if set := s.subs[channel]; set != nil {
			if _, ok := set[sub]; ok {
				delete(set, sub)
				if len(set) == 0 {
					delete(s.subs, channel)
					s.unsubscribeLocked(channel)
				}
			}
		}
		sub.closeLocked()
	}
	if err := s.subscribeChannels(ctx, channel); err != nil {
		cancel()
		return nil, nil, s.unavailable("subscribing to the session bus", err)
	}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, cancel)
		inner := cancel
		cancel = func() { stop(); inner() }
	}
	return sub.ch, cancel, nil
}

// unsubscribeLocked drops the Redis subscription of a channel nobody on this
// process listens to any more. Called with s.mu held; the command runs in the
// background so that no lock is held across a round trip.
func (s *Store) unsubscribeLocked(channel string) {
	delete(s.confirmed, channel)
	go func() {
		s.subMu.Lock()
		defer s.subMu.Unlock()
		s.mu.Lock()
		_, again := s.subs[channel]
		s.mu.Unlock()
		if again {
			return
		}
		ctx, cancel := s.op(s.ctx)
		defer cancel()
		if err := s.ps.Unsubscribe(ctx, channel); err != nil && s.ctx.Err() == nil {
			s.logger().Debug("redisstore: unsubscribing", "channel", channel, "err", err)
		}
	}()
}

// Publish delivers msg to the subscribers of (session, topic) on every
// replica, this one included. The count it returns is what Redis counted
// on the node that took the PUBLISH: on a Redis Cluster that node's
// subscribers only, so it says nothing about the others (the runtime does
// not rely on it). On a cluster every message of one channel is published
// on the node that owns the channel's slot, so that the messages of a
// channel reach every subscriber in the order they were published.
func (s *Store) Publish(ctx context.Context, session, topic string, msg []byte) (int, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	n, err := s.publishOrdered(ctx, s.busChannel(session, topic), msg)
	if err != nil {
		return 0, s.unavailable("publishing on the session bus", err)
	}
	return int(n), nil
}

// publishOrdered publishes msg on channel; on a cluster through the node
// that owns the channel's slot (see Publish).
func (s *Store) publishOrdered(ctx context.Context, channel string, msg []byte) (int64, error) {
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		node, err := cc.MasterForKey(ctx, channel)
		if err != nil {
			return 0, err
		}
		return node.Publish(ctx, channel, msg).Result()
	}
	return s.rdb.Publish(ctx, channel, msg).Result()
}

// dispatch hands a bus message to this process's subscribers without
// blocking: a subscriber whose buffer is full is cut off.
func (s *Store) dispatch(channel string, msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sub := range s.subs[channel] {
		select {
		case sub.ch <- msg:
		default:
			s.logger().Warn("redisstore: bus subscriber fell behind; closing it", "channel", channel)
			delete(s.subs[channel], sub)
			sub.closeLocked()
		}
	}
	if set, ok := s.subs[channel]; ok && len(set) == 0 {
		delete(s.subs, channel)
		s.unsubscribeLocked(channel)
	}
}

// holdScript makes a replica the holder of a session's GET stream: it
// checks that the session exists and restarts its idle expiry, records the
// replica (with the same expiry), and announces the opening to every
// replica (runtime.SignalGETOpened), in one round trip.
//
// KEYS: session, holder. ARGV: idle ms, replica, signal channel, signal.
var holdScript = redis.NewScript(`
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`)

// releaseScript ends a replica's hold of a session's GET stream (unless a
// newer GET stream on another replica took it) and restarts the session's
// idle expiry, the connection's end being the client's last sign of life.
//
// KEYS: session, holder. ARGV: idle ms, replica.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`)

// sendScript sends a message to the replica holding a session's GET
// stream and returns that replica's ID (nil, with nothing published, when
// no replica holds one). Whether the holder took it is its reply
// (delivery.go).
//
// KEYS: holder. ARGV: the replicas' channel prefix, envelope.
var sendScript = redis.NewScript(`
local holder = redis.call('GET', KEYS[1])
if not holder then return false end
redis.call('PUBLISH', ARGV[1] .. holder, ARGV[2])
return holder
`)

// forgetHolderScript deletes the record of a session's GET stream holder
// if it still names the replica given.
//
// KEYS: holder. ARGV: replica.
var forgetHolderScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// HoldGET implements runtime.GETRoutes: this replica becomes the holder of
// the session's GET stream, and what any replica sends it with SendGET
// arrives on the channel, until release is called, ctx ends, the session
// is deleted, or the holder falls Options.BusBuffer messages behind. It
// checks the session and announces the opening in one round trip;
// release is one more.
func (s *Store) HoldGET(ctx context.Context, session string) (<-chan []byte, func(), error) {
	sub := &subscription{ch: make(chan []byte, s.opts.BusBuffer)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, errClosed
	}
	s.holds[session] = append(s.holds[session], sub) // before the script: a message sent right after it finds the hold
	s.mu.Unlock()
	held, err := func() (int, error) {
		ctx, cancel := s.op(ctx)
		defer cancel()
		return holdScript.Run(ctx, s.rdb, []string{s.sessionKey(session), s.holderKey(session)},
			s.opts.SessionIdle.Milliseconds(), s.id, s.signalChannel(), signalEnvelope(session, runtime.SignalGETOpened, nil)).Int()
	}()
	if err != nil || held == 0 {
		s.unhold(session, sub)
		if err != nil {
			return nil, nil, s.unavailable("holding a GET stream", err)
		}
		return nil, nil, runtime.ErrSessionNotFound
	}
	release := sync.OnceFunc(func() {
		if !s.unhold(session, sub) {
			return // another GET stream of the session is still held here
		}
		ctx, cancel := s.op(s.ctx)
		defer cancel()
		err := releaseScript.Run(ctx, s.rdb, []string{s.sessionKey(session), s.holderKey(session)},
			s.opts.SessionIdle.Milliseconds(), s.id).Err()
		if err != nil && s.ctx.Err() == nil {
			s.logger().Warn("redisstore: releasing a GET stream", "session", session, "err", err)
		}
	})
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, release)
		inner := release
		release = func() { stop(); inner() }
	}
	return sub.ch, release, nil
}

// unhold forgets one hold and closes its channel; it reports whether it
// was the session's last hold here.
func (s *Store) unhold(session string, sub *subscription) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.holds[session]
	for i, h := range held {
		if h == sub {
			held = append(held[:i:i], held[i+1:]...)
			break
		}
	}
	sub.closeLocked()
	if len(held) == 0 {
		delete(s.holds, session)
		return true
	}
	s.holds[session] = held
	return false
}

// SendGET implements runtime.GETRoutes: msg goes to the replica holding the
// session's GET stream, in one round trip, and that replica replies whether
// a GET stream took it (delivery.go). false, with nothing published, when
// no replica holds one; false too when the holder released its stream
// meanwhile or is gone, and then its record is forgotten.
func (s *Store) SendGET(ctx context.Context, session string, msg []byte) (bool, error) {
	token := randomHex(8)
	env := envelope(kindGET, []byte(session), msg, []byte(s.id), []byte(token))
	holder, err := func() (string, error) {
		ctx, cancel := s.op(ctx)
		defer cancel()
		return sendScript.Run(ctx, s.rdb, []string{s.holderKey(session)}, s.opts.Prefix+"r:", env).Text()
	}()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, s.unavailable("sending to a GET stream", err)
	}
	res, outcome, err := s.deliver(ctx, holder, token, env, true)
	switch {
	case outcome == delivered && res == 1:
		return true, nil
	case outcome == unconfirmed:
		return false, s.unavailable("sending to the GET stream on replica "+holder+" (no reply)", err)
	}
	// Released meanwhile, or the holder is gone: nobody holds a GET stream
	// of the session until another opens.
	fctx, cancel := s.op(ctx)
	defer cancel()
	if err := forgetHolderScript.Run(fctx, s.rdb, []string{s.holderKey(session)}, holder).Err(); err != nil {
		s.unavailable("forgetting a GET stream's holder", err)
	}
	return false, nil
}

// receiveGET hands a message for a GET stream to its newest hold here and
// replies whether one took it; a hold whose buffer is full is cut off (its
// channel closes).
func (s *Store) receiveGET(payload []byte) {
	_, f, ok := openEnvelope(payload, 4)
	if !ok {
		s.logger().Warn("redisstore: malformed GET stream message")
		return
	}
	session, msg, replyTo, token := string(f[0]), f[1], string(f[2]), bytes.Clone(f[3])
	res := s.once(string(token), func() byte {
		if s.pushGET(session, msg) {
			return 1
		}
		return 0
	})
	s.reply(replyTo, token, res)
}

// pushGET queues msg on the session's newest hold here.
func (s *Store) pushGET(session string, msg []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.holds[session]
	if len(held) == 0 {
		s.logger().Debug("redisstore: message for a GET stream released meanwhile", "session", session)
		return false
	}
	sub := held[len(held)-1]
	select {
	case sub.ch <- msg:
		return true
	default:
		s.logger().Warn("redisstore: GET stream holder fell behind; closing it", "session", session)
		sub.closeLocked()
		if held = held[:len(held)-1]; len(held) == 0 {
			delete(s.holds, session)
		} else {
			s.holds[session] = held
		}
		return false
	}
}
