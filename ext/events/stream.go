package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Push: an events/stream request holds a Stream for its lifetime. The
// method row (the runtime's long-lived stream) writes what Next returns
// until the client goes away, then calls Close. Each type has one hub per
// process: the store's Listen hands it every entry appended on any replica
// and it offers each to the streams it holds, without blocking. A stream
// that falls StreamBuffer entries behind, or whose hub saw it miss one,
// reads the log from its own position instead, so a slow client loses
// nothing that retention still has.

// ErrStreamClosed: Next was called on a closed stream.
var ErrStreamClosed = errors.New("events: the stream is closed")

// Notification is one message a stream sends: Method and its Params, ready
// to encode (Params carries the stream's _meta).
type Notification struct {
	Method string
	Params any
}

// EventParams are the params of notifications/events/event.
type EventParams struct {
	Occurrence
	Meta StreamMeta `json:"_meta"`
}

type hub struct {
	e       *Engine
	t       *eventType
	stop    func()
	mu      sync.Mutex
	streams map[*Stream]struct{}
	last    uint64 // the last sequence offered
}

// onEntry is the store's Listen callback.
func (h *hub) onEntry(entry LogEntry, prev uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.t.NoReplay {
		if entry.Seq <= h.last {
			return // already offered (our own append, or a late duplicate)
		}
		if prev != 0 && h.last != 0 && prev != h.last {
			// Something between h.last and entry was not offered: every
			// stream reads the log from its own position.
			for s := range h.streams {
				s.lag()
			}
		}
		h.last = entry.Seq
	}
	if len(h.streams) == 0 {
		return
	}
	shared := &liveEntry{LogEntry: entry}
	for s := range h.streams {
		s.offer(shared)
	}
}

// liveEntry is one entry as a hub offers it to all its streams: what they
// all derive from it alike (its cursor, its timestamp) is made once.
type liveEntry struct {
	LogEntry
	once   sync.Once
	epoch  string
	cursor *string
	ts     string
}

func (l *liveEntry) derived(s *Stream) (*string, string) {
	l.once.Do(func() {
		l.epoch = s.at.epoch
		l.cursor = s.e.cursor(s.t, position{epoch: s.at.epoch, seq: l.Seq})
		l.ts = timestamp(time.UnixMilli(l.Time))
	})
	if l.epoch != s.at.epoch {
		return s.e.cursor(s.t, s.at), l.ts
	}
	return l.cursor, l.ts
}

func (h *hub) add(s *Stream) {
	h.mu.Lock()
	h.streams[s] = struct{}{}
	h.mu.Unlock()
}

func (h *hub) remove(s *Stream) {
	h.mu.Lock()
	delete(h.streams, s)
	h.mu.Unlock()
}

func (h *hub) closeAll() {
	h.mu.Lock()
	var all []*Stream
	for s := range h.streams {
		all = append(all, s)
	}
	h.mu.Unlock()
	for _, s := range all {
		s.shutdown()
	}
}

// Stream is one push subscription: an events/stream request.
type Stream struct {
	e    *Engine
	t    *eventType
	sub  *Subscription
	meta StreamMeta
	pk   string

	mu      sync.Mutex
	live    chan *liveEntry
	lagging bool // read the log instead of live
	missed  bool // without replay: live entries were dropped
	closed  bool
	done    chan struct{}
	notify  chan struct{}

	// The reader's state (Next is called by one goroutine).
	at      position
	active  *ActiveParams
	backlog []LogEntry
	floor   int64 // maxAgeMs floor of the first replay
	beat    *time.Timer
	once    sync.Once
}

