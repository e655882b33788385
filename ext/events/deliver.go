package events

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"time"
)

// Webhook delivery: every replica claims due jobs from the store's queue
// (a claim is a lease: a replica that dies mid-delivery leaves the job to
// whoever claims it after the lease), POSTs each signed, and finishes it,
// retries it with exponential backoff and full jitter, or gives it up
// after Webhook.MaxAttempts or RetryWindow. A subscription whose callback
// keeps failing is suspended (its jobs wait, the window paused) until its
// next refresh. The receiver deduplicates by webhook-id, which is the
// eventId: a delivery redone after a lapsed claim carries the same one.

// suspendedRecheck is how long a job of a suspended subscription waits
// before it looks again.
const suspendedRecheck = 30 * time.Second

func (e *Engine) deliverLoop() {
	defer e.wg.Done()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-e.wake:
		case <-timer.C:
		}
		full := e.claimRound()
		if full {
			timer.Reset(0)
		} else {
			timer.Reset(e.o.Webhook.PollEvery)
		}
	}
}

// claimRound claims what it has workers for, type by type; it reports
// whether it filled every free worker (there may be more to claim).
func (e *Engine) claimRound() bool {
	e.mu.Lock()
	var types []*eventType
	for _, n := range e.names {
		if t := e.types[n]; t.modes[ModeWebhook] {
			types = append(types, t)
		}
	}
	e.mu.Unlock()
	for _, t := range types {
		free := cap(e.slots) - len(e.slots)
		if free == 0 {
			return true
		}
		ctx, cancel := context.WithTimeout(e.ctx, 2*time.Second)
		claimed, err := e.store.Claim(ctx, t.Name, e.owner, e.o.Now(), e.o.Webhook.Lease, free)
		cancel()
		if err != nil {
			if e.ctx.Err() == nil {
				e.log.Warn("events: claiming webhook deliveries", "type", t.Name, "err", err)
			}
			continue
		}
		for _, c := range claimed {
			select {
			case e.slots <- struct{}{}:
			case <-e.ctx.Done():
				return false
			}
			e.wg.Add(1)
			go func() {
				defer func() { <-e.slots; e.wg.Done() }()
				e.attempt(t, c)
			}()
		}
		if len(claimed) == free {
			return true
		}
	}
	return false
}

