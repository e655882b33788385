package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// listenHub fans server events out to the open subscriptions/listen streams.
type listenHub struct {
	mu     sync.Mutex
	subs   map[*listenStream]struct{}
	closed chan struct{} // closed by shutdown: every stream ends gracefully
	once   sync.Once
}

// listenStream is one open subscriptions/listen stream.
type listenStream struct {
	filter subscriptionFilter
	wake   chan struct{} // a buffer of one: pending has something

	mu sync.Mutex
	// pending are the events not yet sent, each once: at most the three
	// list kinds plus the subscribed URIs, so the filter bounds it.
	pending []listenEvent
}

// listenEvent is one change a listen stream may announce, or a
// notification of an extension's own to every client (Host.Notify).
type listenEvent struct {
	method string
	uri    string // notifications/resources/updated only
	params string // an extension's notification: its params, encoded
}

func newListenStream(f subscriptionFilter) *listenStream {
	return &listenStream{filter: f, wake: make(chan struct{}, 1)}
}

// offer queues ev unless it is already pending: a list_changed says only
// "fetch the list again", an update "read it again", so one still queued
// covers a second one and nothing is lost by coalescing.
func (l *listenStream) offer(ev listenEvent) {
	l.mu.Lock()
	if !slices.Contains(l.pending, ev) {
		l.pending = append(l.pending, ev)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// take returns the pending events and forgets them.
func (l *listenStream) take() []listenEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	evs := l.pending
	l.pending = nil
	return evs
}

func newListenHub() *listenHub {
	return &listenHub{subs: map[*listenStream]struct{}{}, closed: make(chan struct{})}
}

func (h *listenHub) add(l *listenStream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[l] = struct{}{}
}

func (h *listenHub) remove(l *listenStream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, l)
}

// publish offers ev to every stream whose filter wants it.
func (h *listenHub) publish(ev listenEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range h.subs {
		if l.filter.wants(ev) {
			l.offer(ev)
		}
	}
}

// wants reports whether a stream with filter f asked for ev.
func (f subscriptionFilter) wants(ev listenEvent) bool {
	switch ev.method {
	case methodToolsListChanged:
		return f.ToolsListChanged
	case methodPromptsListChanged:
		return f.PromptsListChanged
	case methodResourcesListChanged:
		return f.ResourcesListChanged
	case methodResourceUpdated:
		return slices.Contains(f.ResourceSubscriptions, ev.uri)
	}
	return false
}

func (h *listenHub) shutdown() { h.once.Do(func() { close(h.closed) }) }

// listenKeepAlive is how often an idle subscriptions/listen stream gets a
// keep-alive (an SSE comment on HTTP), so that proxies do not close it.
const listenKeepAlive = 25 * time.Second

// listen answers subscriptions/listen (2026-07-28): the acknowledgement
// first, then the notifications the filter asked for, each tagged with the
// subscription ID (the listen request's ID). It returns when the client goes
// away (nothing more is sent) or the server shuts down (a final complete
// result).
func (d *dispatcher) listen(ctx context.Context, rq *request) outcome {
	filter := rq.params.Notifications
	if filter == nil {
		return failure(NewError(CodeInvalidParams, "subscriptions/listen: params.notifications is required"))
	}
	if e := d.checkListenFilter(ctx, rq, rq.params.NotifyFilter); e != nil {
		return failure(e) // a member an extension defines, which it refuses
	}
	if !rq.out.canStream() {
		return outcome{err: NewError(CodeInvalidRequest, "subscriptions/listen answers with an event stream; accept text/event-stream"),
			status: http.StatusNotAcceptable}
	}
	release, refused := d.admitListen(callerOf(ctx, rq.era))
	if refused != nil {
		return *refused
	}
	defer release()
	honoured, e := d.honour(filter)
	if e != nil {
		return failure(e)
	}
	// The stream may stay open for hours: it keeps what it needs and lets
	// the request's body go.
	rq.detach()
	tag := map[string]json.RawMessage{metaSubscriptionID: rq.id}

	l := newListenStream(honoured)
	d.listeners.add(l)
	defer d.listeners.remove(l)
	defer d.icpt.observeStream(ctx, "listen", transportOf(ctx))()

	ack := struct {
		Notifications subscriptionFilter         `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}{honoured, tag}
	if err := rq.out.notify(ctx, methodAcknowledged, ack); err != nil {
		return outcome{none: true}
	}
	keepAlive := time.NewTicker(listenKeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-ctx.Done():
			return outcome{none: true}
		case <-d.listeners.closed:
			return outcome{result: json.RawMessage("{}"), meta: tag}
		case <-l.wake:
			for _, ev := range l.take() {
				if err := rq.out.notify(ctx, ev.method, struct {
					Meta map[string]json.RawMessage `json:"_meta"`
					URI  string                     `json:"uri,omitempty"`
				}{tag, ev.uri}); err != nil {
					return outcome{none: true}
				}
			}
		case <-keepAlive.C:
			if err := rq.out.keepAlive(); err != nil {
				return outcome{none: true}
			}
		}
	}
}

// honour is the part of filter this server serves: the kinds it has
// registered something for, and the resource URIs normalized
// (internal/resourceuri). More than maxSubscriptions resource URIs, or more than
// Options.MaxSubscriptionBytes of them, is -32602.
func (d *dispatcher) honour(filter *subscriptionFilter) (subscriptionFilter, *Error) {
	o := d.features.offers()
	tools, prompts, resources := o.tools, o.prompts, o.resources
	h := subscriptionFilter{
		ToolsListChanged:     filter.ToolsListChanged && tools,
		PromptsListChanged:   filter.PromptsListChanged && prompts,
		ResourcesListChanged: filter.ResourcesListChanged && resources,
	}
	if resources && len(filter.ResourceSubscriptions) > 0 {
		if e := d.subscriptionBound(methodListen, filter.ResourceSubscriptions); e != nil {
			return h, e
		}
		uris := make([]string, 0, len(filter.ResourceSubscriptions))
		for _, u := range filter.ResourceSubscriptions {
			if u = resourceuri.Normalize(u); !slices.Contains(uris, u) {
				uris = append(uris, u)
			}
		}
		h.ResourceSubscriptions = uris
	}
	return h, nil
}

// admitListen counts one more open subscriptions/listen stream, the
// 2026-07-28 counterpart of the GET stream, against Options.MaxGETStreams
// and its caller's share of it; the caller releases it with release when
// the stream ends. Past the bound it refuses with HTTP 429: the server is
// healthy and serves every other request, the client (or too many clients)
// opens too many streams and should come back later. Not 409 either:
// nothing conflicts. Unlike a GET stream, a listen stream needs no session,
// so without this bound a client could open them without end.
func (d *dispatcher) admitListen(caller string) (release func(), refused *outcome) {
	if e := d.streams.take(caller, 1); e != nil {
		return nil, &outcome{status: http.StatusTooManyRequests, err: e}
	}
	return func() { d.streams.give(caller, 1) }, nil
}
