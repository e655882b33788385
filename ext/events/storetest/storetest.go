// Package storetest holds the contract every events.Store must keep, as
// tests a store's own package runs against it: the in-process store's, and
// redisstore's on a real Redis.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/ext/events"
)

// Run runs the contract against stores made by newStore (a fresh,
// empty store per call).
func Run(t *testing.T, newStore func(t *testing.T) events.Store) {
	t.Run("LogAppendReadTrim", func(t *testing.T) { logAppendReadTrim(t, newStore(t)) })
	t.Run("Listen", func(t *testing.T) { listen(t, newStore(t)) })
	t.Run("WebhookBoundsAndRefresh", func(t *testing.T) { webhookBounds(t, newStore(t)) })
	t.Run("WebhookExpiry", func(t *testing.T) { webhookExpiry(t, newStore(t)) })
	t.Run("QueueClaimsAndLeases", func(t *testing.T) { queue(t, newStore(t)) })
	t.Run("Watcher", func(t *testing.T) { watcher(t, newStore(t)) })
}

var ctx = context.Background()

func entry(id string) events.LogEntry {
	return events.LogEntry{EventID: id, Time: time.Now().UnixMilli(), Data: json.RawMessage(`{"n":1}`)}
}

func logAppendReadTrim(t *testing.T, s events.Store) {
	lim := events.LogLimits{Retention: time.Hour, MaxRetained: 3}
	head, err := s.Head(ctx, "t", lim)
	if err != nil || head.Epoch == "" || head.Head != 0 {
		t.Fatalf("an empty log: %+v %v", head, err)
	}
	for i := range 5 {
		r, err := s.Append(ctx, "t", entry(fmt.Sprint("e", i)), lim)
		if err != nil || r.Seq != uint64(i+1) || r.Prev != uint64(i) || r.Epoch != head.Epoch || r.Duplicate {
			t.Fatalf("append %d: %+v %v", i, r, err)
		}
	}
	if r, _ := s.Append(ctx, "t", entry("e4"), lim); !r.Duplicate || r.Seq != 5 {
		t.Fatalf("a duplicate ID: %+v", r)
	}
	page, err := s.Read(ctx, "t", lim, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 3 || page.Entries[0].Seq != 3 || page.Entries[0].EventID != "e2" || page.Trimmed != 2 || page.Head != 5 {
		t.Fatalf("after trimming to 3: %+v", page)
	}
	if string(page.Entries[0].Data) != `{"n":1}` {
		t.Errorf("data %s", page.Entries[0].Data)
	}
	page, _ = s.Read(ctx, "t", lim, 4, 10)
	if len(page.Entries) != 1 || page.Entries[0].Seq != 5 {
		t.Fatalf("after 4: %+v", page)
	}
	// Without replay nothing is kept, but sequences and duplicates still are.
	nr := events.LogLimits{Retention: time.Hour, MaxRetained: 10, NoReplay: true}
	r, _ := s.Append(ctx, "live", entry("x"), nr)
	r2, _ := s.Append(ctx, "live", entry("x"), nr)
	page, _ = s.Read(ctx, "live", nr, 0, 10)
	if r.Seq != 1 || !r2.Duplicate || len(page.Entries) != 0 {
		t.Fatalf("no replay: %+v %+v %+v", r, r2, page)
	}
	// Retention counts from the append.
	short := events.LogLimits{Retention: 50 * time.Millisecond, MaxRetained: 10}
	s.Append(ctx, "short", entry("a"), short)
	time.Sleep(80 * time.Millisecond)
	page, _ = s.Read(ctx, "short", short, 0, 10)
	if len(page.Entries) != 0 || page.Trimmed != 1 {
		t.Fatalf("past retention: %+v", page)
	}
}

func listen(t *testing.T, s events.Store) {
	got := make(chan events.LogEntry, 10)
	stop, err := s.Listen("t", func(e events.LogEntry, prev uint64) {
		if prev != e.Seq-1 {
			t.Errorf("entry %d came with prev %d", e.Seq, prev)
		}
		got <- e
	})
	if err != nil {
		t.Fatal(err)
	}
	lim := events.LogLimits{Retention: time.Hour, MaxRetained: 10}
	s.Append(ctx, "t", entry("a"), lim)
	s.Append(ctx, "t", entry("b"), lim)
	for _, want := range []string{"a", "b"} {
		select {
		case e := <-got:
			if e.EventID != want {
				t.Fatalf("got %s, want %s", e.EventID, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s was not heard", want)
		}
	}
	stop()
}

func record(id, pk string, args string) *events.WebhookRecord {
	return &events.WebhookRecord{ID: id, Type: "t", PrincipalKey: pk, URL: "https://hooks.example/" + id, Secret: "whsec_one",
		Arguments: json.RawMessage(args), Expiry: time.Now().Add(time.Hour).UnixMilli(), Created: time.Now().UnixMilli()}
}

func webhookBounds(t *testing.T, s events.Store) {
	b := events.Bounds{MaxCount: 3, MaxCountPerPrincipal: 2, MaxBytes: 1 << 20, MaxBytesPerPrincipal: 1 << 20}
	for _, id := range []string{"a1", "a2"} {
		if existed, _, err := s.PutWebhook(ctx, record(id, "alice", `{}`), b); err != nil || existed {
			t.Fatalf("put %s: %v %v", id, existed, err)
		}
	}
	var be *events.BoundError
	if _, _, err := s.PutWebhook(ctx, record("a3", "alice", `{}`), b); !errors.As(err, &be) || !be.PerPrincipal || be.Bound != "MaxSubscriptions" || be.Max != 2 {
		t.Fatalf("alice's third: %v", err)
	}
	s.PutWebhook(ctx, record("b1", "bob", `{}`), b)
	if _, _, err := s.PutWebhook(ctx, record("c1", "carol", `{}`), b); !errors.As(err, &be) || be.PerPrincipal || be.Max != 3 {
		t.Fatalf("the fourth in all: %v", err)
	}
	big := record("b2", "bob", `{"pad":"`+string(make([]byte, 0))+`"}`)
	if _, _, err := s.PutWebhook(ctx, big, events.Bounds{MaxCount: 10, MaxCountPerPrincipal: 10, MaxBytes: 100, MaxBytesPerPrincipal: 100}); !errors.As(err, &be) || be.Bound != "MaxSubscriptionBytes" {
		t.Fatalf("the byte bound: %v", err)
	}
	// A refresh is never refused, rotates the secret and lifts a suspension.
	p := events.SuspendPolicy{Window: time.Hour, MinAttempts: 1, FailureRate: 0.5}
	if st, _ := s.RecordAttempt(ctx, "a1", events.FailureHTTP5xx, time.Now(), p); !st.Suspended || st.LastError != events.FailureHTTP5xx {
		t.Fatalf("after a failure: %+v", st)
	}
	again := record("a1", "alice", `{}`)
	again.Secret, again.OldUntil = "whsec_two", time.Now().Add(time.Minute).UnixMilli()
	existed, st, err := s.PutWebhook(ctx, again, b)
	if err != nil || !existed || !st.Suspended {
		t.Fatalf("refresh: %v %+v %v", existed, st, err)
	}
	recs, sts, _ := s.GetWebhooks(ctx, []string{"a1", "nope"})
	if recs[0] == nil || recs[0].Secret != "whsec_two" || recs[0].OldSecret != "whsec_one" || sts[0].Suspended || recs[1] != nil {
		t.Fatalf("after refresh: %+v %+v", recs[0], sts[0])
	}
	v1, list, _ := s.Webhooks(ctx, "t")
	if len(list) != 3 {
		t.Fatalf("%d subscriptions of t", len(list))
	}
	if rec, _ := s.DeleteWebhook(ctx, "a2"); rec == nil || rec.ID != "a2" {
		t.Fatalf("delete: %+v", rec)
	}
	if rec, _ := s.DeleteWebhook(ctx, "a2"); rec != nil {
		t.Fatal("a second delete found it")
	}
	v2, list, _ := s.Webhooks(ctx, "t")
	if v2 == v1 || len(list) != 2 {
		t.Fatalf("after delete: version %d->%d, %d left", v1, v2, len(list))
	}
	if _, _, err := s.PutWebhook(ctx, record("a3", "alice", `{}`), b); err != nil {
		t.Fatalf("a deleted subscription's share is not given back: %v", err)
	}
}

func webhookExpiry(t *testing.T, s events.Store) {
	b := events.Bounds{MaxCount: 1, MaxCountPerPrincipal: 1, MaxBytes: 1 << 20, MaxBytesPerPrincipal: 1 << 20}
	r := record("x", "alice", `{}`)
	r.Expiry = time.Now().Add(50 * time.Millisecond).UnixMilli()
	if _, _, err := s.PutWebhook(ctx, r, b); err != nil {
		t.Fatal(err)
	}
	time.Sleep(80 * time.Millisecond)
	recs, _, _ := s.GetWebhooks(ctx, []string{"x"})
	if _, list, _ := s.Webhooks(ctx, "t"); recs[0] != nil || len(list) != 0 {
		t.Fatal("an expired subscription is still returned")
	}
	gone, err := s.ExpireWebhooks(ctx, time.Now(), 10)
	if err != nil || len(gone) != 1 || gone[0].ID != "x" {
		t.Fatalf("expire: %v %v", gone, err)
	}
	if gone, _ := s.ExpireWebhooks(ctx, time.Now(), 10); len(gone) != 0 {
		t.Fatal("expired twice")
	}
	if _, _, err := s.PutWebhook(ctx, record("y", "alice", `{}`), b); err != nil {
		t.Fatalf("an expired subscription's share is not given back: %v", err)
	}
}

func job(sub, id string, seq uint64) events.DeliveryJob {
	e := entry(id)
	e.Seq = seq
	return events.DeliveryJob{ID: sub + "/" + id, Sub: sub, Kind: "event", Entry: &e, Epoch: "ep"}
}

func queue(t *testing.T, s events.Store) {
	gapped, err := s.Enqueue(ctx, "t", []events.DeliveryJob{job("s1", "e1", 1), job("s1", "e2", 2), job("s1", "e2", 2), job("s1", "e3", 3)}, 2)
	if err != nil || len(gapped) != 1 || gapped[0] != "s1" {
		t.Fatalf("enqueue beyond the bound: %v %v", gapped, err)
	}
	if low, ok, _ := s.Watermark(ctx, "t", "s1"); !ok || low != 1 {
		t.Fatalf("watermark %d %v", low, ok)
	}
	now := time.Now()
	a, _ := s.Claim(ctx, "t", "A", now, time.Second, 10)
	b, _ := s.Claim(ctx, "t", "B", now, time.Second, 10)
	if len(a) != 2 || len(b) != 0 || a[0].Watermark != 1 {
		t.Fatalf("claims: A %d, B %d", len(a), len(b))
	}
	// A dies with its claims; after the lease B takes them.
	b, _ = s.Claim(ctx, "t", "B", now.Add(1500*time.Millisecond), time.Second, 10)
	if len(b) != 2 {
		t.Fatalf("after the lease B claimed %d", len(b))
	}
	// A's late finish does nothing; B's does.
	s.Finish(ctx, "t", a[0])
	if low, _, _ := s.Watermark(ctx, "t", "s1"); low != 1 {
		t.Fatal("a stale claim finished a job")
	}
	for _, c := range b {
		if c.Job.Entry.Seq == 1 {
			s.Finish(ctx, "t", c)
		} else {
			c.Job.Attempts = 1
			s.Retry(ctx, "t", c, now.Add(time.Hour))
		}
	}
	if low, _, _ := s.Watermark(ctx, "t", "s1"); low != 2 {
		t.Fatalf("watermark after finishing 1: %d", low)
	}
	if c, _ := s.Claim(ctx, "t", "B", now.Add(2*time.Second), time.Second, 10); len(c) != 0 {
		t.Fatalf("a job due in an hour was claimed")
	}
	s.Resume(ctx, "t", "s1")
	c, _ := s.Claim(ctx, "t", "B", time.Now().Add(time.Second), time.Second, 10)
	if len(c) != 1 || c[0].Job.Attempts != 1 {
		t.Fatalf("after resume: %+v", c)
	}
	// Once a delivery completes, the gap may be reported again.
	s.Finish(ctx, "t", c[0])
	if g, _ := s.Enqueue(ctx, "t", []events.DeliveryJob{job("s1", "e4", 4), job("s1", "e5", 5), job("s1", "e6", 6)}, 2); len(g) != 1 {
		t.Fatalf("gapped again: %v", g)
	}
	s.DropQueued(ctx, "t", "s1")
	if _, ok, _ := s.Watermark(ctx, "t", "s1"); ok {
		t.Fatal("dropped jobs are still queued")
	}
	if c, _ := s.Claim(ctx, "t", "B", time.Now().Add(time.Hour), time.Second, 10); len(c) != 0 {
		t.Fatalf("%d dropped jobs claimed", len(c))
	}
	// A fan-out job is queued claimed by the appender, for a type with
	// webhook subscriptions only.
	fan := events.LogLimits{Retention: time.Hour, MaxRetained: 10, Fanout: &events.FanoutClaim{Owner: "A", Lease: time.Second}}
	if r, err := s.Append(ctx, "t", entry("none"), fan); err != nil || r.Fanout != nil {
		t.Fatalf("a fan-out job with no subscription: %+v %v", r.Fanout, err)
	}
	if _, _, err := s.PutWebhook(ctx, record("w", "alice", `{}`), events.Bounds{MaxCount: 10, MaxCountPerPrincipal: 10, MaxBytes: 1 << 20, MaxBytesPerPrincipal: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Append(ctx, "t", entry("f"), events.LogLimits{Retention: time.Hour, MaxRetained: 10, Fanout: &events.FanoutClaim{Owner: "A", Lease: time.Second}})
	if err != nil || r.Fanout == nil || r.Fanout.Job.Kind != "fanout" || r.Fanout.Job.Entry.Seq != r.Seq {
		t.Fatalf("fan-out job: %+v %v", r.Fanout, err)
	}
	if c, _ := s.Claim(ctx, "t", "B", time.Now(), time.Second, 10); len(c) != 0 {
		t.Fatal("a fan-out job was claimed while its appender holds it")
	}
	c, _ = s.Claim(ctx, "t", "B", time.Now().Add(2*time.Second), time.Second, 10)
	if len(c) != 1 || c[0].Job.Kind != "fanout" || c[0].Job.Entry.EventID != "f" || c[0].Job.Epoch != r.Epoch {
		t.Fatalf("the abandoned fan-out: %+v", c)
	}
}

func watcher(t *testing.T, s events.Store) {
	now := time.Now()
	if mine, _ := s.Watcher(ctx, "t", "A", now, time.Second); mine {
		t.Fatal("a watch with no interest")
	}
	s.Interest(ctx, "t", "k", now.Add(time.Hour))
	a, _ := s.Watcher(ctx, "t", "A", now, time.Second)
	b, _ := s.Watcher(ctx, "t", "B", now, time.Second)
	if !a || b {
		t.Fatalf("A %v B %v", a, b)
	}
	// A stops renewing: B takes over once A's watch lapses.
	time.Sleep(1100 * time.Millisecond)
	if b, _ := s.Watcher(ctx, "t", "B", time.Now(), time.Second); !b {
		t.Fatal("B did not take over a lapsed watch")
	}
	s.DropInterest(ctx, "t", "k")
	if b, _ := s.Watcher(ctx, "t", "B", time.Now(), time.Second); b {
		t.Fatal("a watch with no interest left")
	}
	if a, _ := s.Watcher(ctx, "t", "A", time.Now(), time.Second); a {
		t.Fatal("A watches with no interest")
	}
	ok, _ := s.Verified(ctx, "v")
	s.SetVerified(ctx, "v", time.Minute)
	ok2, _ := s.Verified(ctx, "v")
	if ok || !ok2 {
		t.Fatalf("verified %v then %v", ok, ok2)
	}
}
