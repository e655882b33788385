package redisstore

import (
	"context"
)

// Signal implements runtime.SessionSignals: one PUBLISH on the deployment's
// signal channel, which every replica's Store subscribes to at New, so a
// notifications/cancelled posted to any replica reaches the one running the
// call with no per-call subscription.
func (s *Store) Signal(ctx context.Context, session, kind string, data []byte) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	if err := s.rdb.Publish(ctx, s.signalChannel(), signalEnvelope(session, kind, data)).Err(); err != nil {
		return s.unavailable("publishing a session signal", err)
	}
	return nil
}

// OnSignal implements runtime.SessionSignals: fn gets every signal of every
// replica, runtime.SignalEnd whenever a session is deleted (on this replica
// or announced by another), and runtime.SignalGETOpened whenever a replica
// holds a session's GET stream (HoldGET). fn runs on the goroutine that reads
// pub/sub, so it must not block.
func (s *Store) OnSignal(fn func(session, kind string, data []byte)) (stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextSignalFn++
	key := s.nextSignalFn
	s.signalFns[key] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.signalFns, key)
	}
}

// signal hands one signal to this process's handlers, outside s.mu.
func (s *Store) signal(session, kind string, data []byte) {
	s.mu.Lock()
	fns := make([]func(string, string, []byte), 0, len(s.signalFns))
	for _, fn := range s.signalFns {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	for _, fn := range fns {
		fn(session, kind, data)
	}
}

func signalEnvelope(session, kind string, data []byte) []byte {
	return envelope(kindSignal, []byte(session), []byte(kind), data)
}

func (s *Store) receiveSignal(payload string) {
	k, f, ok := openEnvelope([]byte(payload), 3)
	if !ok || k != kindSignal {
		s.logger().Warn("redisstore: malformed session signal")
		return
	}
	s.signal(string(f[0]), string(f[1]), f[2])
}
