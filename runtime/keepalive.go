package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"
)

// janitor is the one server-wide goroutine that keeps sessions alive and
// tidy: every KeepAlive interval it pings each open GET stream (with an ID
// from the session's sharedIDAllocator, like any server-to-client request),
// ends sessions idle past SessionIdleTimeout and sweeps old tombstones. A
// session is never ended for an unanswered ping, so clients that only POST
// keep their sessions.
type janitor struct {
	mu      sync.Mutex
	started bool
	stop    chan struct{}
	done    chan struct{}
}

func (s *Server) startJanitor() {
	j := &s.janitor
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.started || s.closing.Load() {
		return
	}
	j.started = true
	j.stop, j.done = make(chan struct{}), make(chan struct{})
	go s.runJanitor(j.stop, j.done)
}

func (s *Server) stopJanitor() {
	j := &s.janitor
	j.mu.Lock()
	started := j.started
	if started && j.stop != nil {
		close(j.stop)
		j.stop = nil
	}
	j.mu.Unlock()
	if started {
		<-j.done
	}
}

func (s *Server) runJanitor(stop, done chan struct{}) {
	defer close(done)
	every := s.opts.KeepAlive
	if every <= 0 {
		every = time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.tick()
		}
	}
}

// tick is one round of the janitor.
func (s *Server) tick() {
	now := time.Now()
	s.smu.RLock()
	list := make([]*session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		list = append(list, sess)
	}
	s.smu.RUnlock()
	for _, sess := range list {
		if s.idle(sess, now) {
			if s.opts.Sessions != nil {
				// Idle here is not idle everywhere: with a shared store the
				// client may be busy on other replicas. Forget the local copy
				// only; the store expires the session after SessionIdleTimeout
				// without a request on any replica.
				s.logger.Debug("session idle on this replica", slog.String("session", sess.id))
				s.dropLocal(sess)
				continue
			}
			s.logger.Debug("session expired", slog.String("session", sess.id))
			s.endSession(s.baseCtx, sess)
			continue
		}
		if s.opts.Sessions != nil && s.refresh(s.baseCtx, sess) != nil {
			continue // ended on another replica (or the store is down: try next tick)
		}
		if s.opts.KeepAlive > 0 {
			s.keepAlive(sess)
		}
	}
	if sw, ok := s.pending.(interface{ Sweep() }); ok {
		sw.Sweep()
	}
	if s.onTick != nil {
		s.onTick()
	}
}

// idle reports whether a session's client has shown no sign of life for
// SessionIdleTimeout: no request, no answer, and no connection still open. A
// call still running does not keep it alive (its client may be gone for
// good, and a disconnect alone is not a cancellation); ending the session
// ends such calls.
func (s *Server) idle(sess *session, now time.Time) bool {
	d := s.opts.SessionIdleTimeout
	if d < 0 || now.Sub(time.Unix(0, sess.lastSeen.Load())) < d {
		return false
	}
	return !sess.connected()
}

// keepAlive pings the session's GET stream when a client is attached to it.
// The previous ping, if still unanswered, expires (a late answer gets
// "request expired"), whether or not the stream is still attached. Nothing
// else happens to the session.
func (s *Server) keepAlive(sess *session) {
	sess.mu.Lock()
	st := sess.standalone
	prev := sess.pingID
	sess.pingID = nil
	sess.mu.Unlock()
	ctx := context.WithoutCancel(sess.ctx)
	if prev != nil {
		// Also when the stream is gone: its pending record must not wait
		// for PendingTTL in a shared store.
		s.pending.Expire(ctx, sess.id, prev, true)
	}
	if st == nil || !st.attached() {
		return
	}
	id := sess.ids.next()
	data, _ := encodeRequest(id, methodPing, nil)
	_ = s.pending.Register(ctx, sess.id, id, func(Answer) {})
	if !st.q.tryPush(frame{data: data}) {
		s.pending.Expire(ctx, sess.id, id, false)
		return
	}
	sess.mu.Lock()
	sess.pingID = id
	sess.mu.Unlock()
	s.logger.LogAttrs(ctx, slog.LevelDebug, "outbound request", slog.String("session", sess.id),
		slog.String("method", methodPing), slog.String("id", string(json.RawMessage(id))),
		slog.String("route", routeName(st)), slog.String("outcome", "sent"))
}
