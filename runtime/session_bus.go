package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// listenSignals registers the Server for its Bus's signals, when it has
// them; Close unregisters it.
func (t *sessionTable) listenSignals() {
	if sig, ok := t.opts.bus.(SessionSignals); ok {
		t.stopSignals = sync.OnceFunc(sig.OnSignal(t.onSignal)) // Close may run more than once
	}
}

// onSignal acts on a signal from any replica, for a session this process
// holds: a cancel reaches the call if it runs here; an end ends the local
// copy of the session (its calls, waits and streams).
func (t *sessionTable) onSignal(sessionID, kind string, data []byte) {
	t.mu.RLock()
	sess := t.byID[sessionID]
	t.mu.RUnlock()
	if sess == nil {
		if kind == SignalEnd {
			t.ended(sessionID) // what an extension keeps for it outlives the local copy
		}
		return
	}
	switch kind {
	case SignalCancel:
		sess.cancelLocal(json.RawMessage(data))
	case SignalEnd:
		t.endedElsewhere(sess)
	case SignalGETOpened:
		sess.getStreamOpened()
	}
}

// endedElsewhere ends the local copy of a session that another replica
// ended (or the store expired), with what the extensions keep for it here.
func (t *sessionTable) endedElsewhere(sess *session) {
	t.dropLocal(sess)
	t.ended(sess.id)
}

// signalCancel carries a notifications/cancelled for a request this
// replica does not run to every replica; the one running it cancels it.
func (sess *session) signalCancel(id json.RawMessage) {
	sig, ok := sess.table.opts.bus.(SessionSignals)
	if !ok || sess.stdio {
		return
	}
	if err := sig.Signal(sess.ctx, sess.id, SignalCancel, trimSpace(id)); err != nil {
		sess.table.logger.Warn("carrying a cancellation to the other replicas", "session", sess.id, "request", string(id), "error", err)
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
	bus := sess.table.opts.bus
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
	x := sess.more()
	if x.bus == nil {
		x.bus = &stream{id: "bus", sess: sess, standalone: true, isBus: true, q: newBackpressureWait(1)}
	}
	return x.bus
}

// forwardBus feeds the messages other replicas publish for this session's
// GET stream into st until ctx ends (a bus without GETRoutes).
func (t *sessionTable) forwardBus(ctx context.Context, sess *session, st *stream) {
	bus := t.opts.bus
	if bus == nil {
		return
	}
	msgs, cancel, err := bus.Subscribe(ctx, sess.id, busTopicGET)
	if err != nil {
		t.logger.Warn("subscribing to the session bus", "session", sess.id, "error", err)
		return
	}
	t.forward(ctx, msgs, cancel, st)
}

// forward feeds msgs into st until msgs closes or ctx ends, then calls done.
func (t *sessionTable) forward(ctx context.Context, msgs <-chan []byte, done func(), st *stream) {
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
