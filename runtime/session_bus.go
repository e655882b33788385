package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// SessionBus carries fallback messages between replicas that share a
// session store: the replica holding a session's GET stream subscribes to
// (session, "get"); a replica whose request stream is finished and that
// holds no GET stream of its own publishes the message there. nil (the
// default) means one process: the fallback waits for a local GET stream.
type SessionBus interface {
	// Subscribe delivers messages published to (sessionID, topic) until
	// cancel is called or ctx ends.
	Subscribe(ctx context.Context, sessionID, topic string) (msgs <-chan []byte, cancel func(), err error)
	// Publish sends msg to the current subscribers and returns how many
	// there were.
	Publish(ctx context.Context, sessionID, topic string, msg []byte) (int, error)
}

// SessionSignals is an optional interface of a SessionBus that reaches every
// replica at once (redisstore's does). With it, a client's
// notifications/cancelled that reaches a replica other than the one running
// the call is carried to that one, and a session that ends on one replica
// ends at once on every replica holding it; without it, cancellation reaches
// only the receiving replica's calls, and a session deleted elsewhere ends
// here at the next keep-alive tick.
type SessionSignals interface {
	// Signal tells every replica, this one included, about a session: kind
	// SignalCancel with a request ID as data.
	Signal(ctx context.Context, sessionID, kind string, data []byte) error
	// OnSignal registers fn for the signals of every replica and for
	// SignalEnd whenever a session is deleted on any replica; stop
	// unregisters it. fn must not block.
	OnSignal(fn func(sessionID, kind string, data []byte)) (stop func())
}

// Kinds of SessionSignals signals.
const (
	SignalCancel = "cancel" // data: the ID of the client request to cancel
	SignalEnd    = "end"    // the session ended; no data
)

// listenSignals registers the Server for its Bus's signals, when it has
// them; Close unregisters it.
func (s *Server) listenSignals() {
	if sig, ok := s.opts.Bus.(SessionSignals); ok {
		s.stopSignals = sync.OnceFunc(sig.OnSignal(s.onSignal)) // Close may run more than once
	}
}

// onSignal acts on a signal from any replica, for a session this process
// holds: a cancel reaches the call if it runs here; an end ends the local
// copy of the session (its calls, waits and streams).
func (s *Server) onSignal(sessionID, kind string, data []byte) {
	s.smu.RLock()
	sess := s.sessions[sessionID]
	s.smu.RUnlock()
	if sess == nil {
		if kind == SignalEnd {
			s.tasks.endSession(sessionID) // a task outlives the local copy of its session
		}
		return
	}
	switch kind {
	case SignalCancel:
		sess.cancelLocal(json.RawMessage(data))
	case SignalEnd:
		s.dropLocal(sess)
		s.tasks.endSession(sessionID) // the tasks it runs here end with it
	}
}

// signalCancel carries a notifications/cancelled for a request this
// replica does not run to every replica; the one running it cancels it.
func (sess *session) signalCancel(id json.RawMessage) {
	sig, ok := sess.srv.opts.Bus.(SessionSignals)
	if !ok || sess.stdio {
		return
	}
	if err := sig.Signal(sess.ctx, sess.id, SignalCancel, trimSpace(id)); err != nil {
		sess.srv.logger.Warn("carrying a cancellation to the other replicas", "session", sess.id, "request", string(id), "error", err)
	}
}

// busTopicGET is the topic of a session's GET stream.
const busTopicGET = "get"

// busRetry is how often a fallback publish is retried while no replica
// holds the session's GET stream.
const busRetry = 25 * time.Millisecond

// publishFallback is sendStandalone across replicas: a local GET stream
// wins, otherwise the message goes to the replica that has one, retried
// until wait ends.
func (sess *session) publishFallback(ctx context.Context, bus SessionBus, data []byte, wait time.Duration, ready <-chan struct{}) (*stream, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	tick := time.NewTicker(busRetry)
	defer tick.Stop()
	for {
		n, err := bus.Publish(ctx, sess.id, busTopicGET, data)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			return sess.busStream(), nil
		}
		select {
		case <-ready:
			st := sess.standaloneStream()
			return st, st.push(ctx, data)
		case <-tick.C:
		case <-timer.C:
			return nil, errNoRoute
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-sess.ctx.Done():
			return nil, ErrSessionNotFound
		}
	}
}

// busStream is the route of messages that went to another replica's GET
// stream; pushing to it publishes again (notifications/cancelled takes the
// same route).
func (sess *session) busStream() *stream {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.bus == nil {
		sess.bus = &stream{id: "bus", sess: sess, standalone: true, isBus: true, q: newBackpressureWait(1)}
	}
	return sess.bus
}

// forwardBus feeds the messages other replicas publish for this session's
// GET stream into st until ctx ends.
func (s *Server) forwardBus(ctx context.Context, sess *session, st *stream) {
	bus := s.opts.Bus
	if bus == nil {
		return
	}
	msgs, cancel, err := bus.Subscribe(ctx, sess.id, busTopicGET)
	if err != nil {
		s.logger.Warn("subscribing to the session bus", "session", sess.id, "error", err)
		return
	}
	go func() {
		defer cancel()
		for {
			select {
			case m, ok := <-msgs:
				if !ok {
					return
				}
				if st.push(ctx, m) != nil {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
}
