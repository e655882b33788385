package redisstore

import (
	"context"
	"errors"
	"fmt"
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
