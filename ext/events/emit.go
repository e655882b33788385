package events

import (
	"context"
	"encoding/json"
	"fmt"
)

// Emit: the payload is checked (size, payloadSchema) before anything
// leaves; the event is appended to its type's log, which hands it to every
// replica's push streams; and its webhook deliveries are queued, one per
// matching subscription, by a fan-out job the append itself queues, so a
// replica that dies between the two leaves the fan-out to another.

// Target is who an emitted event is for.
type Target struct{ to string }

// Broadcast is every subscription of the type that its Match hook admits.
func Broadcast() Target { return Target{} }

// To is one subscription (Subscription.ID): a targeted event, which no
// other subscription receives, live or on replay.
func To(subscriptionID string) Target { return Target{to: subscriptionID} }

// Emitted is what Emit did.
type Emitted struct {
	// EventID is the event's id (the one given, or the one made for it).
	EventID string
	// Cursor is the position after it (nil without replay).
	Cursor *string
	// Duplicate: an event with this ID was emitted within the retention;
	// this one was dropped.
	Duplicate bool
}

// Emit validates ev against the payloadSchema of event type name and
// delivers it to target: live push streams on every replica, the log for
// poll and replay, and a queued delivery per matching webhook
// subscription. It returns once the event is stored and its deliveries are
// queued; nothing about a webhook endpoint's answer reaches it.
func (e *Engine) Emit(ctx context.Context, name string, target Target, ev Event) (Emitted, error) {
	t := e.lookup(name)
	if t == nil {
		return Emitted{}, fmt.Errorf("%w %q", ErrUnknownEventType, name)
	}
	if len(ev.Data) > e.o.MaxEventBytes {
		return Emitted{}, fmt.Errorf("%w: event type %q: the payload is %d bytes, beyond MaxEventBytes (%d)", ErrInvalidPayload, name, len(ev.Data), e.o.MaxEventBytes)
	}
	data, err := compactJSON(ev.Data)
	if err != nil {
		return Emitted{}, fmt.Errorf("%w: event type %q: not JSON: %v", ErrInvalidPayload, name, err)
	}
	if err := validate(t.payload, data); err != nil {
		return Emitted{}, fmt.Errorf("%w: event type %q: %v", ErrInvalidPayload, name, err)
	}
	if len(ev.ID) > 256 {
		return Emitted{}, fmt.Errorf("events: event type %q: an event ID is at most 256 bytes", name)
	}
	if ev.ID == "" {
		ev.ID = newEventID()
	}
	if ev.Time.IsZero() {
		ev.Time = e.o.Now()
	}
	entry := LogEntry{EventID: ev.ID, Time: ev.Time.UnixMilli(), Data: data, To: target.to}
	lim := t.limits()
	if t.modes[ModeWebhook] {
		lim.Fanout = &FanoutClaim{Owner: e.owner, Lease: e.o.Webhook.Lease}
	}
	res, err := e.store.Append(ctx, name, entry, lim)
	if err != nil {
		return Emitted{}, fmt.Errorf("events: emitting %q: %w", name, err)
	}
	out := Emitted{EventID: ev.ID, Duplicate: res.Duplicate}
	if !t.NoReplay {
		out.Cursor = e.cursors.encode(name, position{epoch: res.Epoch, seq: res.Seq})
	}
	if res.Fanout != nil {
		entry.Seq = res.Seq
		if err := e.fanOut(ctx, t, &entry, res.WebhooksVersion, res.Epoch); err != nil {
			// The fan-out job stays queued; another attempt (here or on
			// another replica) expands it once its claim lapses.
			e.log.Warn("events: queuing webhook deliveries; left for a retry", "type", name, "event", ev.ID, "err", err)
			return out, nil
		}
		e.store.Finish(ctx, name, *res.Fanout)
		e.wakeDelivery()
	}
	return out, nil
}

// noVersion asks subscribers to read the subscriptions whatever it holds.
const noVersion = ^uint64(0)

// webhookCache holds a type's webhook subscriptions as of a version.
type webhookCache struct {
	version uint64
	recs    []*WebhookRecord
	subs    []*Subscription
}

// subscribers returns t's webhook subscriptions, reading them again only
// when the store's version moved past the cached one.
func (e *Engine) subscribers(ctx context.Context, t *eventType, version uint64) (*webhookCache, error) {
	e.mu.Lock()
	c := e.webhooks[t.Name]
	e.mu.Unlock()
	if c != nil && version != noVersion && c.version == version {
		return c, nil
	}
	v, recs, err := e.store.Webhooks(ctx, t.Name)
	if err != nil {
		return nil, err
	}
	c = &webhookCache{version: v, recs: recs}
	for _, r := range recs {
		c.subs = append(c.subs, r.subscription())
	}
	e.mu.Lock()
	e.webhooks[t.Name] = c
	e.mu.Unlock()
	return c, nil
}