// OpenStream answers an events/stream request: it checks the
// subscription (an invalid one is the request's error, and no stream
// opens) and returns the Stream whose first notification is the
// confirmation. id is the request's JSON-RPC id, which every notification
// carries in its _meta.
func (e *Engine) OpenStream(ctx context.Context, c *Caller, id json.RawMessage, p StreamParams) (*Stream, error) {
	t, err := e.resolve(c, p.Name, ModePush)
	if err != nil {
		return nil, err
	}
	args, err := e.arguments(t, p.Arguments)
	if err != nil {
		return nil, err
	}
	if p.MaxAgeMs != nil && *p.MaxAgeMs < 0 {
		return nil, invalidParams("maxAgeMs must not be negative")
	}
	pk := c.key()
	if err := e.holdStream(pk); err != nil {
		return nil, err
	}
	s := &Stream{e: e, t: t, pk: pk, meta: StreamMeta{SubscriptionID: append(json.RawMessage(nil), id...)},
		live: make(chan *liveEntry, e.o.StreamBuffer), done: make(chan struct{}), notify: make(chan struct{}, 1)}
	s.sub = &Subscription{ID: subscriptionID(pk, "", t.Name, args), Name: t.Name, Mode: ModePush, Principal: c.principal(), Arguments: args}
	if err := e.accept(ctx, t, s.sub); err != nil {
		e.releaseStream(pk)
		return nil, err
	}
	// Listen before reading where to start, so nothing falls in between;
	// entries at or before the start are skipped by sequence.
	h := e.hub(t.Name)
	s.lagging = p.Cursor != nil && !t.NoReplay
	h.add(s)
	from, truncated, err := e.start(ctx, t, p.Cursor)
	if err != nil {
		h.remove(s)
		e.releaseStream(pk)
		return nil, err
	}
	s.at = from
	if p.MaxAgeMs != nil && p.Cursor != nil {
		s.floor = e.o.Now().UnixMilli() - *p.MaxAgeMs
		// Look at the first stretch now, so the confirmation can say
		// whether the floor skipped anything.
		if page, err := e.store.Read(ctx, t.Name, t.limits(), from.seq, e.o.StreamBuffer); err == nil && page.Epoch == from.epoch {
			for _, entry := range page.Entries {
				if entry.Time < s.floor {
					truncated = true
					s.at.seq = entry.Seq
					continue
				}
				s.backlog = append(s.backlog, entry)
			}
		}
	}
	s.active = &ActiveParams{Cursor: e.cursor(t, s.at), Truncated: truncated, Meta: s.meta}
	key := "s:" + randomToken(8)
	s.beat = time.NewTimer(e.o.Heartbeat)
	e.trackStream(t.Name, key, s)
	return s, nil
}

func (e *Engine) hub(name string) *hub {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hubs[name]
}

func (e *Engine) holdStream(pk string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	total, share := int64(e.o.MaxStreams), e.o.share(int64(e.o.MaxStreams))
	switch {
	case e.closed:
		return ErrClosed
	case int64(e.nstreams) >= total:
		return e.codes.exhausted("subscriptions", "MaxStreams", total, fmt.Sprintf("this server holds %d push streams already (MaxStreams)", total))
	case int64(e.streams[pk]) >= share:
		return e.codes.exhausted("subscriptions", "MaxStreams", share, fmt.Sprintf("this caller holds %d push streams already, its share of MaxStreams", share))
	}
	e.nstreams++
	e.streams[pk]++
	return nil
}

func (e *Engine) releaseStream(pk string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nstreams--
	if e.streams[pk]--; e.streams[pk] <= 0 {
		delete(e.streams, pk)
	}
}

// Subscription is the stream's subscription (for a targeted Emit).
func (s *Stream) Subscription() *Subscription { return s.sub }

// Result is the final frame to send when the server ends the stream.
func (s *Stream) Result() StreamResult { return StreamResult{Meta: s.meta} }

