package runtime

import (
	"slices"
	"sync"
)

// subscriptionFilter is the notifications a subscriptions/listen request
// opts in to. The server honours the kinds it has registered something
// for (tools, prompts, resources) and leaves the others out of its
// acknowledgement.
type subscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs (the tasks extension) asks for notifications/tasks of these
	// tasks; none are sent, so the acknowledgement never lists them.
	TaskIDs []string `json:"taskIds,omitempty"`
}

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

// listenEvent is one change a listen stream may announce.
type listenEvent struct {
	method string
	uri    string // notifications/resources/updated only
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

// shutdownModern ends every subscriptions/listen stream with its final
// result, so that a graceful shutdown can drain them.
func (s *Server) shutdownModern() { s.listeners.shutdown() }
