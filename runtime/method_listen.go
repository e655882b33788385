package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
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
	honoured := subscriptionFilter{ToolsListChanged: filter.ToolsListChanged}
	tag := map[string]json.RawMessage{metaSubscriptionID: rq.id}

	l := &listenStream{filter: honoured, events: make(chan string, 1)}
	s.listeners.add(l)
	defer s.listeners.remove(l)

	ack := struct {
		Notifications subscriptionFilter         `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}{honoured, tag}
	if err := rq.out.notify(ctx, "notifications/subscriptions/acknowledged", ack); err != nil {
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
		case method := <-l.events:
			if err := rq.out.notify(ctx, method, struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}{tag}); err != nil {
				return outcome{none: true}
			}
		case <-keepAlive.C:
			if err := rq.out.keepAlive(); err != nil {
				return outcome{none: true}
			}
		}
	}
}
