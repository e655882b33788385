package redisstore

import (
	"context"
	"errors"
	"fmt"
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
// resumable from the event store).
func (s *Store) Subscribe(ctx context.Context, session, topic string) (<-chan []byte, func(), error) {
	channel := s.busChannel(session, topic)
	sub := &subscription{ch: make(chan []byte, s.opts.BusBuffer)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, errors.New("redisstore: store closed")
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
		return nil, nil, fmt.Errorf("redisstore: subscribing to the session bus: %w", err)
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
			s.log.Debug("redisstore: unsubscribing", "channel", channel, "err", err)
		}
	}()
}

// Publish delivers msg to the subscribers of (session, topic) on every
// replica and returns how many replicas have one (0: nobody listens).
func (s *Store) Publish(ctx context.Context, session, topic string, msg []byte) (int, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	n, err := s.rdb.Publish(ctx, s.busChannel(session, topic), msg).Result()
	if err != nil {
		return 0, fmt.Errorf("redisstore: publishing on the session bus: %w", err)
	}
	return int(n), nil
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
			s.log.Warn("redisstore: bus subscriber fell behind; closing it", "channel", channel)
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

// sendScript delivers a message to the replica holding a session's GET
// stream: nothing is published when no replica holds one, and a holder
// that is gone (no subscriber on its channel) is forgotten.
//
// KEYS: holder. ARGV: the replicas' channel prefix, envelope.
var sendScript = redis.NewScript(`
local holder = redis.call('GET', KEYS[1])
if not holder then return 0 end
if redis.call('PUBLISH', ARGV[1] .. holder, ARGV[2]) > 0 then return 1 end
redis.call('DEL', KEYS[1])
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
		return nil, nil, errors.New("redisstore: store closed")
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
			return nil, nil, fmt.Errorf("redisstore: holding a GET stream: %w", err)
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
			s.log.Warn("redisstore: releasing a GET stream", "session", session, "err", err)
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
// session's GET stream, in one round trip; false, with nothing published,
// when no live replica holds one.
func (s *Store) SendGET(ctx context.Context, session string, msg []byte) (bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	sent, err := sendScript.Run(ctx, s.rdb, []string{s.holderKey(session)},
		s.opts.Prefix+"r:", envelope(kindGET, []byte(session), msg)).Int()
	if err != nil {
		return false, fmt.Errorf("redisstore: sending to a GET stream: %w", err)
	}
	return sent == 1, nil
}

// receiveGET hands a message for a GET stream to its newest hold here; a
// hold whose buffer is full is cut off (its channel closes).
func (s *Store) receiveGET(payload []byte) {
	_, f, ok := openEnvelope(payload, 2)
	if !ok {
		s.log.Warn("redisstore: malformed GET stream message")
		return
	}
	session := string(f[0])
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.holds[session]
	if len(held) == 0 {
		s.log.Debug("redisstore: message for a GET stream released meanwhile", "session", session)
		return
	}
	sub := held[len(held)-1]
	select {
	case sub.ch <- f[1]:
	default:
		s.log.Warn("redisstore: GET stream holder fell behind; closing it", "session", session)
		sub.closeLocked()
		if held = held[:len(held)-1]; len(held) == 0 {
			delete(s.holds, session)
		} else {
			s.holds[session] = held
		}
	}
}