func (s *Stream) offer(entry *liveEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.lagging {
		return
	}
	select {
	case s.live <- entry:
		return
	default:
		if s.t.NoReplay {
			s.missed = true
		} else {
			s.lagging = true
		}
	}
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *Stream) lag() {
	s.mu.Lock()
	if !s.closed {
		s.lagging = true
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Next returns the stream's next notification: the confirmation first,
// then events as they match, a heartbeat when it has been quiet for
// Options.Heartbeat, and notifications/events/error when events were
// skipped. It blocks until there is one, ctx ends (ctx's error) or the
// stream closes (ErrStreamClosed).
func (s *Stream) Next(ctx context.Context) (Notification, error) {
	select {
	case <-s.done:
		return Notification{}, ErrStreamClosed
	default:
	}
	if a := s.active; a != nil {
		s.active = nil
		return Notification{Method: NotificationActive, Params: a}, nil
	}
	for {
		if n, ok, err := s.fromBacklog(ctx); err != nil || ok {
			return n, err
		}
		s.mu.Lock()
		closed, lagging, missed := s.closed, s.lagging, s.missed
		s.missed = false
		s.mu.Unlock()
		switch {
		case closed:
			return Notification{}, ErrStreamClosed
		case missed:
			err := s.e.codes.exhausted("streamBuffer", "StreamBuffer", int64(s.e.o.StreamBuffer), "this stream fell behind and events of a type without replay were skipped")
			return Notification{Method: NotificationError, Params: &ErrorParams{Error: wireError(err), Meta: s.meta}}, nil
		case lagging:
			if n, ok, err := s.catchUp(ctx); err != nil || ok {
				return n, err
			}
			continue
		}
		select {
		case entry := <-s.live:
			if n, ok := s.deliver(ctx, &entry.LogEntry, entry); ok {
				return n, nil
			}
		case <-s.notify:
		case <-s.beat.C:
			s.beat.Reset(s.e.o.Heartbeat)
			return Notification{Method: NotificationHeartbeat, Params: &HeartbeatParams{Cursor: s.e.cursor(s.t, s.at), Meta: s.meta}}, nil
		case <-s.done:
			return Notification{}, ErrStreamClosed
		case <-ctx.Done():
			return Notification{}, ctx.Err()
		}
	}
}

func (s *Stream) fromBacklog(ctx context.Context) (Notification, bool, error) {
	for len(s.backlog) > 0 {
		entry := s.backlog[0]
		s.backlog = s.backlog[1:]
		if n, ok := s.deliver(ctx, &entry, nil); ok {
			return n, true, nil
		}
	}
	return Notification{}, false, nil
}

// catchUp reads the log from the stream's position. It clears lagging
// before it reads, so what arrives live from then on is kept (and what the
// read returns as well is skipped by sequence); a full page leaves it
// lagging, to read on.
func (s *Stream) catchUp(ctx context.Context) (Notification, bool, error) {
	s.setLagging(false)
	page, err := s.e.store.Read(ctx, s.t.Name, s.t.limits(), s.at.seq, s.e.o.StreamBuffer)
	if err != nil {
		s.setLagging(true)
		if ctx.Err() != nil {
			return Notification{}, false, ctx.Err()
		}
		s.e.log.Warn("events: a stream could not read the log; it retries", "type", s.t.Name, "err", err)
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return Notification{}, false, ctx.Err()
		case <-s.done:
		}
		return Notification{}, false, nil
	}
	if page.Epoch != s.at.epoch {
		s.at = position{epoch: page.Epoch, seq: page.Head}
		return Notification{Method: NotificationActive, Params: &ActiveParams{Cursor: s.e.cursor(s.t, s.at), Truncated: true, Meta: s.meta}}, true, nil
	}
	if s.at.seq < page.Trimmed {
		s.at.seq = page.Trimmed
		s.setLagging(true)
		return Notification{Method: NotificationActive, Params: &ActiveParams{Cursor: s.e.cursor(s.t, s.at), Truncated: true, Meta: s.meta}}, true, nil
	}
	if len(page.Entries) == s.e.o.StreamBuffer {
		s.setLagging(true)
	}
	s.backlog = page.Entries
	return s.fromBacklog(ctx)
}

func (s *Stream) setLagging(v bool) {
	s.mu.Lock()
	s.lagging = v
	s.mu.Unlock()
}

// deliver turns an entry into the stream's next event, or skips it (not
// after the position, not for this subscription). Either way the position
// moves past it, so heartbeats carry a cursor that advances.
func (s *Stream) deliver(ctx context.Context, entry *LogEntry, shared *liveEntry) (Notification, bool) {
	if !s.t.NoReplay {
		if entry.Seq <= s.at.seq {
			return Notification{}, false
		}
		s.at.seq = entry.Seq
	}
	if s.floor != 0 && entry.Time < s.floor {
		return Notification{}, false
	}
	ev, ok := s.e.matches(ctx, s.t, s.sub, entry)
	if !ok {
		return Notification{}, false
	}
	data, ok := s.e.shape(ctx, s.t, s.sub, ev)
	if !ok {
		return Notification{}, false
	}
	s.beat.Reset(s.e.o.Heartbeat)
	var cursor *string
	var ts string
	if shared != nil {
		cursor, ts = shared.derived(s)
	} else {
		cursor, ts = s.e.cursor(s.t, s.at), timestamp(ev.Time)
	}
	return Notification{Method: NotificationEvent, Params: &EventParams{
		Occurrence: Occurrence{EventID: entry.EventID, Name: s.t.Name, Timestamp: ts, Data: data, Cursor: cursor},
		Meta:       s.meta,
	}}, true
}

// Close ends the stream (the client went away or cancelled): it releases
// its bounds and tells the Ended hook.
func (s *Stream) Close() {
	if s.shutdown() {
		s.e.ended(s.t, s.sub, EndClosed)
	}
}

func (s *Stream) shutdown() bool {
	first := false
	s.once.Do(func() {
		first = true
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.done)
		s.beat.Stop()
		if h := s.e.hub(s.t.Name); h != nil {
			h.remove(s)
		}
		s.e.releaseStream(s.pk)
		s.e.untrackStream(s)
	})
	return first
}
