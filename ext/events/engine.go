package events

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// Engine serves the events extension: the registry of event types, poll,
// push streams, webhook subscriptions and their delivery, and Emit. It is
// transport-free: the extension's method rows call it with the request's
// caller and params, and write what it returns. One Engine per server
// process; replicas share its Store.
type Engine struct {
	o       Options
	codes   Codes
	store   Store
	cursors cursorCodec
	log     *slog.Logger
	owner   string // this process in claims and watches
	client  *callbackClient

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	wake   chan struct{} // a delivery was queued here
	slots  chan struct{} // Webhook.Workers

	mu             sync.Mutex
	types          map[string]*eventType
	names          []string // sorted
	hubs           map[string]*hub
	streams        map[string]int // principal key -> open push streams
	nstreams       int
	leases         map[string]*pollLease
	pleases        map[string]int // principal key -> poll leases
	watches        map[string]*watch
	webhooks       map[string]*webhookCache
	verifies       map[string][]time.Time // callback host -> recent handshakes
	trackedStreams map[*Stream]*tracked
	closed         bool
	changed        func()

	tick time.Duration // maintenance period; tests shorten it
}

// Caller is who makes a request, as the runtime knows them.
type Caller struct {
	// Principal is who the request's token speaks for; nil without Auth
	// (and over stdio). Webhook subscriptions need one.
	Principal *runtime.Principal
	// Allowed reports whether the caller holds scopes; nil allows all.
	Allowed func(scopes []string) bool
	// Filtered hides, in events/list, the types the caller may not use.
	Filtered bool
	// Key is who the request is charged to when it has no principal
	// (runtime.MethodRequest.Caller: its client's address, or its stdio
	// connection): unauthenticated callers then hold poll leases and push
	// streams of their own, each its CallerShare, instead of one share
	// for all of them. A principal, when there is one, is the key.
	Key string
}

// key is the caller's key in the engine's shares and in the ids of its
// poll and push subscriptions: its principal's digest, else a digest of
// Key, else "" (everyone without either shares one).
func (c *Caller) key() string {
	switch {
	case c == nil:
		return ""
	case c.Principal != nil:
		return principalKey(c.Principal)
	case c.Key != "":
		sum := sha256.Sum256([]byte("caller\x00" + c.Key))
		return "c:" + base64.RawURLEncoding.EncodeToString(sum[:16])
	}
	return ""
}

func (c *Caller) allowed(scopes []string) bool {
	return c == nil || len(scopes) == 0 || c.Allowed == nil || c.Allowed(scopes)
}

func (c *Caller) principal() *runtime.Principal {
	if c == nil {
		return nil
	}
	return c.Principal
}

// New returns an Engine serving types. Close it on shutdown.
func New(opts Options, types ...EventType) (*Engine, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	e := &Engine{
		o: opts, codes: opts.Codes, store: opts.Store, cursors: cursorCodec{key: opts.CursorKey},
		log: opts.Logger, owner: randomToken(8),
		wake: make(chan struct{}, 1), slots: make(chan struct{}, opts.Webhook.Workers),
		types: map[string]*eventType{}, hubs: map[string]*hub{},
		streams: map[string]int{}, leases: map[string]*pollLease{}, pleases: map[string]int{},
		watches: map[string]*watch{}, webhooks: map[string]*webhookCache{}, verifies: map[string][]time.Time{},
		tick: opts.tick,
	}
	if e.tick <= 0 {
		e.tick = time.Second
	}
	e.client = newCallbackClient(&e.o.Webhook)
	e.ctx, e.cancel = context.WithCancel(context.Background())
	for _, t := range types {
		if err := e.add(t); err != nil {
			e.closeHubs()
			return nil, err
		}
	}
	e.wg.Add(2)
	go e.maintain()
	go e.deliverLoop()
	return e, nil
}

// Add adds an event type while the engine runs (events/list shows it, and
// OnListChanged is told).
func (e *Engine) Add(t EventType) error {
	if err := e.add(t); err != nil {
		return err
	}
	e.mu.Lock()
	fn := e.changed
	e.mu.Unlock()
	if fn != nil {
		fn()
	}
	return nil
}

func (e *Engine) add(t EventType) error {
	x, err := compileType(t, &e.o)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	if _, dup := e.types[x.Name]; dup {
		return fmt.Errorf("event type %q is declared twice", x.Name)
	}
	h := &hub{e: e, t: x, streams: map[*Stream]struct{}{}}
	stop, err := e.store.Listen(x.Name, h.onEntry)
	if err != nil {
		return fmt.Errorf("event type %q: listening to its log: %w", x.Name, err)
	}
	h.stop = stop
	e.types[x.Name] = x
	e.hubs[x.Name] = h
	e.names = append(e.names, x.Name)
	sort.Strings(e.names)
	return nil
}

