package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// listenKeepAlive is how often an idle subscriptions/listen stream gets a
// keep-alive (an SSE comment on HTTP), so that proxies do not close it.
const listenKeepAlive = 25 * time.Second

// subscriptionFilter is the notifications a subscriptions/listen request
// opts in to. This server honours toolsListChanged; it has no prompts or
// resources, so it leaves the other kinds out of its acknowledgement.
type subscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
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
	s.modern.listen.publish("notifications/tools/list_changed", func(f subscriptionFilter) bool { return f.ToolsListChanged })
}

// shutdownModern ends every subscriptions/listen stream with its final
// result, so that a graceful shutdown can drain them.
func (s *Server) shutdownModern() { s.modern.listen.shutdown() }

// subscribe serves subscriptions/listen: the acknowledgement first, then the
// notifications the filter asked for, each tagged with the subscription ID
// (the listen request's ID). It returns when the client goes away (nothing
// more is sent) or the server shuts down (a final complete result).
func (m *modernCore) subscribe(ctx context.Context, req *modernRequest, stream modernStream) modernReply {
	filter := req.params.Notifications
	if filter == nil {
		return replyError(0, NewError(CodeInvalidParams, "subscriptions/listen: params.notifications is required"))
	}
	if st, ok := stream.(interface{ canStream() bool }); ok && !st.canStream() {
		return replyError(http.StatusNotAcceptable, NewError(CodeInvalidRequest, "subscriptions/listen answers with an event stream; accept text/event-stream"))
	}
	release, refused := m.admitListen()
	if refused != nil {
		return *refused
	}
	defer release()
	honoured := subscriptionFilter{ToolsListChanged: filter.ToolsListChanged}
	subID := req.msg.ID
	tag := map[string]json.RawMessage{metaSubscriptionID: subID}

	l := &listenStream{filter: honoured, events: make(chan string, 1)}
	m.listen.add(l)
	defer m.listen.remove(l)

	ack := struct {
		Notifications subscriptionFilter         `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}{honoured, tag}
	if err := stream.notify(ctx, "notifications/subscriptions/acknowledged", ack); err != nil {
		return modernReply{}
	}
	keepAlive := time.NewTicker(listenKeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-ctx.Done():
			return modernReply{}
		case <-m.listen.closed:
			return m.result("complete", struct{}{}, tag)
		case method := <-l.events:
			if err := stream.notify(ctx, method, struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}{tag}); err != nil {
				return modernReply{}
			}
		case <-keepAlive.C:
			if ka, ok := stream.(interface{ keepAlive() error }); ok {
				if err := ka.keepAlive(); err != nil {
					return modernReply{}
				}
			}
		}
	}
}
