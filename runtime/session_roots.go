package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
)

// rootsCache is a legacy session's fetching of its client's roots (the
// list itself is SessionState.Roots, in the store replicas share). A fetch
// is a roots/list on the session's GET stream (the stdio connection over
// stdio), after notifications/initialized and after each
// notifications/roots/list_changed. Fetches are coalesced: one runs at a
// time, and changes announced while it runs make one more afterwards, not
// one each.
type rootsCache struct {
	running bool          // a fetch runs (under sess.mu)
	again   bool          // a change was announced while it ran: fetch once more
	sent    bool          // the running fetch's request reached the client: a call waits for its answer
	sentCh  chan struct{} // closed when sent becomes true
	done    chan struct{} // closed when the running fetch ends
	wg      sync.WaitGroup
}

// rootsCacheOf returns the session's rootsCache, allocating it; sess.mu is
// held.
func (sess *session) rootsCacheOf() *rootsCache {
	if sess.rootsFetch == nil {
		sess.rootsFetch = &rootsCache{}
	}
	return sess.rootsFetch
}

// refetchRoots starts a fetch of the client's roots unless one runs; then
// it asks for one more when that ends. It never blocks its caller (the
// notification's 202 waits for nothing). A client that declared no roots
// capability is not asked.
func (sess *session) refetchRoots() {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.caps.Roots == nil || sess.closed {
		return
	}
	rc := sess.rootsCacheOf()
	if rc.running {
		rc.again = true
		return
	}
	rc.running, rc.sent, rc.sentCh, rc.done = true, false, make(chan struct{}), make(chan struct{})
	rc.wg.Add(1)
	go sess.fetchRoots(rc)
}

// fetchRoots runs fetches until no change was announced during the last
// one. Each is bounded: by the wait for a route to the client
// (Options.FallbackWait), by Options.RequestTimeout for the answer, and by
// the session's end.
func (sess *session) fetchRoots(rc *rootsCache) {
	defer rc.wg.Done()
	for {
		sess.fetchRootsOnce(rc)
		sess.mu.Lock()
		if rc.again && !sess.closed {
			rc.again, rc.sent = false, false
			close(rc.done)
			rc.done, rc.sentCh = make(chan struct{}), make(chan struct{})
			sess.mu.Unlock()
			continue
		}
		rc.running, rc.again = false, false
		close(rc.done)
		sess.mu.Unlock()
		return
	}
}

func (sess *session) fetchRootsOnce(rc *rootsCache) {
	ctx := sess.ctx
	snd := requestScopedSender{sess: sess, origin: sess.stdioOutput(), sent: func() {
		sess.mu.Lock()
		if !rc.sent {
			rc.sent = true
			close(rc.sentCh)
		}
		sess.mu.Unlock()
	}}
	raw, err := sess.outbound(ctx, &snd, nil, methodListRoots, struct{}{})
	var res struct {
		Roots []Root `json:"roots"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	if err == nil {
		sess.keepRoots(ctx, res.Roots)
		return
	}
	switch {
	case ctx.Err() != nil: // the session ended
	case errors.Is(err, errNoRoute):
		// A client that opens no GET stream: common, and no fault. The
		// list stays as it is (stale, or none), and a call asks on its own
		// stream and keeps what it hears.
		sess.table.logger.Debug("the client's roots were not fetched: no GET stream opened; calls will ask for them", "session", sess.id)
	default:
		sess.table.logger.Info("fetching the client's roots failed; calls will ask for them", "session", sess.id, "error", err)
	}
}

// keepRoots stores list as the session's roots, within
// Options.MaxClientDataBytes, and tells Options.RootsChanged when it
// differs from the list held before.
func (sess *session) keepRoots(ctx context.Context, list []Root) {
	if list == nil {
		list = []Root{}
	}
	if b, _ := json.Marshal(list); len(b) > sess.table.opts.maxClientDataBytes {
		sess.table.logger.Warn("the client's roots are not kept: they exceed Options.MaxClientDataBytes; each call asks for them",
			"session", sess.id, "bytes", len(b), "roots", len(list))
		return
	}
	var prev []Root
	var known bool
	err := sess.update(ctx, func(st *SessionState) {
		prev, known = st.Roots, st.RootsKnown
		st.Roots, st.RootsKnown, st.RootsStale = list, true, false
	})
	if err != nil {
		sess.table.logger.Warn("saving the client's roots", "session", sess.id, "error", err)
		return
	}
	if known && sameRoots(prev, list) {
		return
	}
	hook := sess.table.opts.rootsChanged
	if hook == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			sess.table.logger.Error("Options.RootsChanged panicked", "session", sess.id, "panic", r)
		}
	}()
	hook(context.WithoutCancel(ctx), RootsChange{SessionID: sess.id, Roots: slices.Clone(list), Previous: prev, First: !known})
}

// roots is the session's list for a call (rootsSource): the one held, once
// a fetch whose request reached the client has its answer; otherwise the
// answer of ask, which is kept. A fetch that has a route here (the stdio
// connection, a GET stream attached to this process) is about to reach the
// client, so the call waits for it; one still waiting for a route might
// wait Options.FallbackWait, so the call asks on its own stream instead.
func (sess *session) roots(ctx context.Context, ask func(context.Context) ([]Root, error)) ([]Root, error) {
	sess.mu.Lock()
	var sent, done chan struct{}
	if rc := sess.rootsFetch; rc != nil && rc.running {
		done = rc.done
		if !rc.sent && (sess.stdioOut != nil || sess.standalone != nil && sess.standalone.attached()) {
			sent = rc.sentCh
		} else if !rc.sent {
			done = nil
		}
	}
	sess.mu.Unlock()
	if sent != nil {
		select {
		case <-sent:
		case <-done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	sess.mu.Lock()
	list, fresh := sess.state.Roots, sess.state.RootsKnown && !sess.state.RootsStale
	sess.mu.Unlock()
	if fresh {
		return list, nil
	}
	list, err := ask(ctx)
	if err != nil {
		return nil, err
	}
	sess.keepRoots(ctx, list)
	return list, nil
}

// waitRootsFetch waits for the session's fetch to end (it ends with the
// session): the process leaves no goroutine behind.
func (sess *session) waitRootsFetch() {
	sess.mu.Lock()
	rc := sess.rootsFetch
	sess.mu.Unlock()
	if rc != nil {
		rc.wg.Wait()
	}
}

// logRootsIgnored says why a notifications/roots/list_changed is not acted
// on: the client declared no roots capability.
func (sess *session) logRootsIgnored(ctx context.Context) {
	if sess.table.logger.Enabled(ctx, slog.LevelDebug) {
		sess.table.logger.LogAttrs(ctx, slog.LevelDebug, "notifications/roots/list_changed ignored: the client declared no roots capability",
			slog.String("session", sess.id))
	}
}
