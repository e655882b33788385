package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpgen/mcpgen/runtime"
)

// A Notification is a notification the server sent the client.
type Notification struct {
	Method string
	Params json.RawMessage
	// Request names the request whose stream carried it ("tools/call
	// delete_note"; over stdio, the request its progress token or
	// subscription names, or the only one running), or "" when no request
	// did (a session's GET stream).
	Request string
}

// maxNotifications bounds what a client keeps; later notifications are
// counted and dropped (Notifications reports it).
const maxNotifications = 10000

// inbox keeps a client's notifications in arrival order.
type inbox struct {
	mu      sync.Mutex
	list    []Notification
	dropped int
	waited  map[string]int // per method, how many WaitFor returned
	changed chan struct{}  // closed and replaced at every arrival
}

func (b *inbox) init() {
	b.waited = map[string]int{}
	b.changed = make(chan struct{})
}

func (b *inbox) add(m *message, x *exchange) {
	n := Notification{Method: m.Method, Params: m.Params}
	if x != nil {
		n.Request = x.describe()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.list) >= maxNotifications {
		b.dropped++
		return
	}
	b.list = append(b.list, n)
	close(b.changed)
	b.changed = make(chan struct{})
}

// Notifications returns every notification received so far, in order.
// Beyond the first 10000 they are dropped, and the last element says so.
func (c *Client) Notifications() []Notification {
	c.inbox.mu.Lock()
	defer c.inbox.mu.Unlock()
	out := append([]Notification(nil), c.inbox.list...)
	if c.inbox.dropped > 0 {
		out = append(out, Notification{Method: fmt.Sprintf("mcptest: %d more notifications were dropped", c.inbox.dropped)})
	}
	return out
}

// WaitFor waits for the next notification of method: the first one that no
// earlier WaitFor for method returned, whether it has arrived already or
// not. The wait is bounded by ctx and the client's timeout. Use it for
// notifications no request carries (list changes, resource updates);
// those a call's stream carries have arrived when the call returns.
func (c *Client) WaitFor(ctx context.Context, method string) (Notification, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	for {
		c.inbox.mu.Lock()
		seen := 0
		for _, n := range c.inbox.list {
			if n.Method != method {
				continue
			}
			if seen == c.inbox.waited[method] {
				c.inbox.waited[method]++
				c.inbox.mu.Unlock()
				return n, nil
			}
			seen++
		}
		changed := c.inbox.changed
		c.inbox.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Notification{}, fmt.Errorf("mcptest: waiting for %s (%d arrived before): %w", method, seen, ctx.Err())
		}
	}
}

// Progress is one notifications/progress.
type Progress struct {
	Token    json.RawMessage `json:"progressToken"`
	Progress float64         `json:"progress"`
	Total    float64         `json:"total,omitempty"`
	Message  string          `json:"message,omitempty"`
	// Request names the request it reported on.
	Request string `json:"-"`
}

// Progress returns the progress notifications received so far. Every
// tools/call, prompts/get and resources/read of the client carries a
// progress token, so a handler's Progress calls all arrive.
func (c *Client) Progress() []Progress {
	var out []Progress
	for _, n := range c.Notifications() {
		if n.Method != "notifications/progress" {
			continue
		}
		var p Progress
		if json.Unmarshal(n.Params, &p) == nil {
			p.Request = n.Request
			out = append(out, p)
		}
	}
	return out
}

// Log is one notifications/message.
type Log struct {
	Level  runtime.LogLevel `json:"level"`
	Logger string           `json:"logger,omitempty"`
	Data   json.RawMessage  `json:"data"`
	// Request names the request whose stream carried it.
	Request string `json:"-"`
}

// Logs returns the log messages received so far; the server sends them
// only from the LogLevel option's level up.
func (c *Client) Logs() []Log {
	var out []Log
	for _, n := range c.Notifications() {
		if n.Method != "notifications/message" {
			continue
		}
		var l Log
		if json.Unmarshal(n.Params, &l) == nil {
			l.Request = n.Request
			out = append(out, l)
		}
	}
	return out
}
