package interop

import (
	"context"
	"encoding/json"

	"fmt"
	"slices"
	"sync"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// The subscriptions check (as in clients/scenario.mjs): a subscription to
// watchedURI, the trigger tool, and a bounded wait for the
// notifications/resources/updated the SDK delivers to its own handler. A
// 2025 session subscribes with resources/subscribe (and unsubscribes
// after); a 2026-07-28 connection opens subscriptions/listen with
// resourceSubscriptions (and closes it after). A 2025 session without a GET
// stream has nowhere to receive the notification: the wait is skipped and
// the check reports n/a, not ok.
const (
	watchedURI     = "test://watched-resource"
	triggerTool    = "test_trigger_resource_update"
	updateWait     = 10 * time.Second
	modernProtocol = "2026-07-28"
)

// notApplicable is a check the run cannot make; its reason is the detail.
type notApplicable struct{ reason string }

func (n notApplicable) Error() string { return n.reason }

// subscriptionEnv is what the subscriptions check knows of the run.
type subscriptionEnv struct {
	protocol string
	noGET    bool // a 2025 HTTP session that opened no standalone GET stream
	stdio    bool
	tap      *wireTap
	obs      *observed
}

// updates collects the notifications/resources/updated an SDK delivered.
type updates struct {
	mu      sync.Mutex
	uris    []string
	changed chan struct{} // closed and replaced on every delivery
}

func (u *updates) deliver(uri string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.uris = append(u.uris, uri)
	if u.changed != nil {
		close(u.changed)
		u.changed = nil
	}
}

// mark returns how many updates arrived so far.
func (u *updates) mark() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.uris)
}

// wait returns once an update for uri arrived after mark, or fails when
// updateWait (or ctx) runs out first.
func (u *updates) wait(ctx context.Context, mark int, uri string) error {
	ctx, cancel := context.WithTimeout(ctx, updateWait)
	defer cancel()
	for {
		u.mu.Lock()
		if slices.Contains(u.uris[min(mark, len(u.uris)):], uri) {
			u.mu.Unlock()
			return nil
		}
		if u.changed == nil {
			u.changed = make(chan struct{})
		}
		ch := u.changed
		u.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("no notifications/resources/updated for %s within %v: %w", uri, updateWait, ctx.Err())
		}
	}
}

// waitIncoming returns once the server sent method since mark (as the
// client read it off the wire), or fails when ctx ends. It returns the
// message's params.
func (w *wireTap) waitIncoming(ctx context.Context, mark int, method string) (json.RawMessage, error) {
	for {
		w.mu.Lock()
		for _, m := range w.in[min(mark, len(w.in)):] {
			if m.Method == method {
				w.mu.Unlock()
				return m.Params, nil
			}
		}
		if w.arrived == nil {
			w.arrived = make(chan struct{})
		}
		ch := w.arrived
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("no %s from the server: %w", method, ctx.Err())
		}
	}
}

