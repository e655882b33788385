package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// Bus addresses of change notifications: every replica subscribes to this
// one (session, topic) pair, which no session ID can take (session IDs are
// hex).
const (
	busBroadcast    = "*"
	busTopicChanges = "changes"
)

// changeLoadTimeout bounds the session store read that tells, on a
// replica sharing its store, which resources a session subscribed to.
const changeLoadTimeout = 2 * time.Second

// changeFanout is where change notifications go besides the sessions of
// the store: the stdio connections of this process.
type changeFanout struct {
	mu    sync.Mutex
	stdio map[*session]*stream
}

func (c *changeFanout) addStdio(sess *session, out *stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stdio == nil {
		c.stdio = map[*session]*stream{}
	}
	c.stdio[sess] = out
}

func (c *changeFanout) removeStdio(sess *session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.stdio, sess)
}

// NotifyPromptListChanged tells every client that the prompt list changed:
// notifications/prompts/list_changed on the GET stream of every legacy
// session (or its stdio connection) and on every 2026-07-28
// subscriptions/listen stream that asked for promptsListChanged, on every
// replica when Options.Bus is set.
func (s *Server) NotifyPromptListChanged() { s.announce(listenEvent{method: methodPromptsListChanged}) }

// NotifyResourceListChanged is NotifyPromptListChanged for the resource
// list (and the templates): notifications/resources/list_changed, to
// listen streams that asked for resourcesListChanged.
func (s *Server) NotifyResourceListChanged() {
	s.announce(listenEvent{method: methodResourcesListChanged})
}

// NotifyResourceUpdated tells the clients subscribed to uri that it
// changed: notifications/resources/updated to every legacy session that
// subscribed to it (resources/subscribe) and every listen stream that names
// it in resourceSubscriptions, on every replica when Options.Bus is set.
// URIs match in their normalized form (RFC 3986 section 6.2.2: every
// spelling of one URI is one resource), which the notification carries.
func (s *Server) NotifyResourceUpdated(uri string) {
	s.announce(listenEvent{method: methodResourceUpdated, uri: resourceuri.Normalize(uri)})
}

// busChange is a change notification on the bus.
type busChange struct {
	Method string `json:"method"`
	URI    string `json:"uri,omitempty"`
}

// announce delivers ev on every replica: through the bus, whose
// subscription delivers it here too, or, without one (or when publishing
// fails), here only.
func (s *Server) announce(ev listenEvent) {
	s.forget(ev)
	if bus := s.opts.Bus; bus != nil {
		msg, _ := json.Marshal(busChange{ev.method, ev.uri})
		ctx, cancel := context.WithTimeout(s.baseCtx, changeLoadTimeout)
		n, err := bus.Publish(ctx, busBroadcast, busTopicChanges, msg)
		cancel()
		if err == nil && n > 0 {
			return
		}
		if err != nil {
			s.logger.Warn("publishing a change notification on the session bus", "method", ev.method, "error", err)
		}
	}
	s.deliverChange(ev)
}

// forget drops the encoded pages a list change makes stale.
func (s *Server) forget(ev listenEvent) {
	switch ev.method {
	case methodToolsListChanged:
		s.features.forget(listTools)
	case methodPromptsListChanged:
		s.features.forget(listPrompts)
	case methodResourcesListChanged:
		s.features.forget(listTemplates)
	}
}

// followChanges subscribes to the change notifications of every replica
// and delivers them here, until the server closes. The first subscription
// is made before it returns, so that an announcement right after NewServer
// reaches this replica too; a subscription the bus ends is renewed.
func (s *Server) followChanges() {
	bus := s.opts.Bus
	msgs, cancel, err := bus.Subscribe(s.baseCtx, busBroadcast, busTopicChanges)
	go func() {
		for {
			if err != nil {
				s.logger.Warn("subscribing to change notifications on the session bus", "error", err)
			} else {
				s.relayChanges(msgs)
				cancel()
			}
			select {
			case <-s.baseCtx.Done():
				return
			case <-time.After(busRetry):
			}
			msgs, cancel, err = bus.Subscribe(s.baseCtx, busBroadcast, busTopicChanges)
		}
	}()
}

// relayChanges delivers the changes of one bus subscription until it ends
// or the server closes.
func (s *Server) relayChanges(msgs <-chan []byte) {
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				return
			}
			var c busChange
			if json.Unmarshal(m, &c) != nil {
				s.logger.Warn("a malformed change notification on the session bus", "message", string(m))
				continue
			}
			ev := listenEvent{method: c.Method, uri: c.URI}
			s.forget(ev)
			s.deliverChange(ev)
		case <-s.baseCtx.Done():
			return
		}
	}
}

// deliverChange sends ev to this process's clients: the GET stream of
// every legacy session that has one (a session without one learns nothing,
// as the specification allows; a full stream drops it, as it does
// keep-alives), every initialized stdio connection, and the listen streams
// that asked for it.
func (s *Server) deliverChange(ev listenEvent) {
	var params any
	if ev.uri != "" {
		params = struct {
			URI string `json:"uri"`
		}{ev.uri}
	}
	data, err := encodeRequest(nil, ev.method, params)
	if err != nil {
		return
	}
	s.smu.RLock()
	targets := make(map[*session]*stream, len(s.sessions))
	for _, sess := range s.sessions {
		sess.mu.Lock()
		if st := sess.standalone; st != nil {
			targets[sess] = st
		}
		sess.mu.Unlock()
	}
	s.smu.RUnlock()
	s.changes.mu.Lock()
	for sess, out := range s.changes.stdio {
		sess.mu.Lock()
		if sess.established {
			targets[sess] = out
		}
		sess.mu.Unlock()
	}
	s.changes.mu.Unlock()
	for sess, st := range targets {
		if ev.method == methodResourceUpdated && !s.subscribed(sess, ev.uri) {
			continue
		}
		st.q.tryPush(frame{data: data})
	}
	s.listeners.publish(ev)
}

// subscribed reports whether a legacy session subscribed to uri. With a
// session bus the subscription may have been made on another replica, so
// the store has the word.
func (s *Server) subscribed(sess *session, uri string) bool {
	st, _ := sess.snapshot()
	if s.opts.Bus != nil && !sess.stdio {
		ctx, cancel := context.WithTimeout(s.baseCtx, changeLoadTimeout)
		stored, err := s.sessionStore.Load(ctx, sess.id)
		cancel()
		if err == nil {
			st = stored
		}
	}
	return slices.Contains(st.Subscriptions, uri)
}
