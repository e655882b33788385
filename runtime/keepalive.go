package runtime

import (
	"bytes"
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
// keep their sessions. With a shared store, an idle session costs the store
// nothing: requests restart its idle expiry there, and the tick restarts it
// only for the sessions whose client holds a connection open without
// sending requests, all of them in one SessionKeeper call.
type janitor struct {
	mu      sync.Mutex
	started bool
	stop    chan struct{}
	done    chan struct{}
	last    time.Time // when the previous tick ran (the janitor's goroutine only)
}

func (t *sessionTable) startJanitor() {
	j := &t.janitor
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.started || t.closing.Load() {
		return
	}
	j.started = true
	j.stop, j.done = make(chan struct{}), make(chan struct{})
	go t.runJanitor(j.stop, j.done)
}

func (t *sessionTable) stopJanitor() {
	j := &t.janitor
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

func (t *sessionTable) runJanitor(stop, done chan struct{}) {
	defer close(done)
	ticker := time.NewTicker(t.tickEvery())
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ticker.C:
			t.tick()
		}
	}
}

// tick is one round of the janitor.
func (t *sessionTable) tick() {
	now := time.Now()
	prev := t.janitor.last
	t.janitor.last = now
	t.mu.RLock()
	list := make([]*session, 0, len(t.byID))
	for _, sess := range t.byID {
		list = append(list, sess)
	}
	t.mu.RUnlock()
	var keep []*session
	for _, sess := range list {
		if t.idle(sess, now) {
			if t.opts.shared {
				// Idle here is not idle everywhere: with a shared store the
				// client may be busy on other replicas. Forget the local copy
				// only; the store expires the session after SessionIdleTimeout
				// without a request on any replica.
				t.logger.Debug("session idle on this replica", slog.String("session", sess.id))
				t.dropLocal(sess)
				continue
			}
			t.logger.Debug("session expired", slog.String("session", sess.id))
			t.endSession(t.base, sess)
			continue
		}
		if t.opts.shared && sess.kept.Load() <= prev.UnixNano() && sess.connected() {
			keep = append(keep, sess) // no request restarted its expiry since the previous tick
		}
		if t.opts.keepAlive > 0 {
			t.keepAlive(sess)
		}
		if t.opts.bus != nil {
			sess.forgetNoGET()
		}
	}
	t.keepSessions(keep, now)
	if sw, ok := t.pending.(interface{ Sweep() }); ok {
		sw.Sweep()
	}
	if t.onTick != nil {
		t.onTick()
	}
}

// tickEvery is the janitor's interval.
func (t *sessionTable) tickEvery() time.Duration {
	if t.opts.keepAlive <= 0 {
		return time.Minute
	}
	return t.opts.keepAlive
}

// keepSessions restarts the idle expiry in a shared store of the sessions
// whose client holds a connection open but sent no request since the last
// tick: a client that is there, and whose session must not expire for it.
// A session the store no longer has ended elsewhere (a deletion whose
// announcement was lost): it ends here too.
func (t *sessionTable) keepSessions(list []*session, now time.Time) {
	keeper, ok := t.store.(SessionKeeper)
	if !ok || len(list) == 0 {
		return
	}
	ids := make([]string, len(list))
	for i, sess := range list {
		ids[i] = sess.id
	}
	ctx, cancel := context.WithTimeout(t.base, t.tickEvery())
	gone, err := keeper.Keep(ctx, ids)
	cancel()
	if err != nil {
		t.logger.Warn("restarting the idle expiry of connected sessions", "sessions", len(ids), "error", err)
		return // the next tick tries again
	}
	for _, sess := range list {
		sess.kept.Store(now.UnixNano())
	}
	for _, id := range gone {
		if sess := t.heldSession(id); sess != nil {
			t.endedElsewhere(sess)
		}
	}
}

// idle reports whether a session's client has shown no sign of life for
// SessionIdleTimeout: no request, no answer, and no connection still open. A
// call still running does not keep it alive (its client may be gone for
// good, and a disconnect alone is not a cancellation); ending the session
// ends such calls.
func (t *sessionTable) idle(sess *session, now time.Time) bool {
	d := t.opts.idleTimeout
	if d < 0 || now.Sub(time.Unix(0, sess.lastSeen.Load())) < d {
		return false
	}
	return !sess.connected()
}

// keepAlive pings the session's GET stream when a client is attached to it.
// The previous ping, if still unanswered, expires (a late answer gets
// "request expired"), whether or not the stream is still attached; an
// answered one is done with. Nothing else happens to the session. A ping
// is not kept for Last-Event-ID: a resumed stream need not repeat it.
func (t *sessionTable) keepAlive(sess *session) {
	sess.mu.Lock()
	st := sess.standalone
	var prev json.RawMessage
	if x := sess.extra; x != nil {
		prev, x.pingID = x.pingID, nil
	}
	sess.mu.Unlock()
	ctx := context.WithoutCancel(sess.ctx)
	if prev != nil {
		// Also when the stream is gone: its wait must end.
		t.pending.Expire(ctx, sess.id, prev, true)
	}
	if st == nil || !st.attached() {
		return
	}
	id := sess.ids.next()
	data, _ := encodeRequest(id, methodPing, nil)
	_ = t.pending.Register(ctx, sess.id, id, func(Answer) { sess.pingAnswered(id) })
	sess.mu.Lock()
	sess.more().pingID = id
	sess.mu.Unlock()
	if !st.q.tryPush(frame{data: data, unstored: true}) {
		sess.pingAnswered(id)
		t.pending.Expire(ctx, sess.id, id, false)
		return
	}
	t.logger.LogAttrs(ctx, slog.LevelDebug, "outbound request", slog.String("session", sess.id),
		slog.String("method", methodPing), slog.String("id", string(json.RawMessage(id))),
		slog.String("route", routeName(st)), slog.String("outcome", "sent"))
}

// pingAnswered forgets the outstanding keep-alive ping id: answered (or
// never sent), it must not be expired at the next tick.
func (sess *session) pingAnswered(id json.RawMessage) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if x := sess.extra; x != nil && bytes.Equal(x.pingID, id) {
		x.pingID = nil
	}
}