// fanOut queues entry's deliveries: one per webhook subscription it
// reaches, and a gap envelope to each subscription whose queue is full.
func (e *Engine) fanOut(ctx context.Context, t *eventType, entry *LogEntry, version uint64, epoch string) error {
	c, err := e.subscribers(ctx, t, version)
	if err != nil {
		return err
	}
	if epoch == "" && !t.NoReplay {
		head, err := e.store.Head(ctx, t.Name, t.limits())
		if err != nil {
			return err
		}
		epoch = head.Epoch
	}
	var jobs []DeliveryJob
	now := e.o.Now().UnixMilli()
	for i, sub := range c.subs {
		if r := c.recs[i]; r.Expiry != 0 && r.Expiry <= now {
			continue
		}
		if _, ok := e.matches(ctx, t, sub, entry); !ok {
			continue
		}
		jobs = append(jobs, DeliveryJob{ID: sub.ID + "/" + entry.EventID, Sub: sub.ID, Kind: "event", Entry: entry, Epoch: epoch})
	}
	return e.enqueue(ctx, t, jobs)
}

// enqueue queues jobs and the gap envelopes of the subscriptions that had
// no room.
func (e *Engine) enqueue(ctx context.Context, t *eventType, jobs []DeliveryJob) error {
	if len(jobs) == 0 {
		return nil
	}
	gapped, err := e.store.Enqueue(ctx, t.Name, jobs, e.o.Webhook.MaxPending)
	if err != nil {
		return err
	}
	if len(gapped) == 0 {
		return nil
	}
	var gaps []DeliveryJob
	for _, sub := range gapped {
		e.log.Warn("events: a webhook subscription's queue is full; events are skipped and its endpoint is told of the gap",
			"type", t.Name, "subscription", sub, "max", e.o.Webhook.MaxPending)
		mid := controlMessageID("gap")
		gaps = append(gaps, DeliveryJob{ID: sub + "/" + mid, Sub: sub, Kind: "gap", MsgID: mid})
	}
	_, err = e.store.Enqueue(ctx, t.Name, gaps, e.o.Webhook.MaxPending)
	return err
}

// replayTo queues the retained events after from for a new subscription
// that asked to resume from a cursor; it reports whether it had to stop
// short (the subscription's queue bound), which the client sees as
// truncated.
func (e *Engine) replayTo(ctx context.Context, t *eventType, rec *WebhookRecord, from position, maxAgeMs *int64) (bool, error) {
	var floor int64
	if maxAgeMs != nil {
		floor = e.o.Now().UnixMilli() - *maxAgeMs
	}
	sub := rec.subscription()
	budget, truncated := e.o.Webhook.MaxPending, false
	at := from.seq
	for budget > 0 {
		page, err := e.store.Read(ctx, t.Name, t.limits(), at, min(budget, 256))
		if err != nil {
			return truncated, err
		}
		if len(page.Entries) == 0 {
			return truncated, nil
		}
		var jobs []DeliveryJob
		for i := range page.Entries {
			entry := page.Entries[i]
			at = entry.Seq
			if floor != 0 && entry.Time < floor {
				truncated = true
				continue
			}
			if _, ok := e.matches(ctx, t, sub, &entry); ok {
				jobs = append(jobs, DeliveryJob{ID: sub.ID + "/" + entry.EventID, Sub: sub.ID, Kind: "event", Entry: &entry, Epoch: from.epoch})
				budget--
			}
		}
		if err := e.enqueue(ctx, t, jobs); err != nil {
			return truncated, err
		}
		e.wakeDelivery()
		if at >= page.Head {
			return truncated, nil
		}
	}
	return true, nil
}

// Terminate ends a webhook subscription from the server's side (access
// revoked, the type withdrawn): its endpoint gets a terminated envelope
// carrying err, and it is removed.
func (e *Engine) Terminate(ctx context.Context, subscriptionID string, err *WireError) error {
	recs, _, gerr := e.store.GetWebhooks(ctx, []string{subscriptionID})
	if gerr != nil {
		return gerr
	}
	rec := recs[0]
	if rec == nil {
		return nil
	}
	t := e.lookup(rec.Type)
	if t == nil {
		return nil
	}
	body, _ := json.Marshal(TerminatedEnvelope{Type: "terminated", Error: *err})
	// The envelope goes out now, signed with the subscription's secret,
	// then the subscription is removed: nothing is queued behind it.
	secret, _ := parseSecret(rec.Secret)
	mid := controlMessageID("terminated")
	r := e.client.post(ctx, rec.URL, e.headers(mid, rec.ID, [][]byte{secret}, body), body)
	if r.failure != "" {
		e.log.Info("events: a terminated envelope was not accepted", "subscription", rec.ID, "category", r.failure)
	}
	if _, derr := e.store.DeleteWebhook(ctx, rec.ID); derr != nil {
		return derr
	}
	e.endWebhook(ctx, t, rec, EndTerminated)
	return nil
}

func (e *Engine) wakeDelivery() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}
