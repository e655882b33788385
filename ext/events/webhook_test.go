package events

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// loopback are options for webhook tests: loopback callbacks allowed,
// quick retries.
func loopback() Options {
	return Options{Webhook: WebhookOptions{AllowLoopbackCallbacks: true, Timeout: 2 * time.Second, Backoff: 10 * time.Millisecond}}
}

func subscribe(t testing.TB, e *Engine, c *Caller, url, secret string, args string) *SubscribeResult {
	t.Helper()
	res, err := e.Subscribe(context.Background(), c, SubscribeParams{Name: "note_added", Arguments: json.RawMessage(args),
		Delivery: Delivery{Mode: ModeWebhook, URL: url, Secret: secret}})
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	return res
}

func waitPost(t testing.TB, rc *receiver, kind string) post {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case p := <-rc.got:
			if p.Kind == kind {
				return p
			}
		case <-timeout:
			t.Fatalf("no %s POST arrived", kind)
		}
	}
}

func TestWebhookVerifiesThenDeliversSigned(t *testing.T) {
	rc := newReceiver(t)
	e := newEngine(t, loopback(), noteAdded())
	secret := newSecret(32)
	res := subscribe(t, e, alice, rc.url("/hooks/a"), secret, `{"prefix":"w"}`)
	if !hasPrefix(res.ID, "sub_") || res.RefreshBefore == nil || res.Cursor == nil || res.Truncated || res.DeliveryStatus != nil {
		t.Fatalf("subscribe result %+v", res)
	}
	v := rc.all("verification")
	if len(v) != 1 {
		t.Fatalf("%d verification POSTs", len(v))
	}
	checkSigned(t, v[0], secret, res.ID)
	if id := v[0].Header.Get("webhook-id"); !hasPrefix(id, "msg_verification_") {
		t.Errorf("verification webhook-id %q", id)
	}
	emit(t, e, "note_added", note(1, "home"))
	out := emit(t, e, "note_added", note(2, "work"))
	p := waitPost(t, rc, "event")
	checkSigned(t, p, secret, res.ID)
	var occ Occurrence
	if err := json.Unmarshal(p.Body, &occ); err != nil {
		t.Fatal(err)
	}
	if occ.EventID != out.EventID || p.Header.Get("webhook-id") != out.EventID || occ.Name != "note_added" || occ.Cursor == nil {
		t.Fatalf("delivery %s with webhook-id %s", p.Body, p.Header.Get("webhook-id"))
	}
	// The delivered cursor is safe to resume from: nothing after it is lost.
	poll, err := e.Poll(context.Background(), alice, PollParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"w"}`), Cursor: occ.Cursor})
	if err != nil || len(poll.Events) != 0 {
		t.Fatalf("poll from the delivered cursor: %+v %v", poll, err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := len(rc.all("event")); n != 1 {
		t.Errorf("%d event POSTs, want 1 (home does not match)", n)
	}
	// A refresh needs no second verification and reports the status.
	again := subscribe(t, e, alice, rc.url("/hooks/a"), secret, `{"prefix":"w"}`)
	if again.ID != res.ID || again.DeliveryStatus == nil || !again.DeliveryStatus.Active || again.DeliveryStatus.LastDeliveryAt == "" {
		t.Fatalf("refresh %+v / %+v", again, again.DeliveryStatus)
	}
	if n := len(rc.all("verification")); n != 1 {
		t.Errorf("%d verifications after a refresh", n)
	}
}

func TestWebhookSubscribeRefusals(t *testing.T) {
	rc := newReceiver(t)
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "evil.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "metadata.test":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		case "mixed.test":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.1.2.3")}, nil
		}
		return nil, fmt.Errorf("no such host")
	}
	strict := newEngine(t, Options{Webhook: WebhookOptions{LookupHost: lookup}}, noteAdded())
	o := loopback()
	o.Webhook.LookupHost = lookup
	lenient := newEngine(t, o, noteAdded())
	ctx := context.Background()
	secret := newSecret(32)
	cases := []struct {
		e      *Engine
		url    string
		secret string
		why    string
	}{
		{strict, rc.url("/h"), secret, "https"},
		{strict, "https://evil.test/h", secret, "not publicly routable"},
		{strict, "https://127.0.0.1/h", secret, "not publicly routable"},
		{strict, "https://[::1]/h", secret, "not publicly routable"},
		{strict, "https://[::ffff:127.0.0.1]/h", secret, "not publicly routable"},
		{lenient, "https://metadata.test/latest", secret, "not publicly routable"},
		{lenient, "http://169.254.169.254/latest", secret, "not publicly routable"},
		{lenient, "https://10.0.0.1/h", secret, "not publicly routable"},
		{lenient, "https://[fd00:ec2::254]/h", secret, "not publicly routable"},
		{lenient, "https://[fe80::1]/h", secret, "not publicly routable"},
		{lenient, "https://100.64.0.1/h", secret, "not publicly routable"},
		{lenient, "https://mixed.test/h", secret, "not publicly routable"},
		{lenient, "https://nowhere.test/h", secret, "does not resolve"},
		{lenient, "ftp://example.com/h", secret, "https"},
		{lenient, "https://user:pw@example.com/h", secret, "credentials"},
		{lenient, "/relative", secret, "absolute"},
		{lenient, rc.url("/h"), "not-a-secret", "whsec_"},
		{lenient, rc.url("/h"), "whsec_" + strings.Repeat("A", 8), "24 to 64"},
		{lenient, rc.url("/h"), newSecret(65), "24 to 64"},
		{lenient, rc.url("/h"), "whsec_***", "base64"},
	}
	for _, c := range cases {
		_, err := c.e.Subscribe(ctx, alice, SubscribeParams{Name: "note_added", Delivery: Delivery{URL: c.url, Secret: c.secret}})
		re := rpcErr(t, err, runtime.CodeInvalidParams)
		if !strings.Contains(re.Message, c.why) {
			t.Errorf("%s: %q does not say %q", c.url, re.Message, c.why)
		}
		if strings.Contains(re.Message, "169.254") || strings.Contains(re.Message, "10.1.2.3") || strings.HasPrefix(c.secret, "whsec_") && len(c.secret) > 10 && strings.Contains(re.Message, c.secret[6:]) {
			t.Errorf("the refusal names an address or the secret: %q", re.Message)
		}
	}
	if n := len(rc.all("")); n != 0 {
		t.Errorf("a refused subscribe reached the endpoint %d times", n)
	}
	_, err := lenient.Subscribe(ctx, nil, SubscribeParams{Name: "note_added", Delivery: Delivery{URL: rc.url("/h"), Secret: secret}})
	rpcErr(t, err, SEP3415Codes.Forbidden)
	_, err = lenient.Subscribe(ctx, alice, SubscribeParams{Name: "note_added", Delivery: Delivery{Mode: ModePoll, URL: rc.url("/h"), Secret: secret}})
	rpcErr(t, err, SEP3415Codes.Unsupported)
}

func TestVerificationFailuresAreCallbackEndpointErrors(t *testing.T) {
	rc := newReceiver(t)
	e := newEngine(t, loopback(), noteAdded())
	ctx := context.Background()
	try := func(answer func(w http.ResponseWriter, r *http.Request, p post)) map[string]any {
		rc.setAnswer(answer)
		_, err := e.Subscribe(ctx, alice, SubscribeParams{Name: "note_added", Delivery: Delivery{URL: rc.url(fmt.Sprintf("/v%d", time.Now().UnixNano())), Secret: newSecret(32)}})
		return dataOf(t, rpcErr(t, err, SEP3415Codes.CallbackEndpointError))
	}
	if d := try(func(w http.ResponseWriter, r *http.Request, p post) { w.Write([]byte(`{"challenge":"wrong"}`)) }); d["reason"] != "challenge_failed" {
		t.Errorf("a wrong echo: %v", d)
	}
	if d := try(func(w http.ResponseWriter, r *http.Request, p post) { w.WriteHeader(500); echo(w, p) }); d["reason"] != "http_5xx" {
		t.Errorf("a 500: %v", d)
	}
	// A 64 MiB answer is read no further than MaxResponseBytes.
	var written atomic.Int64
	start := time.Now()
	d := try(func(w http.ResponseWriter, r *http.Request, p post) {
		chunk := []byte(strings.Repeat("x", 1<<16))
		for range 1024 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	if d["reason"] != "challenge_failed" || time.Since(start) > 3*time.Second {
		t.Errorf("a 64 MiB answer: %v after %v", d, time.Since(start))
	}
	eventually(t, "the 64 MiB writer to give up", func() bool { return written.Load() < 64<<20 })
	// A refused connection.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String() + "/h"
	l.Close()
	_, err := e.Subscribe(ctx, alice, SubscribeParams{Name: "note_added", Delivery: Delivery{URL: dead, Secret: newSecret(32)}})
	if d := dataOf(t, rpcErr(t, err, SEP3415Codes.CallbackEndpointError)); d["reason"] != "connection_refused" {
		t.Errorf("a closed port: %v", d)
	}
	// Nothing was kept of the failed subscriptions.
	v, recs, _ := e.store.Webhooks(ctx, "note_added")
	if len(recs) != 0 {
		t.Errorf("failed subscribes left %d subscriptions (version %d)", len(recs), v)
	}
}

func TestHangingAndRedirectingCallbacksFailBounded(t *testing.T) {
	rc := newReceiver(t)
	other := newReceiver(t)
	o := loopback()
	o.Webhook.Timeout = 200 * time.Millisecond
	o.Webhook.MaxAttempts = 2
	e := newEngine(t, o, noteAdded())
	secret := newSecret(32)
	subscribe(t, e, alice, rc.url("/h"), secret, `{}`)
	release := make(chan struct{})
	defer close(release)
	var mode atomic.Value
	mode.Store("hang")
	rc.setAnswer(func(w http.ResponseWriter, r *http.Request, p post) {
		if p.Kind == "verification" {
			echo(w, p)
			return
		}
		if mode.Load() == "hang" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		http.Redirect(w, r, other.url("/stolen"), http.StatusFound)
	})
	start := time.Now()
	emit(t, e, "note_added", note(1, "a"))
	eventually(t, "two timed-out attempts", func() bool { return len(rc.all("event")) >= 2 })
	if time.Since(start) > 3*time.Second {
		t.Errorf("two attempts of 200ms took %v", time.Since(start))
	}
	st := subscribe(t, e, alice, rc.url("/h"), secret, `{}`).DeliveryStatus
	if st == nil || st.LastError == nil || *st.LastError != "timeout" {
		t.Fatalf("status after hanging %+v", st)
	}
	mode.Store("redirect")
	emit(t, e, "note_added", note(2, "b"))
	eventually(t, "redirect attempts", func() bool { return len(rc.all("event")) >= 4 })
	time.Sleep(50 * time.Millisecond)
	if n := len(other.all("")); n != 0 {
		t.Errorf("the redirect was followed %d times", n)
	}
	st = subscribe(t, e, alice, rc.url("/h"), secret, `{}`).DeliveryStatus
	if *st.LastError != "http_4xx" {
		t.Errorf("status after redirects %+v", st)
	}
}

// A host that resolved to loopback at subscribe time and to the metadata
// address at delivery time is refused at the dial.
func TestDNSRebindingIsRefusedAtDialTime(t *testing.T) {
	rc := newReceiver(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(rc.srv.URL, "http://"))
	var rebound atomic.Bool
	o := loopback()
	o.Webhook.MaxAttempts = 1
	o.Webhook.LookupHost = func(_ context.Context, host string) ([]netip.Addr, error) {
		if rebound.Load() {
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	e := newEngine(t, o, noteAdded())
	secret := newSecret(32)
	res := subscribe(t, e, alice, "http://rebind.test:"+port+"/h", secret, `{}`)
	if v := rc.all("verification"); len(v) != 1 || v[0].Header.Get(SubscriptionIDHeader) != res.ID {
		t.Fatalf("verification %v", v)
	}
	e.client.close() // no kept-alive connection to the old address
	rebound.Store(true)
	emit(t, e, "note_added", note(1, "a"))
	var st WebhookStatus
	eventually(t, "the attempt to fail", func() bool {
		_, sts, _ := e.store.GetWebhooks(context.Background(), []string{res.ID})
		st = sts[0]
		return st.LastError != ""
	})
	if st.LastError != FailureConnectionRefused {
		t.Errorf("rebinding status %+v", st)
	}
	// And a refresh now is refused at subscribe time.
	_, err := e.Subscribe(context.Background(), alice, SubscribeParams{Name: "note_added", Delivery: Delivery{URL: "http://rebind.test:" + port + "/h", Secret: secret}})
	rpcErr(t, err, runtime.CodeInvalidParams)
	if n := len(rc.all("event")); n != 0 {
		t.Errorf("%d deliveries got through after the rebinding", n)
	}
}

func TestRetriesGiveUpAndSuspensionIsReported(t *testing.T) {
	rc := newReceiver(t)
	o := loopback()
	o.Webhook.MaxAttempts = 3
	o.Webhook.SuspendMinAttempts = 5
	var suspended atomic.Int32
	o.Webhook.OnSuspend = func(s *Subscription, why Failure) {
		if why == FailureHTTP5xx {
			suspended.Add(1)
		}
	}
	e := newEngine(t, o, noteAdded())
	secret := newSecret(32)
	res := subscribe(t, e, alice, rc.url("/h"), secret, `{}`)
	var failing atomic.Bool
	failing.Store(true)
	rc.setAnswer(func(w http.ResponseWriter, r *http.Request, p post) {
		if p.Kind == "verification" {
			echo(w, p)
		} else if failing.Load() {
			w.WriteHeader(503)
		}
	})
	first := emit(t, e, "note_added", note(1, "a"))
	eventually(t, "three attempts", func() bool { return len(rc.all("event")) >= 3 })
	time.Sleep(100 * time.Millisecond)
	attempts := rc.all("event")
	if len(attempts) != 3 {
		t.Fatalf("%d attempts, want 3 (MaxAttempts)", len(attempts))
	}
	stamps := map[string]bool{}
	for _, p := range attempts {
		checkSigned(t, p, secret, res.ID)
		if p.Header.Get("webhook-id") != first.EventID {
			t.Errorf("a retry changed the webhook-id to %s", p.Header.Get("webhook-id"))
		}
		stamps[p.Header.Get("webhook-signature")] = true
	}
	emit(t, e, "note_added", note(2, "b"))
	eventually(t, "the subscription to be suspended", func() bool { return suspended.Load() == 1 })
	before := len(rc.all("event"))
	emit(t, e, "note_added", note(3, "c"))
	time.Sleep(150 * time.Millisecond)
	if n := len(rc.all("event")); n != before {
		t.Errorf("a suspended subscription got %d more attempts", n-before)
	}
	failing.Store(false)
	st := subscribe(t, e, alice, rc.url("/h"), secret, `{}`).DeliveryStatus
	if st == nil || st.Active || st.LastError == nil || *st.LastError != "http_5xx" || st.FailedSince == "" {
		t.Fatalf("the refresh after suspension reports %+v", st)
	}
	e.wakeDelivery()
	eventually(t, "the held event to be delivered after the refresh", func() bool {
		for _, p := range rc.all("event") {
			var occ Occurrence
			json.Unmarshal(p.Body, &occ)
			if strings.Contains(string(occ.Data), `"c"`) {
				return true
			}
		}
		return false
	})
	if st := subscribe(t, e, alice, rc.url("/h"), secret, `{}`).DeliveryStatus; !st.Active {
		t.Errorf("still suspended after a refresh: %+v", st)
	}
}

func TestGoneAndTooLargeAreNotRetried(t *testing.T) {
	for _, code := range []int{410, 413} {
		rc := newReceiver(t)
		e := newEngine(t, loopback(), noteAdded())
		subscribe(t, e, alice, rc.url("/h"), newSecret(32), `{}`)
		rc.setAnswer(func(w http.ResponseWriter, r *http.Request, p post) {
			if p.Kind == "verification" {
				echo(w, p)
			} else {
				w.WriteHeader(code)
			}
		})
		emit(t, e, "note_added", note(1, "a"))
		waitPost(t, rc, "event")
		time.Sleep(100 * time.Millisecond)
		if n := len(rc.all("event")); n != 1 {
			t.Errorf("%d: %d attempts", code, n)
		}
	}
}

func TestUnsubscribeAndOwnership(t *testing.T) {
	rc := newReceiver(t)
	var ended sync.Map
	typ := noteAdded()
	typ.Hooks.Ended = func(_ context.Context, s *Subscription, why EndReason) { ended.Store(s.ID, why) }
	e := newEngine(t, loopback(), typ)
	ctx := context.Background()
	res := subscribe(t, e, alice, rc.url("/h"), newSecret(32), `{"prefix":"a"}`)
	// Bob names alice's subscription exactly: it is an unknown one to him.
	err1 := e.Unsubscribe(ctx, bob, UnsubscribeParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"a"}`), Delivery: Delivery{URL: rc.url("/h")}})
	err2 := e.Unsubscribe(ctx, bob, UnsubscribeParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"zzz"}`), Delivery: Delivery{URL: rc.url("/h")}})
	r1, r2 := rpcErr(t, err1, SEP3415Codes.NotFound), rpcErr(t, err2, SEP3415Codes.NotFound)
	if r1.Message != r2.Message || fmt.Sprint(r1.Data) != fmt.Sprint(r2.Data) {
		t.Errorf("someone else's subscription (%q) differs from an unknown one (%q)", r1.Message, r2.Message)
	}
	rpcErr(t, e.Unsubscribe(ctx, nil, UnsubscribeParams{Name: "note_added", Delivery: Delivery{URL: rc.url("/h")}}), SEP3415Codes.Forbidden)
	if err := e.Unsubscribe(ctx, alice, UnsubscribeParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"a"}`), Delivery: Delivery{URL: rc.url("/h")}}); err != nil {
		t.Fatal(err)
	}
	if why, _ := ended.Load(res.ID); why != EndUnsubscribed {
		t.Errorf("Ended: %v", why)
	}
	emit(t, e, "note_added", note(1, "after"))
	time.Sleep(80 * time.Millisecond)
	if n := len(rc.all("event")); n != 0 {
		t.Errorf("%d deliveries after unsubscribe", n)
	}
	rpcErr(t, e.Unsubscribe(ctx, alice, UnsubscribeParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"a"}`), Delivery: Delivery{URL: rc.url("/h")}}), SEP3415Codes.NotFound)
}

func TestWebhookBoundsNameTheBound(t *testing.T) {
	rc := newReceiver(t)
	o := loopback()
	o.MaxSubscriptions = 10
	e := newEngine(t, o, noteAdded())
	ctx := context.Background()
	subscribe(t, e, alice, rc.url("/a"), newSecret(32), `{}`)
	_, err := e.Subscribe(ctx, alice, SubscribeParams{Name: "note_added", Delivery: Delivery{URL: rc.url("/b"), Secret: newSecret(32)}})
	re := rpcErr(t, err, SEP3415Codes.ResourceExhausted)
	if d := dataOf(t, re); d["limit"] != "subscriptions" || d["bound"] != "MaxSubscriptions" || d["max"] != 1.0 || !strings.Contains(re.Message, "MaxSubscriptions") {
		t.Errorf("refusal %q %v", re.Message, d)
	}
	if n := len(rc.all("verification")); n != 1 {
		t.Errorf("the refused subscription was verified (%d handshakes)", n)
	}
	subscribe(t, e, bob, rc.url("/b"), newSecret(32), `{}`)
	// Refreshing what one holds is never refused.
	subscribe(t, e, alice, rc.url("/a"), newSecret(32), `{}`)
}

func TestWebhookTTLExpires(t *testing.T) {
	rc := newReceiver(t)
	o := loopback()
	o.MinWebhookTTL, o.WebhookTTL = 50*time.Millisecond, 50*time.Millisecond
	var ended atomic.Value
	typ := noteAdded()
	typ.Hooks.Ended = func(_ context.Context, s *Subscription, why EndReason) { ended.Store(why) }
	e := newEngine(t, o, typ)
	res, err := e.Subscribe(context.Background(), alice, SubscribeParams{Name: "note_added", TTLMs: TTL{Set: true, Ms: 10},
		Delivery: Delivery{URL: rc.url("/h"), Secret: newSecret(32)}})
	if err != nil {
		t.Fatal(err)
	}
	granted, _ := time.Parse(time.RFC3339Nano, *res.RefreshBefore)
	if d := time.Until(granted); d < 20*time.Millisecond || d > 60*time.Millisecond {
		t.Errorf("a 10ms suggestion was granted %v (floor 50ms)", d)
	}
	eventually(t, "Ended(expired)", func() bool { return ended.Load() == EndExpired })
	emit(t, e, "note_added", note(1, "late"))
	time.Sleep(60 * time.Millisecond)
	if n := len(rc.all("event")); n != 0 {
		t.Errorf("%d deliveries after expiry", n)
	}
	// No expiry is granted only when allowed.
	res, _ = e.Subscribe(context.Background(), alice, SubscribeParams{Name: "note_added", TTLMs: TTL{Set: true, Null: true},
		Delivery: Delivery{URL: rc.url("/h2"), Secret: newSecret(32)}})
	if res == nil || res.RefreshBefore == nil {
		t.Errorf("no expiry granted without AllowNoExpiry: %+v", res)
	}
}

func TestSecretRotationDualSigns(t *testing.T) {
	rc := newReceiver(t)
	e := newEngine(t, loopback(), noteAdded())
	old, fresh := newSecret(32), newSecret(40)
	res := subscribe(t, e, alice, rc.url("/h"), old, `{}`)
	subscribe(t, e, alice, rc.url("/h"), fresh, `{}`)
	emit(t, e, "note_added", note(1, "a"))
	p := waitPost(t, rc, "event")
	checkSigned(t, p, fresh, res.ID)
	checkSigned(t, p, old, res.ID)
	if n := len(strings.Fields(p.Header.Get("webhook-signature"))); n != 2 {
		t.Errorf("%d signatures during the grace window", n)
	}
}

func TestWebhookReplaysFromACursor(t *testing.T) {
	rc := newReceiver(t)
	e := newEngine(t, loopback(), noteAdded())
	start, _ := e.Poll(context.Background(), alice, PollParams{Name: "note_added"})
	emit(t, e, "note_added", note(1, "while away"))
	res, err := e.Subscribe(context.Background(), alice, SubscribeParams{Name: "note_added", Cursor: start.Cursor,
		Delivery: Delivery{URL: rc.url("/h"), Secret: newSecret(32)}})
	if err != nil || res.Truncated {
		t.Fatalf("%+v %v", res, err)
	}
	p := waitPost(t, rc, "event")
	if !strings.Contains(string(p.Body), "while away") {
		t.Errorf("replayed %s", p.Body)
	}
}

// Two engines on one store are two replicas: the event is delivered once.
func TestOneDeliveryPerSubscriptionAcrossReplicas(t *testing.T) {
	rc := newReceiver(t)
	o := loopback()
	o.Store = NewMemoryStore()
	o.CursorKey = []byte(strings.Repeat("k", 32))
	a := newEngine(t, o, noteAdded())
	b := newEngine(t, o, noteAdded())
	subscribe(t, a, alice, rc.url("/h"), newSecret(32), `{}`)
	for i := range 20 {
		emit(t, []*Engine{a, b}[i%2], "note_added", note(i, "x"))
	}
	eventually(t, "20 deliveries", func() bool { return len(rc.all("event")) >= 20 })
	time.Sleep(100 * time.Millisecond)
	seen := map[string]int{}
	for _, p := range rc.all("event") {
		seen[p.Header.Get("webhook-id")]++
	}
	if len(seen) != 20 || len(rc.all("event")) != 20 {
		t.Errorf("%d POSTs of %d events", len(rc.all("event")), len(seen))
	}
}
