package runtime

import "sync"

// subscriptionFilter is the notifications a subscriptions/listen request
// opts in to. This server honours toolsListChanged; it has no prompts or
// resources, so it leaves the other kinds out of its acknowledgement.
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
	events chan string // notification methods; a buffer of one coalesces repeats
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

// publish tells every stream whose filter wants it that method happened. A
// list_changed notification says only "fetch the list again", so one still
// queued covers a second one: nothing is lost by coalescing.
func (h *listenHub) publish(method string, wants func(subscriptionFilter) bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range h.subs {
		if !wants(l.filter) {
			continue
		}
		select {
		case l.events <- method:
		default: // the same notification is already pending
		}
	}
}

func (h *listenHub) shutdown() { h.once.Do(func() { close(h.closed) }) }

// notifyModernToolListChanged sends notifications/tools/list_changed to every
// subscriptions/listen stream that asked for it. NotifyToolListChanged calls
// it after notifying the legacy sessions.
func (s *Server) notifyModernToolListChanged() {
	s.listeners.publish("notifications/tools/list_changed", func(f subscriptionFilter) bool { return f.ToolsListChanged })
}

// shutdownModern ends every subscriptions/listen stream with its final
// result, so that a graceful shutdown can drain them.
func (s *Server) shutdownModern() { s.listeners.shutdown() }