// attempt makes one attempt of a claimed job.
func (e *Engine) attempt(t *eventType, c Claimed) {
	ctx := e.ctx
	if c.Job.Kind == "fanout" {
		if err := e.fanOut(ctx, t, c.Job.Entry, noVersion, ""); err == nil {
			e.store.Finish(ctx, t.Name, c)
		}
		return
	}
	recs, sts, err := e.store.GetWebhooks(ctx, []string{c.Job.Sub})
	if err != nil {
		return // the claim lapses and the job is tried again
	}
	rec := recs[0]
	if rec == nil || rec.Pending {
		e.store.Finish(ctx, t.Name, c) // unsubscribed or expired: nothing to deliver
		return
	}
	now := e.o.Now()
	if sts[0].Suspended {
		c.Job.Paused += suspendedRecheck.Milliseconds()
		e.store.Retry(ctx, t.Name, c, now.Add(suspendedRecheck))
		return
	}
	body, msgID, ok := e.body(ctx, t, rec, c)
	if !ok {
		e.store.Finish(ctx, t.Name, c)
		return
	}
	secrets := make([][]byte, 0, 2)
	if key, err := parseSecret(rec.Secret); err == nil {
		secrets = append(secrets, key)
	}
	if rec.OldSecret != "" && now.UnixMilli() < rec.OldUntil {
		if key, err := parseSecret(rec.OldSecret); err == nil {
			secrets = append(secrets, key)
		}
	}
	r := e.client.post(ctx, rec.URL, e.headers(msgID, rec.ID, secrets, body), body)
	if ctx.Err() != nil {
		return // shutting down: the claim lapses and another replica delivers it
	}
	policy := SuspendPolicy{Window: e.o.Webhook.SuspendWindow, MinAttempts: e.o.Webhook.SuspendMinAttempts, FailureRate: e.o.Webhook.SuspendFailureRate}
	before := sts[0].Suspended
	st, err := e.store.RecordAttempt(ctx, rec.ID, r.failure, e.o.Now(), policy)
	if err == nil && st.Suspended && !before {
		e.log.Warn("events: a webhook subscription is suspended: its callback keeps failing", "type", t.Name, "subscription", rec.ID,
			"callback", redactURL(rec.URL), "category", r.failure, "attempts", st.Attempts, "failures", st.Failures)
		if fn := e.o.Webhook.OnSuspend; fn != nil {
			e.safely("OnSuspend", t.Name, func() error { fn(rec.subscription(), r.failure); return nil })
		}
	}
	if r.failure == "" {
		e.store.Finish(ctx, t.Name, c)
		return
	}
	c.Job.Attempts++
	if c.Job.First == 0 {
		c.Job.First = now.UnixMilli()
	}
	elapsed := time.Duration(e.o.Now().UnixMilli()-c.Job.First-c.Job.Paused) * time.Millisecond
	final := r.status == 410 || r.status == 413 // the receiver asks not to retry this one
	if final || c.Job.Attempts >= e.o.Webhook.MaxAttempts || elapsed >= e.o.Webhook.RetryWindow {
		e.log.Info("events: a webhook delivery is given up", "type", t.Name, "subscription", rec.ID, "message", msgID,
			"category", r.failure, "status", r.status, "attempts", c.Job.Attempts, "err", r.err)
		e.store.Finish(ctx, t.Name, c)
		return
	}
	e.store.Retry(ctx, t.Name, c, e.o.Now().Add(e.backoff(c.Job.Attempts)))
}

// backoff is the wait before attempt n+1: full jitter over an exponential
// ceiling, capped at a quarter of the retry window.
func (e *Engine) backoff(n int) time.Duration {
	ceiling := e.o.Webhook.Backoff << min(n-1, 20)
	if limit := e.o.Webhook.RetryWindow / 4; ceiling > limit || ceiling <= 0 {
		ceiling = limit
	}
	return e.o.Webhook.Backoff/2 + rand.N(ceiling)
}

// body builds what a job POSTs and its webhook-id.
func (e *Engine) body(ctx context.Context, t *eventType, rec *WebhookRecord, c Claimed) ([]byte, string, bool) {
	switch c.Job.Kind {
	case "event":
		entry := c.Job.Entry
		sub := rec.subscription()
		ev := &Event{ID: entry.EventID, Time: time.UnixMilli(entry.Time), Data: entry.Data}
		data, ok := e.shape(ctx, t, sub, ev)
		if !ok {
			return nil, "", false
		}
		occ := Occurrence{EventID: entry.EventID, Name: t.Name, Timestamp: timestamp(ev.Time), Data: data}
		if !t.NoReplay {
			// The safe watermark: everything at or before it is delivered or
			// given up. While an earlier event is still queued it is just
			// before that one.
			w := entry.Seq
			if c.Watermark != 0 && c.Watermark < entry.Seq {
				w = c.Watermark - 1
			}
			occ.Cursor = e.cursors.encode(t.Name, position{epoch: c.Job.Epoch, seq: w})
		}
		b, _ := json.Marshal(occ)
		return b, entry.EventID, true
	case "gap":
		var cur *string
		if !t.NoReplay {
			if head, err := e.store.Head(ctx, t.Name, t.limits()); err == nil {
				cur = e.cursors.encode(t.Name, position{epoch: head.Epoch, seq: head.Head})
			}
		}
		b, _ := json.Marshal(GapEnvelope{Type: "gap", Cursor: cur})
		return b, c.Job.MsgID, true
	default:
		return c.Job.Body, c.Job.MsgID, len(c.Job.Body) > 0
	}
}