// OnListChanged sets fn to be told when the set of event types changes
// (to send notifications/events/list_changed).
func (e *Engine) OnListChanged(fn func()) {
	e.mu.Lock()
	e.changed = fn
	e.mu.Unlock()
}

// Settings is the extension's value in capabilities.extensions.
func (e *Engine) Settings() json.RawMessage { return json.RawMessage(`{"listChanged":true}`) }

// Scopes returns the scopes event type name requires (nil for an unknown
// type), for the method rows' authorization rules.
func (e *Engine) Scopes(name string) []string {
	if t := e.lookup(name); t != nil {
		return t.Scopes
	}
	return nil
}

func (e *Engine) lookup(name string) *eventType {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.types[name]
}

// Close stops delivery, watches and streams. Deliveries in flight finish
// or are left to another replica when their claim lapses.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	e.cancel()
	e.wg.Wait()
	e.closeHubs()
	e.client.close()
	return nil
}

func (e *Engine) closeHubs() {
	e.mu.Lock()
	hubs := make([]*hub, 0, len(e.hubs))
	for _, h := range e.hubs {
		hubs = append(hubs, h)
	}
	e.mu.Unlock()
	for _, h := range hubs {
		if h.stop != nil {
			h.stop()
		}
		h.closeAll()
	}
}

// List answers events/list: one page of descriptors, in name order.
func (e *Engine) List(ctx context.Context, c *Caller, p ListParams) (*ListResult, error) {
	const pageSize = 100
	e.mu.Lock()
	var visible []*eventType
	for _, n := range e.names {
		t := e.types[n]
		if c != nil && c.Filtered && !c.allowed(t.Scopes) {
			continue
		}
		visible = append(visible, t)
	}
	e.mu.Unlock()
	start := 0
	if p.Cursor != "" {
		// A cursor is the last name of the page before (types are never
		// removed): anything else was not issued to this caller.
		i := sort.Search(len(visible), func(i int) bool { return visible[i].Name >= p.Cursor })
		if i == len(visible) || visible[i].Name != p.Cursor {
			return nil, invalidParams("the list cursor %q is not one this server issued", p.Cursor)
		}
		start = i + 1
	}
	res := &ListResult{Events: []Descriptor{}}
	for _, t := range visible[start:min(len(visible), start+pageSize)] {
		res.Events = append(res.Events, t.descriptor)
	}
	if start+pageSize < len(visible) {
		res.NextCursor = visible[start+pageSize-1].Name
	}
	return res, nil
}

// resolve finds the event type a request names and checks that the caller
// may use it in mode: NotFound, Unsupported or Forbidden otherwise.
func (e *Engine) resolve(c *Caller, name string, mode Mode) (*eventType, error) {
	if name == "" {
		return nil, invalidParams("name is required: the event type to subscribe to")
	}
	t := e.lookup(name)
	if t == nil || c != nil && c.Filtered && !c.allowed(t.Scopes) {
		return nil, e.codes.notFound("event", fmt.Sprintf("no event type named %q (events/list lists them)", name))
	}
	if !c.allowed(t.Scopes) {
		return nil, e.codes.forbidden(fmt.Sprintf("subscribing to %q needs the scopes %v", name, t.Scopes))
	}
	if !t.modes[mode] {
		return nil, e.codes.unsupported("deliveryMode", string(mode), fmt.Sprintf("event type %q does not offer %s delivery (it offers %v)", name, mode, t.descriptor.Delivery))
	}
	return t, nil
}

// arguments canonicalizes and validates a request's arguments.
func (e *Engine) arguments(t *eventType, raw json.RawMessage) (json.RawMessage, error) {
	args, err := canonicalArguments(raw)
	if err != nil {
		return nil, invalidParams("arguments: %v", err)
	}
	if err := validate(t.input, args); err != nil {
		return nil, invalidParams("arguments do not match the inputSchema of %q: %v", t.Name, err)
	}
	return args, nil
}

