package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/ext/events"
	"github.com/mcpgen/mcpgen/ext/events/storetest"
	"github.com/mcpgen/mcpgen/runtime"
)

func newEventStore(t testing.TB, prefix string) *EventStore {
	s := NewEventStore(newClient(t, redisSpec(t)), EventOptions{Prefix: prefix})
	t.Cleanup(func() { s.Close() })
	return s
}

func TestEventStoreKeepsTheStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) events.Store {
		return newEventStore(t, "test:"+t.Name()+":"+randomHex(4)+":")
	})
}

// The scaffold's event type in miniature.
func noteType() events.EventType {
	return events.EventType{
		Name:          "note_added",
		InputSchema:   json.RawMessage(`{"type":"object","properties":{"prefix":{"type":"string"}}}`),
		PayloadSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"title":{"type":"string"}},"required":["id","title"]}`),
		Hooks: events.Hooks{Match: func(_ context.Context, s *events.Subscription, ev *events.Event) bool {
			var a struct{ Prefix string }
			var d struct{ Title string }
			json.Unmarshal(s.Effective, &a)
			json.Unmarshal(ev.Data, &d)
			return strings.HasPrefix(d.Title, a.Prefix)
		}},
	}
}

var owner = &events.Caller{Principal: &runtime.Principal{Issuer: "https://as.test", Subject: "alice", Expiry: time.Now().Add(time.Hour)}}

// replicas starts n engines, each with its own Redis client, on one new
// prefix.
func replicas(t *testing.T, n int, o events.Options) []*events.Engine {
	return replicasOn(t, "test:"+t.Name()+":"+randomHex(4)+":", n, o)
}

// replicasOn starts n engines on prefix.
func replicasOn(t *testing.T, prefix string, n int, o events.Options) []*events.Engine {
	t.Helper()
	o.CursorKey = []byte(strings.Repeat("c", 32))
	var out []*events.Engine
	for range n {
		oo := o
		oo.Store = newEventStore(t, prefix)
		e, err := events.New(oo, noteType())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		out = append(out, e)
	}
	return out
}

func noteEvent(id int, title string) events.Event {
	b, _ := json.Marshal(map[string]any{"id": id, "title": title})
	return events.Event{Data: b}
}

func TestEventsCrossReplicasByPushAndPoll(t *testing.T) {
	rs := replicas(t, 3, events.Options{})
	ctx := context.Background()
	stream, err := rs[1].OpenStream(ctx, owner, json.RawMessage(`1`), events.StreamParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"w"}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	active, _ := stream.Next(ctx)
	start, err := rs[2].Poll(ctx, owner, events.PollParams{Name: "note_added"})
	if err != nil {
		t.Fatal(err)
	}
	for i, title := range []string{"work 1", "home", "work 2"} {
		if _, err := rs[0].Emit(ctx, "note_added", events.Broadcast(), noteEvent(i, title)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for len(got) < 2 {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		n, err := stream.Next(wctx)
		cancel()
		if err != nil {
			t.Fatalf("the stream on replica 2 got %v after %v", err, got)
		}
		if p, ok := n.Params.(*events.EventParams); ok {
			var d struct{ Title string }
			json.Unmarshal(p.Data, &d)
			got = append(got, d.Title)
		}
	}
	if fmt.Sprint(got) != "[work 1 work 2]" {
		t.Fatalf("pushed %v", got)
	}
	res, err := rs[2].Poll(ctx, owner, events.PollParams{Name: "note_added", Cursor: start.Cursor})
	if err != nil || len(res.Events) != 3 {
		t.Fatalf("a poll on replica 3: %+v %v", res, err)
	}
	// The stream's first cursor, from replica 2, resumes on replica 1.
	again, err := rs[0].Poll(ctx, owner, events.PollParams{Name: "note_added", Cursor: active.Params.(*events.ActiveParams).Cursor})
	if err != nil || len(again.Events) != 3 || again.Truncated {
		t.Fatalf("a cursor from another replica: %+v %v", again, err)
	}
}

// dedupReceiver is a webhook endpoint that deduplicates by webhook-id, as
// SEP-3415 asks receivers to.
type dedupReceiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	seen  map[string]int // webhook-id -> POSTs
	hold  chan struct{}  // while set, the first event POST blocks until it closes
	held  chan string
	order []string
}

func newDedupReceiver(t *testing.T) *dedupReceiver {
	d := &dedupReceiver{seen: map[string]int{}, held: make(chan string, 1)}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var env struct{ Type, Challenge string }
		json.Unmarshal(body, &env)
		if env.Type == "verification" {
			json.NewEncoder(w).Encode(map[string]string{"challenge": env.Challenge})
			return
		}
		id := r.Header.Get("webhook-id")
		d.mu.Lock()
		d.seen[id]++
		d.order = append(d.order, id)
		hold := d.hold
		d.hold = nil
		d.mu.Unlock()
		if hold != nil {
			d.held <- id
			select {
			case <-hold:
			case <-r.Context().Done():
			}
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(d.srv.Close)
	return d
}

func (d *dedupReceiver) counts() (distinct, posts int, dup map[string]int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	dup = map[string]int{}
	for id, n := range d.seen {
		posts += n
		if n > 1 {
			dup[id] = n
		}
	}
	return len(d.seen), posts, dup
}

// Kill the replica making a webhook delivery: another makes it once the
// claim lapses, with the same webhook-id; every event is delivered, and
// after the receiver's deduplication none twice.
func TestWebhookDeliveryOutlivesTheReplicaMakingIt(t *testing.T) {
	rcv := newDedupReceiver(t)
	o := events.Options{Webhook: events.WebhookOptions{AllowLoopbackCallbacks: true, Timeout: 5 * time.Second, Lease: time.Second,
		PollEvery: 50 * time.Millisecond, Backoff: 20 * time.Millisecond}}
	prefix := "test:" + t.Name() + ":" + randomHex(4) + ":"
	rs := replicasOn(t, prefix, 1, o)
	ctx := context.Background()
	secret := "whsec_" + strings.Repeat("QUJD", 8)
	if _, err := rs[0].Subscribe(ctx, owner, events.SubscribeParams{Name: "note_added", Delivery: events.Delivery{URL: rcv.srv.URL + "/hook", Secret: secret}}); err != nil {
		t.Fatal(err)
	}
	// Only replica 1 runs at first, so it is the one making the delivery.
	release := make(chan struct{})
	rcv.mu.Lock()
	rcv.hold = release
	rcv.mu.Unlock()
	first, err := rs[0].Emit(ctx, "note_added", events.Broadcast(), noteEvent(0, "first"))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-rcv.held:
		if id != first.EventID {
			t.Fatalf("held %s, emitted %s", id, first.EventID)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first delivery never arrived")
	}
	// Two more replicas join; the one delivering dies mid-delivery: its
	// attempt is cut off and it finishes, retries or releases nothing.
	survivors := replicasOn(t, prefix, 2, o)
	rs[0].Close()
	close(release)
	var emitted []string
	emitted = append(emitted, first.EventID)
	for i := 1; i <= 20; i++ {
		out, err := survivors[i%2].Emit(ctx, "note_added", events.Broadcast(), noteEvent(i, fmt.Sprint("n", i)))
		if err != nil {
			t.Fatal(err)
		}
		emitted = append(emitted, out.EventID)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		distinct, _, dup := rcv.counts()
		// The cut-off delivery is made again after the claim lapses.
		if distinct == len(emitted) && dup[first.EventID] == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events delivered", distinct, len(emitted))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	distinct, posts, dup := rcv.counts()
	rcv.mu.Lock()
	for _, id := range emitted {
		if rcv.seen[id] == 0 {
			t.Errorf("event %s was never delivered", id)
		}
	}
	rcv.mu.Unlock()
	if distinct != len(emitted) {
		t.Errorf("%d distinct deliveries of %d events", distinct, len(emitted))
	}
	// Only the delivery cut off by the kill is made twice.
	if len(dup) != 1 || dup[first.EventID] != 2 {
		t.Errorf("redelivered %v (posts %d)", dup, posts)
	}
}
