package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/redisstore/internal/redisconn"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

// redisSpec returns the Redis deployment the tests share (started by
// test.sh: one server, a Redis Cluster or a Sentinel set), as a
// redisconn spec, or skips.
func redisSpec(t testing.TB) string {
	spec, ok, err := redisconn.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skip("no Redis deployment (MCPGEN_REDIS_ADDR, MCPGEN_REDIS_CLUSTER or MCPGEN_REDIS_SENTINEL): run redisstore/test.sh, which starts one")
	}
	return spec.String()
}

// redisShape is the shape of the shared deployment ("" when none).
func redisShape() redisconn.Shape {
	spec, _, _ := redisconn.FromEnv()
	return spec.Shape
}

// newClient returns a client of the deployment spec names, closed at cleanup.
func newClient(t testing.TB, spec string) redis.UniversalClient {
	s, err := redisconn.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	c := redisconn.New(s, redisconn.Tuning{Timeout: time.Second, MaxRetries: 1})
	t.Cleanup(func() { c.Close() })
	return c
}

// allKeys lists the keys matching pattern on every primary of the
// deployment (KEYS on a cluster client asks one node).
func allKeys(ctx context.Context, t testing.TB, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	cc, ok := rdb.(*redis.ClusterClient)
	if !ok {
		keys, err := rdb.Keys(ctx, pattern).Result()
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	var mu sync.Mutex
	var keys []string
	err := cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		k, err := node.Keys(ctx, pattern).Result()
		mu.Lock()
		keys = append(keys, k...)
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// newStores returns n Stores on one Redis under a prefix of this test's own.
func newStores(t testing.TB, n int, opts Options) []*Store {
	spec := redisSpec(t)
	if opts.Prefix == "" {
		opts.Prefix = "test:" + t.Name() + ":" + randomHex(4) + ":"
	}
	var out []*Store
	for range n {
		st, err := New(context.Background(), newClient(t, spec), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		out = append(out, st)
	}
	return out
}

func TestSessionsAreSharedAndDeletedEverywhere(t *testing.T) {
	ss := newStores(t, 2, Options{SessionIdle: time.Minute})
	a, b := ss[0].Sessions(), ss[1].Sessions()
	ctx := context.Background()
	st := runtime.SessionState{ID: "s1", ProtocolVersion: "2025-06-18",
		ClientCapabilities: json.RawMessage(`{"elicitation":{}}`), ClientInfo: json.RawMessage(`{"name":"c","version":"1"}`)}
	if err := a.Create(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, st); err == nil {
		t.Fatal("creating an existing session succeeded")
	}
	got, err := b.Load(ctx, "s1")
	if err != nil || got.ProtocolVersion != "2025-06-18" || string(got.ClientInfo) != `{"name":"c","version":"1"}` ||
		string(got.ClientCapabilities) != `{"elicitation":{}}` {
		t.Fatalf("Load on the other replica = %+v, %v", got, err)
	}
	if _, err := b.Update(ctx, "s1", func(st *runtime.SessionState) { st.LogLevel, st.Initialized = "debug", true }); err != nil {
		t.Fatal(err)
	}
	if again, _ := a.Load(ctx, "s1"); again.LogLevel != "debug" || !again.Initialized {
		t.Fatalf("A does not see B's save: %+v", again)
	}
	// Idle expiry: every Load restarts it.
	ttl := ss[0].rdb.PTTL(ctx, ss[0].sessionKey("s1")).Val()
	if ttl <= 0 || ttl > time.Minute {
		t.Fatalf("session TTL = %v, want (0, 1m]", ttl)
	}
	if err := a.Delete(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Load(ctx, "s1"); !errors.Is(err, runtime.ErrSessionNotFound) {
		t.Fatalf("Load after Delete on another replica: %v", err)
	}
	if _, err := b.Update(ctx, "s1", func(st *runtime.SessionState) { st.LogLevel = "info" }); !errors.Is(err, runtime.ErrSessionNotFound) {
		t.Fatalf("Update resurrected a deleted session: %v", err)
	}
	if _, err := b.Load(ctx, "s1"); !errors.Is(err, runtime.ErrSessionNotFound) {
		t.Fatalf("Load after Update of a deleted session: %v", err)
	}
}

func TestSessionIdleExpiry(t *testing.T) {
	ss := newStores(t, 1, Options{SessionIdle: 50 * time.Millisecond})
	ctx := context.Background()
	if err := ss[0].Sessions().Create(ctx, runtime.SessionState{ID: "idle"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := ss[0].Sessions().Load(ctx, "idle")
		if errors.Is(err, runtime.ErrSessionNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session still alive after 5s with a 50ms idle expiry (Load refreshes it, so this polls without it: %v)", err)
		}
		// Wait without touching it: PTTL shows the expiry running down.
		for ss[0].rdb.PTTL(ctx, ss[0].sessionKey("idle")).Val() > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

type answerBox chan runtime.Answer

func (b answerBox) deliver(a runtime.Answer) { b <- a }

func wait(t *testing.T, ch answerBox) runtime.Answer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(5 * time.Second):
		t.Fatal("no answer delivered within 5s")
		return runtime.Answer{}
	}
}

// requestID is a server-to-client request ID as the runtime makes it on
// the replica of st ("<replica>.<copy>-<n>").
func requestID(st *Store, n int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`"%s.0a1b2c3d-%d"`, st.ReplicaID(), n))
}

func TestAnswersAreRoutedToTheWaitingReplica(t *testing.T) {
	ss := newStores(t, 3, Options{})
	a, b, c := ss[0].Pending(), ss[1].Pending(), ss[2].Pending()
	ctx := context.Background()
	id := requestID(ss[0], 1)
	box := make(answerBox, 2)
	if err := a.Register(ctx, "s1", id, box.deliver); err != nil {
		t.Fatal(err)
	}
	if err := a.Register(ctx, "s1", id, box.deliver); err == nil {
		t.Fatal("registered the same (session, ID) twice")
	}
	// Another session's answer to this ID is unknown everywhere.
	for i, r := range []runtime.PendingRouter{a, b, c} {
		if res, err := r.Resolve(ctx, "s2", id, runtime.Answer{Result: json.RawMessage(`{"x":1}`)}); err != nil || res != runtime.Unknown {
			t.Fatalf("replica %d: another session's answer resolved as %v, %v", i, res, err)
		}
	}
	res, err := b.Resolve(ctx, "s1", id, runtime.Answer{Result: json.RawMessage(`{"action":"accept"}`)})
	if err != nil || res != runtime.Delivered {
		t.Fatalf("Resolve on B = %v, %v", res, err)
	}
	if got := wait(t, box); string(got.Result) != `{"action":"accept"}` {
		t.Fatalf("A got %s", got.Result)
	}
	// A duplicate answer, on any replica, is "expired".
	for i, r := range []runtime.PendingRouter{a, b, c} {
		if res, _ := r.Resolve(ctx, "s1", id, runtime.Answer{Result: json.RawMessage(`{}`)}); res != runtime.Expired {
			t.Fatalf("replica %d: duplicate answer resolved as %v", i, res)
		}
	}
	// An error answer crosses too, and an answer on the owner itself is local.
	id2 := requestID(ss[0], 2)
	if err := a.Register(ctx, "s1", id2, box.deliver); err != nil {
		t.Fatal(err)
	}
	if res, _ := c.Resolve(ctx, "s1", id2, runtime.Answer{Error: &runtime.Error{Code: -1, Message: "no"}}); res != runtime.Delivered {
		t.Fatalf("forwarded error answer = %v", res)
	}
	if got := wait(t, box); got.Error == nil || got.Error.Message != "no" {
		t.Fatalf("got %+v", got)
	}
	id3 := requestID(ss[0], 3)
	if err := a.Register(ctx, "s1", id3, box.deliver); err != nil {
		t.Fatal(err)
	}
	if res, _ := a.Resolve(ctx, "s1", json.RawMessage(" "+string(id3)+" "), runtime.Answer{Result: json.RawMessage(`{}`)}); res != runtime.Delivered {
		t.Fatalf("local resolve = %v", res)
	}
	wait(t, box)
	// IDs no replica sends are unknown without asking anyone: a number, a
	// string without a replica's prefix.
	for _, other := range []string{`7`, `"7"`, `"r1-1"`} {
		if res, err := c.Resolve(ctx, "s1", json.RawMessage(other), runtime.Answer{}); err != nil || res != runtime.Unknown {
			t.Fatalf("%s resolved as %v, %v", other, res, err)
		}
	}
}

func TestExpiredAndGoneRequestsAreExpiredEverywhere(t *testing.T) {
	ss := newStores(t, 3, Options{})
	a, b, c := ss[0].Pending(), ss[1].Pending(), ss[2].Pending()
	ctx := context.Background()
	box := make(answerBox, 1)
	x1, x2 := requestID(ss[0], 1), requestID(ss[0], 2)
	if err := a.Register(ctx, "s", x1, box.deliver); err != nil {
		t.Fatal(err)
	}
	a.Expire(ctx, "s", x1, true)
	for i, r := range []runtime.PendingRouter{a, b, c} {
		if res, err := r.Resolve(ctx, "s", x1, runtime.Answer{Result: json.RawMessage(`{}`)}); err != nil || res != runtime.Expired {
			t.Fatalf("replica %d: late answer = %v, %v", i, res, err)
		}
	}
	// Expire without a tombstone (never sent): unknown afterwards.
	if err := a.Register(ctx, "s", x2, box.deliver); err != nil {
		t.Fatal(err)
	}
	a.Expire(ctx, "s", x2, false)
	if res, _ := b.Resolve(ctx, "s", x2, runtime.Answer{}); res != runtime.Unknown {
		t.Fatalf("never-sent request resolved as %v", res)
	}
	// The waiting replica goes away: its answers are "expired", not lost silently.
	y1 := requestID(ss[2], 1)
	if err := c.Register(ctx, "s", y1, box.deliver); err != nil {
		t.Fatal(err)
	}
	ss[2].Close()
	if res, err := b.Resolve(ctx, "s", y1, runtime.Answer{Result: json.RawMessage(`{}`)}); err != nil || res != runtime.Expired {
		t.Fatalf("answer for a gone replica = %v, %v", res, err)
	}
	select {
	case a := <-box:
		t.Fatalf("unexpected delivery %+v", a)
	default:
	}
	// Nothing of all this is in Redis: requests and tombstones live in the
	// replica that asked.
	for _, k := range allKeys(ctx, t, ss[0].rdb, ss[0].opts.Prefix+"*") {
		if !strings.HasPrefix(k, ss[0].opts.Prefix+"replica:") {
			t.Errorf("the router wrote %s", k)
		}
	}
}

func TestEventsReplayOnAnyReplica(t *testing.T) {
	ss := newStores(t, 2, Options{EventsPerStream: 4})
	a, b := ss[0].Events(), ss[1].Events()
	ctx := context.Background()
	prime, err := a.Append(ctx, "s", "r1.1", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range []string{"one", "two", "three"} {
		id, err := a.Append(ctx, "s", "r1.1", []byte(d))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if _, err := a.Append(ctx, "s", "r1.2", []byte("other stream")); err != nil {
		t.Fatal(err)
	}
	var got []string
	stream, err := b.Replay(ctx, "s", prime, func(id string, d []byte) error { got = append(got, id+"="+string(d)); return nil })
	if err != nil || stream != "r1.1" {
		t.Fatalf("Replay = %q, %v", stream, err)
	}
	want := []string{ids[0] + "=one", ids[1] + "=two", ids[2] + "=three"}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("replayed %q, want %q", got, want)
	}
	if s, ok := b.StreamOf("s", ids[1]); !ok || s != "r1.1" {
		t.Fatalf("StreamOf = %q, %v", s, ok)
	}
	got = nil
	if _, err := b.Replay(ctx, "s", ids[1], func(id string, d []byte) error { got = append(got, string(d)); return nil }); err != nil || len(got) != 1 || got[0] != "three" {
		t.Fatalf("replay after the 2nd event = %q, %v", got, err)
	}
	// Another session never sees these events.
	if _, err := b.Replay(ctx, "other", prime, func(string, []byte) error { t.Fatal("replayed another session's event"); return nil }); err != nil {
		t.Fatalf("other session: %v", err)
	}
	// Bounded length: two more events evict the priming event and "one".
	for _, d := range []string{"four", "five"} {
		if _, err := a.Append(ctx, "s", "r1.1", []byte(d)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Replay(ctx, "s", prime, func(string, []byte) error { return nil }); !errors.Is(err, runtime.ErrEventNotFound) {
		t.Fatalf("replay from an evicted event: %v", err)
	}
	for _, bad := range []string{"", "x", "r1.1_", "_1-0", "r1.1_abc", "r1.1_1p", "r1.1_1pzzzzzzzzzzzz", "r1.1_p0123456789ab"} {
		if _, err := b.Replay(ctx, "s", bad, func(string, []byte) error { return nil }); !errors.Is(err, runtime.ErrEventNotFound) {
			t.Fatalf("Replay(%q): %v", bad, err)
		}
	}
	// TTL is set, and DeleteSession drops everything.
	if ttl := ss[0].rdb.PTTL(ctx, ss[0].eventsKey("s", "r1.1")).Val(); ttl <= 0 {
		t.Fatalf("events TTL = %v", ttl)
	}
	if err := b.DeleteSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if n := ss[0].rdb.Exists(ctx, ss[0].eventsKey("s", "r1.1"), ss[0].eventsKey("s", "r1.2"), ss[0].streamsKey("s")).Val(); n != 0 {
		t.Fatalf("%d keys of the session's events outlive DeleteSession", n)
	}
	if _, err := a.Replay(ctx, "s", ids[0], func(string, []byte) error { t.Fatal("replayed a deleted event"); return nil }); err != nil {
		t.Fatalf("replay after DeleteSession: %v", err)
	}
}

// A StreamEventStore stream: its priming event is named, not stored; its
// first event indexes it for deletion; a replay from the priming ID
// replays everything, a replay from a later priming ID (after events) what
// follows, and a replay from before evicted events fails.
func TestStreamEventsNeedNoPrimingWrite(t *testing.T) {
	st := newStores(t, 1, Options{EventsPerStream: 3})[0]
	es := st.Events().(runtime.StreamEventStore)
	ctx := context.Background()
	prime := es.PrimeAfter("s", "x.1", "")
	if n := st.rdb.Exists(ctx, st.eventsKey("s", "x.1"), st.streamsKey("s")).Val(); n != 0 {
		t.Fatalf("priming wrote %d keys", n)
	}
	last := ""
	var ids []string
	for _, d := range []string{"one", "two"} {
		id, err := es.AppendAfter(ctx, "s", "x.1", last, []byte(d))
		if err != nil {
			t.Fatal(err)
		}
		ids, last = append(ids, id), id
	}
	if m := st.rdb.SMembers(ctx, st.streamsKey("s")).Val(); len(m) != 1 || m[0] != st.eventsKey("s", "x.1") {
		t.Fatalf("the session's stream index is %q", m)
	}
	replayed := func(from string) ([]string, error) {
		var got []string
		_, err := es.Replay(ctx, "s", from, func(id string, d []byte) error { got = append(got, id+"="+string(d)); return nil })
		return got, err
	}
	if got, err := replayed(prime); err != nil || strings.Join(got, " ") != ids[0]+"=one "+ids[1]+"=two" {
		t.Fatalf("replay from the priming event: %q, %v", got, err)
	}
	reprime := es.PrimeAfter("s", "x.1", last) // a stream primed again after events (a GET stream reopened)
	again := es.PrimeAfter("s", "x.1", last)   // ... and again, on another connection
	if seen := map[string]bool{prime: true, ids[0]: true, ids[1]: true}; seen[reprime] || reprime == again {
		t.Fatalf("priming IDs %q and %q repeat an ID of the stream (%q, %q, %q)", reprime, again, prime, ids[0], ids[1])
	}
	if s, ok := es.StreamOf("s", reprime); !ok || s != "x.1" {
		t.Fatalf("StreamOf(%q) = %q, %v", reprime, s, ok)
	}
	three, err := es.AppendAfter(ctx, "s", "x.1", last, []byte("three"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := replayed(reprime); err != nil || strings.Join(got, " ") != three+"=three" {
		t.Fatalf("replay from the second priming event: %q, %v", got, err)
	}
	if _, err := es.AppendAfter(ctx, "s", "x.1", three, []byte("four")); err != nil {
		t.Fatal(err)
	}
	if got, err := replayed(prime); !errors.Is(err, runtime.ErrEventNotFound) {
		t.Fatalf("replay from before an evicted event: %q, %v", got, err)
	}
}

// An event larger than MaxEventBytes is kept as a resume point without its
// data: it replays as nothing, the events around it replay, and Redis does
// not hold its bytes.
func TestOversizedEventIsNotStored(t *testing.T) {
	st := newStores(t, 1, Options{MaxEventBytes: 64 << 10})[0]
	es := st.Events()
	ctx := context.Background()
	first, err := es.Append(ctx, "s", "1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := es.Append(ctx, "s", "1", bytes.Repeat([]byte("x"), 1<<20)); err != nil {
		t.Fatal(err)
	}
	if _, err := es.Append(ctx, "s", "1", []byte(`{"small":true}`)); err != nil {
		t.Fatal(err)
	}
	var got []string
	if _, err := es.Replay(ctx, "s", first, func(_ string, d []byte) error { got = append(got, string(d)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != `{"small":true}` {
		t.Fatalf("replayed %d events (first %.40q); want only the small one", len(got), got)
	}
	if n := st.rdb.MemoryUsage(ctx, st.eventsKey("s", "1")).Val(); n > 64<<10 {
		t.Fatalf("the stream's key uses %d bytes of Redis", n)
	}
}

func TestBusCrossesReplicasAndClosesOnDelete(t *testing.T) {
	ss := newStores(t, 2, Options{})
	a, b := ss[0], ss[1]
	ctx := context.Background()
	// Publish's count is not asserted: on a Redis Cluster it is what one
	// node counted. Delivery is what the test checks. (Nor is a message
	// published before the subscription: on a cluster the bus between the
	// nodes may bring it to a subscription made a moment later.)
	msgs, cancel, err := a.Subscribe(ctx, "s", "get")
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	other, cancelOther, err := a.Subscribe(ctx, "s2", "get")
	if err != nil {
		t.Fatal(err)
	}
	defer cancelOther()
	for i := range 3 {
		if _, err := b.Publish(ctx, "s", "get", []byte{byte('0' + i)}); err != nil {
			t.Fatalf("Publish: %v", err)
		}
	}
	for i := range 3 {
		select {
		case m := <-msgs:
			if string(m) != string(rune('0'+i)) {
				t.Fatalf("message %d = %q", i, m)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("bus message not received")
		}
	}
	if err := b.Sessions().Create(ctx, runtime.SessionState{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Sessions().Delete(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-msgs:
		if ok {
			t.Fatal("message after delete")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("subscription not closed by a delete on another replica")
	}
	select {
	case m, ok := <-other:
		t.Fatalf("other session's subscription got %q, %v", m, ok)
	default:
	}
}

func TestConfigureSelectsEverything(t *testing.T) {
	st := newStores(t, 1, Options{PendingTTL: time.Minute})[0]
	var o runtime.Options
	st.Configure(&o)
	if o.Sessions == nil || o.Pending == nil || o.Events == nil || o.Bus == nil || o.StateLedger == nil || o.ReplicaID != st.ReplicaID() || o.ReplicaID == "" {
		t.Fatalf("Configure left %+v", o)
	}
	if o.RequestTimeout != time.Minute || o.SessionIdleTimeout != 30*time.Minute {
		t.Fatalf("RequestTimeout %v, SessionIdleTimeout %v", o.RequestTimeout, o.SessionIdleTimeout)
	}
	o = runtime.Options{RequestTimeout: 5 * time.Second, SessionIdleTimeout: time.Hour}
	st.Configure(&o)
	if o.RequestTimeout != 5*time.Second || o.SessionIdleTimeout != time.Hour {
		t.Fatalf("Configure overrode explicit timeouts: %v %v", o.RequestTimeout, o.SessionIdleTimeout)
	}
}
