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
	// SignalGETOpened: a GET stream of the session opened on some replica
	// (GETRoutes.HoldGET announces it); no data. Messages waiting for a
	// route to the client try again.
	SignalGETOpened = "get"
)

// GETRoutes is an optional interface of a SessionBus whose replicas share
// one session store (redisstore's). It carries fallback messages to the
// replica that holds a session's GET stream at the cost of one round trip
// per message, opening, and closing, and it never sends a message when no
// replica holds one, so that a message with no route costs nothing. With
// it, a GET request needs no read of the session store of its own: HoldGET
// checks the session. When the bus has SessionSignals too, HoldGET
// announces SignalGETOpened, which wakes the messages of the session that
// wait for a route on every replica.
type GETRoutes interface {
	// HoldGET makes this replica the one that holds sessionID's GET stream
	// and delivers what SendGET sends it on msgs, until release is called
	// or ctx ends (msgs then closes). In the same step it checks that the
	// session exists (ErrSessionNotFound otherwise) and restarts its idle
	// expiry; release restarts it once more, the connection's end being the
	// client's last sign of life.
	HoldGET(ctx context.Context, sessionID string) (msgs <-chan []byte, release func(), err error)
	// SendGET delivers msg to the replica holding sessionID's GET stream.
	// It reports false, having sent nothing, when no live replica holds one.
	SendGET(ctx context.Context, sessionID string, msg []byte) (sent bool, err error)
}

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
		s.endedElsewhere(sess)
	case SignalGETOpened:
		sess.getStreamOpened()
	}
}

// endedElsewhere ends the local copy of a session that another replica
// ended (or the store expired), with the tasks it runs here.
func (s *Server) endedElsewhere(sess *session) {
	s.dropLocal(sess)
	s.tasks.endSession(sess.id)
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

// announcesGET reports whether every GET stream that opens on any replica
// is announced (SignalGETOpened): a bus with GETRoutes and SessionSignals.
func announcesGET(bus SessionBus) bool {
	_, routes := bus.(GETRoutes)
	_, signals := bus.(SessionSignals)
	return routes && signals
}

// busRetry is how long a bus subscription that ended waits before it is
// made again (change notifications).
const busRetry = 25 * time.Millisecond

// sendRemoteGET sends data to the GET stream another replica holds, and
// reports whether one did: with GETRoutes only to the replica holding it,
// otherwise published on the session's "get" topic.
func (sess *session) sendRemoteGET(ctx context.Context, data []byte) (bool, error) {
	bus := sess.srv.opts.Bus
	if r, ok := bus.(GETRoutes); ok {
		return r.SendGET(ctx, sess.id, data)
	}
	n, err := bus.Publish(ctx, sess.id, busTopicGET, data)
	return n > 0, err
}

// busStream is the route of messages that went to another replica's GET
// stream; pushing to it sends there again (notifications/cancelled takes
// the same route).
func (sess *session) busStream() *stream {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.bus == nil {
		sess.bus = &stream{id: "bus", sess: sess, standalone: true, isBus: true, q: newBackpressureWait(1)}
	}
	return sess.bus
}

// forwardBus feeds the messages other replicas publish for this session's
// GET stream into st until ctx ends (a bus without GETRoutes).
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
	s.forward(ctx, msgs, cancel, st)
}

// forward feeds msgs into st until msgs closes or ctx ends, then calls done.
func (s *Server) forward(ctx context.Context, msgs <-chan []byte, done func(), st *stream) {
	go func() {
		defer done()
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