// accept runs the Subscribe hook: the arguments to match with, or the
// refusal the client sees.
func (e *Engine) accept(ctx context.Context, t *eventType, s *Subscription) error {
	s.Effective = s.Arguments
	if t.Hooks.Subscribe == nil {
		return nil
	}
	var narrowed json.RawMessage
	err := e.safely("Subscribe", t.Name, func() error {
		var err error
		narrowed, err = t.Hooks.Subscribe(ctx, s)
		return err
	})
	if err != nil {
		if r, ok := err.(*Refusal); ok {
			return e.codes.forbidden(r.Reason)
		}
		if re, ok := err.(*runtime.Error); ok {
			return re
		}
		e.log.Warn("events: a Subscribe hook failed", "type", t.Name, "err", err)
		return e.codes.forbidden("the server refused the subscription")
	}
	if narrowed != nil {
		eff, err := canonicalArguments(narrowed)
		if err != nil {
			e.log.Error("events: a Subscribe hook narrowed to invalid arguments", "type", t.Name, "err", err)
			return e.codes.forbidden("the server refused the subscription")
		}
		s.Effective = eff
	}
	return nil
}

// safely runs a hook, turning a panic into an error.
func (e *Engine) safely(hook, typ string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("events: a hook panicked", "hook", hook, "type", typ, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("the %s hook of %q panicked", hook, typ)
		}
	}()
	return fn()
}

// ended tells the Ended hook, safely, in the background.
func (e *Engine) ended(t *eventType, s *Subscription, why EndReason) {
	if t == nil || t.Hooks.Ended == nil {
		return
	}
	e.safely("Ended", t.Name, func() error { t.Hooks.Ended(e.ctx, s, why); return nil })
}

// matches applies a subscription's audience: a targeted entry reaches only
// its subscription, a broadcast every one Match admits.
func (e *Engine) matches(ctx context.Context, t *eventType, s *Subscription, entry *LogEntry) (*Event, bool) {
	if entry.To != "" && entry.To != s.ID {
		return nil, false
	}
	ev := &Event{ID: entry.EventID, Time: time.UnixMilli(entry.Time), Data: entry.Data}
	if entry.To != "" || t.Hooks.Match == nil {
		return ev, true
	}
	ok := false
	e.safely("Match", t.Name, func() error { ok = t.Hooks.Match(ctx, s, ev); return nil })
	return ev, ok
}

// shape returns the data s receives of ev: Transform's, validated, or
// the event's own.
func (e *Engine) shape(ctx context.Context, t *eventType, s *Subscription, ev *Event) (json.RawMessage, bool) {
	if t.Hooks.Transform == nil {
		return ev.Data, true
	}
	var data json.RawMessage
	err := e.safely("Transform", t.Name, func() error {
		var err error
		data, err = t.Hooks.Transform(ctx, s, ev)
		return err
	})
	if err == nil && len(data) > e.o.MaxEventBytes {
		err = fmt.Errorf("the transformed payload is %d bytes, beyond MaxEventBytes (%d)", len(data), e.o.MaxEventBytes)
	}
	if err == nil {
		err = validate(t.payload, data)
	}
	if err != nil {
		e.log.Error("events: Transform failed; the event is not delivered to this subscription", "type", t.Name, "subscription", s.ID, "event", ev.ID, "err", err)
		return nil, false
	}
	return data, true
}

// start resolves where a subscription resumes from a client's cursor:
// the position after which it delivers, and whether events were skipped.
// A forged cursor is InvalidParams.
func (e *Engine) start(ctx context.Context, t *eventType, cursor *string) (position, bool, error) {
	head, err := e.store.Head(ctx, t.Name, t.limits())
	if err != nil {
		return position{}, false, e.unavailable(err)
	}
	now := position{epoch: head.Epoch, seq: head.Head}
	if t.NoReplay || cursor == nil {
		return now, false, nil
	}
	p, err := e.cursors.decode(t.Name, *cursor)
	if err != nil {
		return position{}, false, invalidParams("cursor: %v", err)
	}
	switch {
	case p.epoch != head.Epoch || p.seq > head.Head:
		// A log that is gone (a restart without a shared store, a flushed
		// store): resume from now, and say events may have been missed.
		return now, true, nil
	case p.seq < head.Trimmed:
		return position{epoch: head.Epoch, seq: head.Trimmed}, true, nil
	}
	return p, false, nil
}

func (e *Engine) cursor(t *eventType, p position) *string {
	if t.NoReplay {
		return nil
	}
	return e.cursors.encode(t.Name, p)
}

// unavailable is a store failure as the client sees it: nothing internal.
func (e *Engine) unavailable(err error) error {
	e.log.Error("events: the store failed", "err", err)
	return &runtime.Error{Code: runtime.CodeInternalError, Message: "the event store is unavailable; try again"}
}
