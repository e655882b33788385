package mcptest

import (
	"context"
	"errors"
	"fmt"
)

// Listen opens the stream that carries the notifications no request
// causes, so that list changes (notifications/tools/list_changed and the
// prompt and resource ones) arrive: a session's GET stream (over stdio they
// ride the one connection already), or in 2026-07-28 a subscriptions/listen
// asking for every list change. It returns once the server holds the
// stream, so a change announced after it returns reaches the client; wait
// for it with WaitFor.
func (c *Client) Listen(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	if !c.era.stateless() {
		return c.tr.openStandalone(ctx)
	}
	return c.listen(ctx, map[string]any{"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true})
}

// Subscribe subscribes to updates of the resource at uri
// (notifications/resources/updated): resources/subscribe in a session,
// whose updates ride its GET stream (Subscribe opens it), or in 2026-07-28 a
// subscriptions/listen for that resource. It returns once the subscription
// holds.
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	if c.era.stateless() {
		return c.listen(ctx, map[string]any{"resourceSubscriptions": []string{uri}})
	}
	if err := c.tr.openStandalone(ctx); err != nil {
		return err
	}
	_, err := c.request(ctx, &exchange{method: "resources/subscribe"}, map[string]any{"uri": uri})
	return err
}

// listen opens a subscriptions/listen stream with filter and returns once
// the server acknowledged it. The stream lives until the client closes.
func (c *Client) listen(ctx context.Context, filter map[string]any) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errors.New("mcptest: the client is closed")
	}
	streamCtx, stop := context.WithCancel(context.Background())
	c.listens = append(c.listens, stop)
	c.listening.Add(1)
	c.mu.Unlock()

	x := &exchange{method: "subscriptions/listen", acked: make(chan struct{})}
	ended := make(chan error, 1)
	go func() {
		defer c.listening.Done()
		_, err := c.send(streamCtx, x, map[string]any{"notifications": filter})
		ended <- err
	}()
	select {
	case <-x.acked:
		return nil
	case err := <-ended:
		if err == nil {
			err = errors.New("the stream ended before the server acknowledged it")
		}
		return fmt.Errorf("subscriptions/listen: %w", err)
	case <-ctx.Done():
		stop()
		return fmt.Errorf("subscriptions/listen: waiting for the acknowledgement: %w", ctx.Err())
	}
}
