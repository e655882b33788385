package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Host is what a Server lends an extension, in Extension.Init: its logger
// and lifetime, goroutines it waits for when it closes, shares of bounds
// the extension keeps (Share), what the session store knows, and a
// read-only description of what the server serves, with word of its
// changes. It is the seam's server side; an extension needs nothing of the
// Server beyond it and the Server's public methods.
type Host struct {
	d        *dispatcher
	id       string
	logger   *slog.Logger
	sessions SessionStore
	opts     hostOptions
}

// hostOptions are the Options a Host hands out.
type hostOptions struct {
	replicaID      string
	pageSize       int
	requestTimeout time.Duration
	callerShare    float64
}

// Logger is the server's logger (Options.Logger), with the extension's
// identifier on every record.
func (h *Host) Logger() *slog.Logger { return h.logger }

// Context ends when the server closes (Server.Close, or the end of
// Shutdown): what the extension runs for the server's life ends with it.
func (h *Host) Context() context.Context { return h.d.base }

// Go runs f on a goroutine of its own that the server waits for when it
// closes, for up to Options.ShutdownTimeout: f must return once Context
// ends.
func (h *Host) Go(f func()) {
	h.d.detached.Add(1)
	go func() {
		defer h.d.detached.Done()
		f()
	}()
}

// ReplicaID is Options.ReplicaID: the name of this process among replicas
// that share stores ("" for one process).
func (h *Host) ReplicaID() string { return h.opts.replicaID }

// PageSize is Options.PageSize, the entries per page of a paged list
// (Page).
func (h *Host) PageSize() int { return h.opts.pageSize }

// RequestTimeout is Options.RequestTimeout: the bound of each wait for a
// client's answer (negative: none).
func (h *Host) RequestTimeout() time.Duration { return h.opts.requestTimeout }

// NewShare bounds a resource the extension keeps to total units (at most
// 0: no bound), each caller its Options.CallerShare of them. bound names
// the option the extension takes total from ("jobs.Options.MaxJobs") in
// the error that refuses a caller past it; unit names what is counted.
func (h *Host) NewShare(bound, unit string, total int64) *Share {
	return &Share{c: newCallerShare(bound, unit, total, h.opts.callerShare)}
}

// SessionLives reports whether legacy session id still exists, as far as
// the session store can tell without refreshing its idle expiry (a
// SessionProber): a session ended on this replica, or deleted on any, is
// reported through Extension.SessionEnded at once; one that a shared store
// expired for idleness only here. It reports true when the store cannot
// tell.
func (h *Host) SessionLives(ctx context.Context, id string) bool {
	p, ok := h.sessions.(SessionProber)
	if !ok {
		return true
	}
	exists, err := p.Exists(ctx, id)
	return err != nil || exists
}

// Notify sends a notification of the extension's own to every client
// that has a channel for what no request asked (a legacy session's GET
// stream, a stdio connection), on every replica when Options.Bus is set,
// as the server's list changes go: it may be dropped where the stream is
// full or absent. params encode as a JSON object, or nil for none. A
// 2026-07-28 client has no such channel (subscriptions/listen carries the
// core's kinds only): an extension streams to it with Method.Stream.
func (h *Host) Notify(method string, params any) error {
	if method == "" {
		return errors.New("Host.Notify: a method is required")
	}
	var b []byte
	if params != nil {
		var err error
		if b, err = json.Marshal(params); err != nil {
			return fmt.Errorf("Host.Notify %s: %w", method, err)
		}
		if !isObjectJSON(b) {
			return fmt.Errorf("Host.Notify %s: params must encode as a JSON object", method)
		}
	}
	h.d.notifyAll(method, b)
	return nil
}

// Describe is what the server serves now (Server.Describe).
func (h *Host) Describe() *Description { return h.d.describe() }

// OnChange calls f after every change of what Describe reports: a tool,
// prompt, resource, template or extension added, and every list change
// the server announces (Server.Notify*ListChanged, Call.Notify*). f runs on
// the goroutine that made the change; it must be quick.
func (h *Host) OnChange(f func()) { h.d.changes.add(f) }

// changeListeners are the functions OnChange registered.
type changeListeners struct {
	mu sync.Mutex
	fs []func()
}

func (c *changeListeners) add(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fs = append(c.fs, f)
}

// changed calls every listener; a panic in one is logged and does not stop
// the others.
func (d *dispatcher) changed() {
	d.changes.mu.Lock()
	fs := d.changes.fs
	d.changes.mu.Unlock()
	for _, f := range fs {
		func() {
			defer func() {
				if v := recover(); v != nil {
					d.extensionPanicked(context.Background(), "", "an OnChange listener", v)
				}
			}()
			f()
		}()
	}
}

// waitDetached waits, bounded by timeout, for the goroutines of detached
// calls and Host.Go that the end of the server's base context stops.
func (d *dispatcher) waitDetached(timeout time.Duration) {
	done := make(chan struct{})
	go func() { d.detached.Wait(); close(done) }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		d.logger.Warn("detached calls and extension goroutines still running after the shutdown timeout")
	}
}
