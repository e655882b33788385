package events

import (
	"context"
	"time"
)

// Who watches a type's upstream: every subscription (a push stream, a poll
// lease, a webhook subscription) is an interest the store keeps with an
// expiry, renewed while it lives. Each process asks the store, once a tick
// and whenever an interest appears here, whether it should watch a type:
// the store hands the watch to one process while any interest lives and
// takes it back when none does, or when its holder stops renewing (it
// died). So the handler's Watch runs on one replica at a time, starts with
// the first subscription anywhere and stops after the last.

// streamInterest is how long a stream's interest outlives its last renewal
// (a replica that dies without closing its streams).
const streamInterest = 30 * time.Second

// watchTTL is how long a watch outlives its holder's last renewal.
const watchTTL = 10 * time.Second

type watch struct {
	cancel context.CancelFunc
	done   chan struct{}
}

type tracked struct {
	typ, key string
	renewed  time.Time
}

func (e *Engine) trackStream(typ, key string, s *Stream) {
	now := e.o.Now()
	e.mu.Lock()
	if e.trackedStreams == nil {
		e.trackedStreams = map[*Stream]*tracked{}
	}
	e.trackedStreams[s] = &tracked{typ: typ, key: key, renewed: now}
	e.mu.Unlock()
	if err := e.store.Interest(e.ctx, typ, key, now.Add(streamInterest)); err != nil {
		e.log.Warn("events: recording a push stream", "type", typ, "err", err)
	}
	e.kickWatch(typ)
}

func (e *Engine) untrackStream(s *Stream) {
	e.mu.Lock()
	tr := e.trackedStreams[s]
	delete(e.trackedStreams, s)
	e.mu.Unlock()
	if tr != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		e.store.DropInterest(ctx, tr.typ, tr.key)
		e.kickWatch(tr.typ)
	}
}

// kickWatch reconsiders the watch of typ now rather than at the next tick.
func (e *Engine) kickWatch(typ string) {
	t := e.lookup(typ)
	if t == nil || t.Hooks.Watch == nil {
		return
	}
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if !closed {
		e.reconcileWatch(t)
	}
}

// reconcileWatch starts or stops this process's watch of t as the store
// decides.
func (e *Engine) reconcileWatch(t *eventType) {
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Second)
	mine, err := e.store.Watcher(ctx, t.Name, e.owner, e.o.Now(), watchTTL)
	cancel()
	if err != nil {
		if e.ctx.Err() == nil {
			e.log.Warn("events: deciding who watches a type; keeping things as they are", "type", t.Name, "err", err)
		}
		return
	}
	e.mu.Lock()
	w := e.watches[t.Name]
	switch {
	case mine && w == nil && !e.closed:
		ctx, cancel := context.WithCancel(e.ctx)
		w = &watch{cancel: cancel, done: make(chan struct{})}
		e.watches[t.Name] = w
		e.wg.Add(1)
		go e.runWatch(ctx, t, w)
	case !mine && w != nil:
		delete(e.watches, t.Name)
		w.cancel()
	}
	e.mu.Unlock()
}

// runWatch runs t's Watch until its context ends, again after a backoff
// when it returns early.
func (e *Engine) runWatch(ctx context.Context, t *eventType, w *watch) {
	defer e.wg.Done()
	defer close(w.done)
	backoff := time.Second
	for ctx.Err() == nil {
		err := e.safely("Watch", t.Name, func() error { return t.Hooks.Watch(ctx) })
		if ctx.Err() != nil {
			return
		}
		e.log.Warn("events: Watch returned while subscriptions remain; starting it again", "type", t.Name, "err", err, "after", backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// maintain runs once a tick: lapsed poll leases end, held streams renew
// their interest, expired webhook subscriptions are removed (on whichever
// replica gets them first), and watches are reconsidered.
func (e *Engine) maintain() {
	defer e.wg.Done()
	tick := time.NewTicker(e.tick)
	defer tick.Stop()
	for {
		select {
		case <-e.ctx.Done():
			e.stopWatches()
			return
		case <-tick.C:
		}
		now := e.o.Now()
		e.expireLeases(now)
		e.renewStreams(now)
		e.expireWebhooks(now)
		e.mu.Lock()
		var types []*eventType
		for _, n := range e.names {
			if t := e.types[n]; t.Hooks.Watch != nil {
				types = append(types, t)
			}
		}
		e.mu.Unlock()
		for _, t := range types {
			e.reconcileWatch(t)
		}
	}
}

func (e *Engine) renewStreams(now time.Time) {
	e.mu.Lock()
	var due []*tracked
	for _, tr := range e.trackedStreams {
		if now.Sub(tr.renewed) >= streamInterest/3 {
			tr.renewed = now
			due = append(due, tr)
		}
	}
	e.mu.Unlock()
	for _, tr := range due {
		e.store.Interest(e.ctx, tr.typ, tr.key, now.Add(streamInterest))
	}
}

func (e *Engine) stopWatches() {
	e.mu.Lock()
	ws := e.watches
	e.watches = map[string]*watch{}
	e.mu.Unlock()
	for _, w := range ws {
		w.cancel()
	}
}
