package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
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

// changeFanout delivers list and resource changes to every client: the GET
// stream of each legacy session, each initialized stdio connection and the
// 2026-07-28 listen streams, on every replica when a Bus is set. It is the
// announcer of every Call, and the Server's Notify methods delegate to it.
type changeFanout struct {
	bus       SessionBus // nil: one process
	base      context.Context
	logger    *slog.Logger
	features  *featureRegistry // its encoded list pages go stale
	listeners *listenHub
	sessions  *sessionTable

	mu    sync.Mutex
	stdio map[*session]*stream // the stdio connections of this process
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

// NotifyPromptListChanged is Server.NotifyPromptListChanged.
func (c *changeFanout) NotifyPromptListChanged() {
	c.announce(listenEvent{method: methodPromptsListChanged})
}

// NotifyResourceListChanged is Server.NotifyResourceListChanged.
func (c *changeFanout) NotifyResourceListChanged() {
	c.announce(listenEvent{method: methodResourcesListChanged})
}

// NotifyResourceUpdated is Server.NotifyResourceUpdated.
func (c *changeFanout) NotifyResourceUpdated(uri string) {
	c.announce(listenEvent{method: methodResourceUpdated, uri: resourceuri.Normalize(uri)})
}

// busChange is a change notification on the bus.
type busChange struct {
	Method string `json:"method"`
	URI    string `json:"uri,omitempty"`
}

// announce delivers ev on every replica: through the bus, whose
// subscription (followChanges) delivers it here too, or, without one (or
// when publishing fails), here only. The count Publish returns is not
// consulted: a Redis Cluster counts the subscribers of one node only, so a
// zero there does not mean that this replica's own subscription missed it,
// and delivering here as well would send the change twice.
func (c *changeFanout) announce(ev listenEvent) {
	c.forget(ev)
	if bus := c.bus; bus != nil {
		msg, _ := json.Marshal(busChange{ev.method, ev.uri})
		ctx, cancel := context.WithTimeout(c.base, changeLoadTimeout)
		_, err := bus.Publish(ctx, busBroadcast, busTopicChanges, msg)
		cancel()
		if err == nil {
			return
		}
		c.logger.Warn("publishing a change notification on the session bus", "method", ev.method, "error", err)
	}
	c.deliverChange(ev)
}

// forget drops the encoded pages a list change makes stale.
func (c *changeFanout) forget(ev listenEvent) {
	switch ev.method {
	case methodToolsListChanged:
		c.features.forget(listTools)
	case methodPromptsListChanged:
		c.features.forget(listPrompts)
	case methodResourcesListChanged:
		c.features.forget(listTemplates)
	}
}

// followChanges subscribes to the change notifications of every replica
// and delivers them here, until the server closes. The first subscription
// is made before it returns, so that an announcement right after NewServer
// reaches this replica too; a subscription the bus ends is renewed.
func (c *changeFanout) followChanges() {
	bus := c.bus
	msgs, cancel, err := bus.Subscribe(c.base, busBroadcast, busTopicChanges)
	go func() {
		for {
			if err != nil {
				c.logger.Warn("subscribing to change notifications on the session bus", "error", err)
			} else {
				c.relayChanges(msgs)
				cancel()
			}
			select {
			case <-c.base.Done():
				return
			case <-time.After(busRetry):
			}
			msgs, cancel, err = bus.Subscribe(c.base, busBroadcast, busTopicChanges)
		}
	}()
}

// relayChanges delivers the changes of one bus subscription until it ends
// or the server closes.
func (c *changeFanout) relayChanges(msgs <-chan []byte) {
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				return
			}
			var bc busChange
			if json.Unmarshal(m, &bc) != nil {
				c.logger.Warn("a malformed change notification on the session bus", "message", string(m))
				continue
			}
			ev := listenEvent{method: bc.Method, uri: bc.URI}
			c.forget(ev)
			c.deliverChange(ev)
		case <-c.base.Done():
			return
		}
	}
}

// deliverChange sends ev to this process's clients: the GET stream of
// every legacy session that has one (a session without one learns nothing,
// as the specification allows; a full stream drops it, as it does
// keep-alives), every initialized stdio connection, and the listen streams
// that asked for it.
func (c *changeFanout) deliverChange(ev listenEvent) {
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
	targets := c.sessions.getStreams()
	c.mu.Lock()
	for sess, out := range c.stdio {
		sess.mu.Lock()
		if sess.established {
			targets[sess] = out
		}
		sess.mu.Unlock()
	}
	c.mu.Unlock()
	for sess, st := range targets {
		if ev.method == methodResourceUpdated && !c.subscribed(sess, ev.uri) {
			continue
		}
		st.q.tryPush(frame{data: data})
	}
	c.listeners.publish(ev)
}

// subscribed reports whether a legacy session subscribed to uri. With a
// session bus the subscription may have been made on another replica, so
// the store has the word.
func (c *changeFanout) subscribed(sess *session, uri string) bool {
	st, _ := sess.snapshot()
	if c.bus != nil && !sess.stdio {
		ctx, cancel := context.WithTimeout(c.base, changeLoadTimeout)
		stored, err := c.sessions.store.Load(ctx, sess.id)
		cancel()
		if err == nil {
			st = stored
		}
	}
	return slices.Contains(st.Subscriptions, uri)
}

// NotifyToolListChanged is Server.NotifyToolListChanged.
func (c *changeFanout) NotifyToolListChanged() {
	c.announce(listenEvent{method: methodToolsListChanged})
}