// waitAcknowledged waits for the server's
// notifications/subscriptions/acknowledged after mark and checks it honours
// watchedURI. Neither Go SDK's listen call waits for it, so without this
// the trigger could reach the server before the subscription does.
func waitAcknowledged(ctx context.Context, tap *wireTap, mark int) error {
	params, err := tap.waitIncoming(ctx, mark, "notifications/subscriptions/acknowledged")
	if err != nil {
		return err
	}
	var ack struct {
		Notifications struct {
			ResourceSubscriptions []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	if err := json.Unmarshal(params, &ack); err != nil {
		return fmt.Errorf("notifications/subscriptions/acknowledged: %v: %s", err, brief(string(params)))
	}
	if !slices.Contains(ack.Notifications.ResourceSubscriptions, watchedURI) {
		return fmt.Errorf("notifications/subscriptions/acknowledged does not honour %s: %s", watchedURI, brief(string(params)))
	}
	return nil
}

// triggerAndWait calls the trigger tool and waits for the update.
func triggerAndWait(ctx context.Context, s session, obs *observed) error {
	mark := obs.updates.mark()
	if err := complete(s.callTool(ctx, triggerTool, map[string]any{}, "")); err != nil {
		return err
	}
	return obs.updates.wait(ctx, mark, watchedURI)
}

func (s goSDKSession) subscriptions(ctx context.Context, env subscriptionEnv) (string, error) {
	cs := s.cs
	if env.protocol == modernProtocol {
		// On 2026-07-28 the SDK's Subscribe opens a subscriptions/listen
		// stream with resourceSubscriptions [uri]; Unsubscribe cancels it.
		mark := env.tap.mark()
		if err := cs.Subscribe(ctx, &gosdk.SubscribeParams{URI: watchedURI}); err != nil {
			return "", fmt.Errorf("Subscribe (subscriptions/listen): %w", err)
		}
		defer cs.Unsubscribe(context.WithoutCancel(ctx), &gosdk.UnsubscribeParams{URI: watchedURI})
		if err := waitAcknowledged(ctx, env.tap, mark); err != nil {
			return "", err
		}
		if err := triggerAndWait(ctx, s, env.obs); err != nil {
			return "", err
		}
		if err := cs.Unsubscribe(ctx, &gosdk.UnsubscribeParams{URI: watchedURI}); err != nil {
			return "", fmt.Errorf("Unsubscribe: %w", err)
		}
		return fmt.Sprintf("Subscribe opened subscriptions/listen for %s (acknowledged), notifications/resources/updated arrived on the listen stream, Unsubscribe closed it", watchedURI), nil
	}
	return legacySubscription(ctx, env, s,
		func(ctx context.Context) error { return cs.Subscribe(ctx, &gosdk.SubscribeParams{URI: watchedURI}) },
		func(ctx context.Context) error { return cs.Unsubscribe(ctx, &gosdk.UnsubscribeParams{URI: watchedURI}) })
}

func (s mcpGoSession) subscriptions(ctx context.Context, env subscriptionEnv) (string, error) {
	c := s.c
	if env.protocol == modernProtocol {
		mark := env.tap.mark()
		stop, err := c.ListenAsync(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{watchedURI}}, nil)
		if err != nil {
			return "", fmt.Errorf("ListenAsync: %w", err)
		}
		defer stop()
		if err := waitAcknowledged(ctx, env.tap, mark); err != nil {
			return "", err
		}
		if err := triggerAndWait(ctx, s, env.obs); err != nil {
			return "", err
		}
		return fmt.Sprintf("ListenAsync opened subscriptions/listen for %s (acknowledged), notifications/resources/updated arrived on the listen stream, then closed", watchedURI), nil
	}
	return legacySubscription(ctx, env, s,
		func(ctx context.Context) error {
			req := mcp.SubscribeRequest{}
			req.Params.URI = watchedURI
			return c.Subscribe(ctx, req)
		},
		func(ctx context.Context) error {
			req := mcp.UnsubscribeRequest{}
			req.Params.URI = watchedURI
			return c.Unsubscribe(ctx, req)
		})
}

// legacySubscription is the 2025 form: resources/subscribe, the trigger,
// the wait (skipped without a GET stream), resources/unsubscribe.
func legacySubscription(ctx context.Context, env subscriptionEnv, s session, subscribe, unsubscribe func(context.Context) error) (string, error) {
	if err := subscribe(ctx); err != nil {
		return "", fmt.Errorf("resources/subscribe: %w", err)
	}
	if env.noGET {
		if err := unsubscribe(ctx); err != nil {
			return "", fmt.Errorf("resources/unsubscribe: %w", err)
		}
		return "", notApplicable{"resources/subscribe and resources/unsubscribe answered; no wait for notifications/resources/updated: without a GET stream a 2025 session cannot receive an unsolicited notification"}
	}
	if err := triggerAndWait(ctx, s, env.obs); err != nil {
		return "", err
	}
	if err := unsubscribe(ctx); err != nil {
		return "", fmt.Errorf("resources/unsubscribe: %w", err)
	}
	where := "on the GET stream"
	if env.stdio {
		where = "on stdio"
	}
	return fmt.Sprintf("resources/subscribe, notifications/resources/updated for %s arrived %s, resources/unsubscribe", watchedURI, where), nil
}

// mcpGoUpdates feeds obs.updates from mcp-go's notification handler.
func mcpGoUpdates(c *client.Client, obs *observed) {
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/resources/updated" {
			return
		}
		if uri, ok := n.Params.AdditionalFields["uri"].(string); ok {
			obs.updates.deliver(uri)
		}
	})
}
