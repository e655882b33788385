package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// listenKeepAlive is how often an idle subscriptions/listen stream gets a
// keep-alive (an SSE comment on HTTP), so that proxies do not close it.
const listenKeepAlive = 25 * time.Second

// listen answers subscriptions/listen (2026-07-28): the acknowledgement
// first, then the notifications the filter asked for, each tagged with the
// subscription ID (the listen request's ID). It returns when the client goes
// away (nothing more is sent) or the server shuts down (a final complete
// result).
func (s *Server) listen(ctx context.Context, rq *request) outcome {
	filter := rq.params.Notifications
	if filter == nil {
		return failure(NewError(CodeInvalidParams, "subscriptions/listen: params.notifications is required"))
	}
	if len(filter.TaskIDs) > 0 {
		if e := gateTasks(rq); e != nil {
			return failure(e) // task notifications need the tasks extension (-32021)
		}
	}
	if !rq.out.canStream() {
		return outcome{err: NewError(CodeInvalidRequest, "subscriptions/listen answers with an event stream; accept text/event-stream"),
			status: http.StatusNotAcceptable}
	}
	release, refused := s.admitListen(callerOf(ctx, rq.era))
	if refused != nil {
		return *refused
	}
	defer release()
	honoured, e := s.honour(filter)
	if e != nil {
		return failure(e)
	}
	// The stream may stay open for hours: it keeps what it needs and lets
	// the request's body go.
	rq.detach()
	tag := map[string]json.RawMessage{metaSubscriptionID: rq.id}

	l := newListenStream(honoured)
	s.listeners.add(l)
	defer s.listeners.remove(l)
	if s.observing() {
		s.streamEvent(ctx, StreamOpened, "listen", nil, transportOf(ctx))
		defer s.streamEvent(ctx, StreamClosed, "listen", nil, transportOf(ctx))
	}

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
		case <-s.listeners.closed:
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
// (resource_uri.go). More than maxSubscriptions resource URIs, or more than
// Options.MaxSubscriptionBytes of them, is -32602.
func (s *Server) honour(filter *subscriptionFilter) (subscriptionFilter, *Error) {
	s.mu.RLock()
	tools := len(s.tools) > 0
	s.mu.RUnlock()
	resources := s.features.hasResources()
	h := subscriptionFilter{
		ToolsListChanged:     filter.ToolsListChanged && tools,
		PromptsListChanged:   filter.PromptsListChanged && s.features.hasPrompts(),
		ResourcesListChanged: filter.ResourcesListChanged && resources,
	}
	if resources && len(filter.ResourceSubscriptions) > 0 {
		if e := s.subscriptionBound(methodListen, filter.ResourceSubscriptions); e != nil {
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
