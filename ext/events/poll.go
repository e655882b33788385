package events

import (
	"context"
	"fmt"
	"time"
)

// Poll holds no protocol state: each events/poll carries its subscription
// and cursor. What the engine keeps is a lease per (principal, type,
// arguments), so that the handler's Subscribe hook runs once per lease
// rather than per poll, the type's watch knows someone polls, and Ended
// runs when the client stops polling (SEP-3415's poll-lease table).

// pollLease is a poll subscription this process has seen.
type pollLease struct {
	t        *eventType
	sub      *Subscription
	pk       string
	until    time.Time // lapses then without another poll
	renewed  time.Time // last written to the store's interest
	accepted bool
}

// maxScan bounds the log entries one poll reads looking for matches, so a
// poll whose arguments match little cannot scan the whole retention at
// once: it answers hasMore and the client polls again.
const maxScanFactor = 10

// Poll answers events/poll.
func (e *Engine) Poll(ctx context.Context, c *Caller, p PollParams) (*PollResult, error) {
	t, err := e.resolve(c, p.Name, ModePoll)
	if err != nil {
		return nil, err
	}
	args, err := e.arguments(t, p.Arguments)
	if err != nil {
		return nil, err
	}
	max := e.o.MaxPollEvents
	if p.MaxEvents != nil {
		if *p.MaxEvents < 1 {
			return nil, invalidParams("maxEvents must be at least 1")
		}
		max = min(max, *p.MaxEvents)
	}
	if p.MaxAgeMs != nil && *p.MaxAgeMs < 0 {
		return nil, invalidParams("maxAgeMs must not be negative")
	}
	sub, err := e.lease(ctx, t, c, args)
	if err != nil {
		return nil, err
	}
	from, truncated, err := e.start(ctx, t, p.Cursor)
	if err != nil {
		return nil, err
	}
	res := &PollResult{Events: []Occurrence{}, NextPollMs: e.o.NextPoll.Milliseconds()}
	if p.Cursor == nil {
		res.Cursor = e.cursor(t, from)
		return res, nil
	}
	var floor int64
	if p.MaxAgeMs != nil {
		floor = e.o.Now().UnixMilli() - *p.MaxAgeMs
	}
	budget := max * maxScanFactor
	at, head := from, from.seq
scan:
	for {
		page, err := e.store.Read(ctx, t.Name, t.limits(), at.seq, min(budget, max*2))
		if err != nil {
			return nil, e.unavailable(err)
		}
		if page.Epoch != at.epoch {
			// The log was replaced while we read: start over from now.
			res.Events, truncated = []Occurrence{}, true
			at, head = position{epoch: page.Epoch, seq: page.Head}, page.Head
			break
		}
		head = page.Head
		for i := range page.Entries {
			entry := &page.Entries[i]
			if len(res.Events) == max || budget == 0 {
				break scan
			}
			budget--
			at.seq = entry.Seq
			if floor != 0 && entry.Time < floor {
				truncated = true
				continue
			}
			ev, ok := e.matches(ctx, t, sub, entry)
			if !ok {
				continue
			}
			data, ok := e.shape(ctx, t, sub, ev)
			if !ok {
				continue
			}
			res.Events = append(res.Events, Occurrence{EventID: entry.EventID, Name: t.Name, Timestamp: timestamp(ev.Time), Data: data})
		}
		if len(page.Entries) == 0 || budget == 0 || len(res.Events) == max {
			break
		}
	}
	res.HasMore = at.seq < head
	res.Cursor, res.Truncated = e.cursor(t, at), truncated
	return res, nil
}

// lease finds or opens the poll lease of (principal, type, arguments): a
// new one is held to the bounds, then to the Subscribe hook.
func (e *Engine) lease(ctx context.Context, t *eventType, c *Caller, args []byte) (*Subscription, error) {
	pk := c.key()
	id := subscriptionID(pk, "", t.Name, args)
	now := e.o.Now()
	e.mu.Lock()
	l := e.leases[id]
	if l != nil && l.accepted && now.Before(l.until) {
		l.until = now.Add(e.o.PollLease)
		renew := now.Sub(l.renewed) > e.o.PollLease/3
		if renew {
			l.renewed = now
		}
		sub := l.sub
		e.mu.Unlock()
		if renew {
			e.store.Interest(ctx, t.Name, "p:"+id, now.Add(e.o.PollLease))
		}
		return sub, nil
	}
	if l == nil {
		total, share := int64(e.o.MaxPollLeases), e.o.share(int64(e.o.MaxPollLeases))
		switch {
		case int64(len(e.leases)) >= total:
			e.mu.Unlock()
			return nil, e.codes.exhausted("subscriptions", "MaxPollLeases", total,
				fmt.Sprintf("this server tracks %d poll subscriptions already (MaxPollLeases)", total))
		case int64(e.pleases[pk]) >= share:
			e.mu.Unlock()
			return nil, e.codes.exhausted("subscriptions", "MaxPollLeases", share,
				fmt.Sprintf("this caller polls %d subscriptions already, its share of MaxPollLeases", share))
		}
		l = &pollLease{t: t, pk: pk, sub: &Subscription{ID: id, Name: t.Name, Mode: ModePoll, Principal: c.principal(), Arguments: args}}
		e.leases[id] = l
		e.pleases[pk]++
	}
	e.mu.Unlock()
	sub := *l.sub
	if err := e.accept(ctx, t, &sub); err != nil {
		e.dropLease(id, l)
		return nil, err
	}
	e.mu.Lock()
	l.sub, l.accepted, l.until, l.renewed = &sub, true, now.Add(e.o.PollLease), now
	e.mu.Unlock()
	if err := e.store.Interest(ctx, t.Name, "p:"+id, now.Add(e.o.PollLease)); err != nil {
		e.log.Warn("events: recording a poll subscription", "type", t.Name, "err", err)
	}
	e.kickWatch(t.Name)
	return &sub, nil
}

func (e *Engine) dropLease(id string, l *pollLease) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.leases[id] == l {
		delete(e.leases, id)
		if e.pleases[l.pk]--; e.pleases[l.pk] <= 0 {
			delete(e.pleases, l.pk)
		}
	}
}

// expireLeases ends the poll leases nobody renewed.
func (e *Engine) expireLeases(now time.Time) {
	e.mu.Lock()
	var gone []*pollLease
	for id, l := range e.leases {
		if l.accepted && !now.Before(l.until) {
			delete(e.leases, id)
			if e.pleases[l.pk]--; e.pleases[l.pk] <= 0 {
				delete(e.pleases, l.pk)
			}
			gone = append(gone, l)
		}
	}
	e.mu.Unlock()
	for _, l := range gone {
		e.store.DropInterest(e.ctx, l.t.Name, "p:"+l.sub.ID)
		e.ended(l.t, l.sub, EndExpired)
	}
}
