package events

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Webhook subscriptions: keyed by (principal, delivery.url, name,
// arguments), so subscribe is an idempotent upsert and the id is derived;
// someone else's subscription is simply another key, which unsubscribe
// answers like an unknown one. A new subscription is held to the bounds
// (atomically, in the store), then to the handler's Subscribe hook, then
// its callback is verified (the handshake, unless verified before or
// allowlisted) before anything is delivered to it.

// pendingTTL bounds how long a subscription being set up is kept if the
// replica setting it up dies.
const pendingTTL = time.Minute

// Subscribe answers events/subscribe.
func (e *Engine) Subscribe(ctx context.Context, c *Caller, p SubscribeParams) (*SubscribeResult, error) {
	if c.principal() == nil {
		return nil, e.codes.forbidden("webhook delivery needs an authenticated principal; use poll or push")
	}
	t, err := e.resolve(c, p.Name, ModeWebhook)
	if err != nil {
		return nil, err
	}
	if p.Delivery.Mode != "" && p.Delivery.Mode != ModeWebhook {
		return nil, e.codes.unsupported("deliveryMode", string(p.Delivery.Mode), "events/subscribe is for webhook delivery; poll with events/poll, push with events/stream")
	}
	if p.MaxAgeMs != nil && *p.MaxAgeMs < 0 {
		return nil, invalidParams("maxAgeMs must not be negative")
	}
	if p.TTLMs.Set && !p.TTLMs.Null && p.TTLMs.Ms <= 0 {
		return nil, invalidParams("ttlMs must be a positive number of milliseconds (or null for no expiry)")
	}
	if _, err := parseSecret(p.Delivery.Secret); err != nil {
		return nil, invalidParams("%v", err)
	}
	args, err := e.arguments(t, p.Arguments)
	if err != nil {
		return nil, err
	}
	u, err := e.client.checkURL(ctx, p.Delivery.URL)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	target := u.String()
	pk := principalKey(c.principal())
	id := subscriptionID(pk, target, t.Name, args)
	now := e.o.Now()
	expiry, refreshBefore := e.grant(p.TTLMs, now)

	recs, sts, err := e.store.GetWebhooks(ctx, []string{id})
	if err != nil {
		return nil, e.unavailable(err)
	}
	rec := &WebhookRecord{ID: id, Type: t.Name, PrincipalKey: pk, Principal: storePrincipal(c.principal()), URL: target,
		Secret: p.Delivery.Secret, OldUntil: now.Add(e.o.Webhook.RotationGrace).UnixMilli(), Arguments: args, Expiry: expiry, Created: now.UnixMilli()}
	if old := recs[0]; old != nil && !old.Pending {
		// A refresh: the same subscription, a new grant and maybe a new secret.
		rec.Effective, rec.Created = old.Effective, old.Created
		if _, _, err := e.store.PutWebhook(ctx, rec, e.bounds()); err != nil {
			return nil, e.putFailed(err)
		}
		e.store.Interest(ctx, t.Name, "w:"+id, interestUntil(expiry))
		res := &SubscribeResult{ID: id, RefreshBefore: refreshBefore, DeliveryStatus: deliveryStatus(sts[0])}
		res.Cursor = e.watermark(ctx, t, id)
		if sts[0].Suspended {
			e.log.Info("events: a suspended webhook subscription is active again after a refresh", "type", t.Name, "subscription", id)
			if err := e.store.Resume(ctx, t.Name, id); err != nil {
				e.log.Warn("events: resuming a subscription's deliveries", "subscription", id, "err", err)
			}
			e.wakeDelivery()
		}
		return res, nil
	}

	// A new subscription: bounds first (nothing is provisioned for one
	// that does not fit), then the handler, then the callback.
	pending := *rec
	pending.Pending, pending.Expiry = true, now.Add(pendingTTL).UnixMilli()
	if _, _, err := e.store.PutWebhook(ctx, &pending, e.bounds()); err != nil {
		return nil, e.putFailed(err)
	}
	sub := rec.subscription()
	fail := func(err error) (*SubscribeResult, error) {
		e.store.DeleteWebhook(context.WithoutCancel(ctx), id)
		return nil, err
	}
	if err := e.accept(ctx, t, sub); err != nil {
		return fail(err)
	}
	rec.Effective = sub.Effective
	if err := e.verify(ctx, rec, pk, target); err != nil {
		return fail(err)
	}
	from, truncated, err := e.start(ctx, t, p.Cursor)
	if err != nil {
		return fail(err)
	}
	if _, _, err := e.store.PutWebhook(ctx, rec, e.bounds()); err != nil {
		return fail(e.putFailed(err))
	}
	if err := e.store.Interest(ctx, t.Name, "w:"+id, interestUntil(expiry)); err != nil {
		e.log.Warn("events: recording a webhook subscription's interest", "type", t.Name, "err", err)
	}
	e.kickWatch(t.Name)
	if p.Cursor != nil && !t.NoReplay {
		more, err := e.replayTo(ctx, t, rec, from, p.MaxAgeMs)
		if err != nil {
			e.log.Warn("events: replaying to a new webhook subscription", "type", t.Name, "subscription", id, "err", err)
		}
		truncated = truncated || more
	}
	e.log.Info("events: webhook subscription created", "type", t.Name, "subscription", id, "callback", redactURL(target))
	res := &SubscribeResult{ID: id, RefreshBefore: refreshBefore, Truncated: truncated}
	res.Cursor = e.watermark(ctx, t, id)
	if res.Cursor == nil {
		res.Cursor = e.cursor(t, from)
	}
	return res, nil
}

// grant decides a subscription's lifetime: the suggestion clamped to
// [MinWebhookTTL, MaxWebhookTTL], the default without one, and no expiry
// only when asked for and allowed.
func (e *Engine) grant(ttl TTL, now time.Time) (expiry int64, refreshBefore *string) {
	var d time.Duration
	switch {
	case !ttl.Set:
		d = e.o.WebhookTTL
	case ttl.Null && e.o.AllowNoExpiry:
		return 0, nil
	case ttl.Null:
		d = e.o.MaxWebhookTTL
	default:
		d = min(max(time.Duration(ttl.Ms)*time.Millisecond, e.o.MinWebhookTTL), e.o.MaxWebhookTTL)
	}
	at := now.Add(d)
	s := timestamp(at)
	return at.UnixMilli(), &s
}

func interestUntil(expiry int64) time.Time {
	if expiry == 0 {
		return time.Now().AddDate(100, 0, 0)
	}
	return time.UnixMilli(expiry)
}

func (e *Engine) bounds() Bounds {
	return Bounds{
		MaxCount: int64(e.o.MaxSubscriptions), MaxCountPerPrincipal: e.o.share(int64(e.o.MaxSubscriptions)),
		MaxBytes: e.o.MaxSubscriptionBytes, MaxBytesPerPrincipal: e.o.share(e.o.MaxSubscriptionBytes),
	}
}

func (e *Engine) putFailed(err error) error {
	var be *BoundError
	if errors.As(err, &be) {
		limit := "subscriptions"
		if be.Bound == "MaxSubscriptionBytes" {
			limit = "subscriptionBytes"
		}
		who := "this server"
		if be.PerPrincipal {
			who = "this principal's share of"
		}
		return e.codes.exhausted(limit, be.Bound, be.Max, fmt.Sprintf("%s %s (%d) is reached", who, be.Bound, be.Max))
	}
	return e.unavailable(err)
}

// watermark is the cursor a subscribe answers: at or before everything
// still queued for the subscription, else the log's head.
func (e *Engine) watermark(ctx context.Context, t *eventType, id string) *string {
	if t.NoReplay {
		return nil
	}
	head, err := e.store.Head(ctx, t.Name, t.limits())
	if err != nil {
		return nil
	}
	at := position{epoch: head.Epoch, seq: head.Head}
	if low, ok, err := e.store.Watermark(ctx, t.Name, id); err == nil && ok {
		at.seq = low - 1
	}
	return e.cursor(t, at)
}

func deliveryStatus(st WebhookStatus) *DeliveryStatus {
	d := &DeliveryStatus{Active: !st.Suspended}
	if st.LastDeliveryAt != 0 {
		d.LastDeliveryAt = timestamp(time.UnixMilli(st.LastDeliveryAt))
	}
	if st.LastError != "" {
		s := string(st.LastError)
		d.LastError = &s
	}
	if st.FailedSince != 0 {
		d.FailedSince = timestamp(time.UnixMilli(st.FailedSince))
	}
	return d
}

// verify confirms that the callback wants deliveries for this principal:
// an allowlisted URL, a verification still valid, or the handshake.
func (e *Engine) verify(ctx context.Context, rec *WebhookRecord, pk, target string) error {
	for _, prefix := range e.o.Webhook.AllowedCallbacks {
		if strings.HasPrefix(target, prefix) {
			return nil
		}
	}
	key := verificationKey(pk, target)
	if ok, err := e.store.Verified(ctx, key); err != nil {
		return e.unavailable(err)
	} else if ok {
		return nil
	}
	u, _ := url.Parse(target)
	if !e.allowVerification(u.Hostname()) {
		return e.codes.exhausted("verifications", "VerificationsPerHost", int64(e.o.Webhook.VerificationsPerHost),
			"too many callback verifications to this host; try again in a minute")
	}
	challenge := randomToken(16)
	body, _ := json.Marshal(VerificationEnvelope{Type: "verification", Challenge: challenge})
	secret, _ := parseSecret(rec.Secret)
	r := e.client.post(ctx, target, e.headers(controlMessageID("verification"), rec.ID, [][]byte{secret}, body), body)
	if r.failure != "" {
		e.log.Info("events: a callback failed its verification", "subscription", rec.ID, "callback", redactURL(target), "category", r.failure, "err", r.err)
		return e.codes.callbackFailed(r.failure, "the callback endpoint could not be verified ("+string(r.failure)+")")
	}
	var echo struct {
		Challenge string `json:"challenge"`
	}
	if json.Unmarshal(r.body, &echo) != nil || subtle.ConstantTimeCompare([]byte(echo.Challenge), []byte(challenge)) != 1 {
		return e.codes.callbackFailed(FailureChallenge, "the callback endpoint did not echo the verification challenge")
	}
	if err := e.store.SetVerified(ctx, key, e.o.Webhook.VerificationTTL); err != nil {
		return e.unavailable(err)
	}
	return nil
}

// allowVerification rate-limits handshakes per callback host.
func (e *Engine) allowVerification(host string) bool {
	now := e.o.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	recent := e.verifies[host][:0]
	for _, at := range e.verifies[host] {
		if now.Sub(at) < time.Minute {
			recent = append(recent, at)
		}
	}
	if len(recent) >= e.o.Webhook.VerificationsPerHost {
		e.verifies[host] = recent
		return false
	}
	if len(e.verifies) > 10_000 {
		clear(e.verifies) // a bounded table; forgetting only makes it lenient
	}
	e.verifies[host] = append(recent, now)
	return true
}

// headers are a delivery's: the Standard Webhooks three and the
// subscription's id.
func (e *Engine) headers(msgID, subID string, secrets [][]byte, body []byte) http.Header {
	ts := e.o.Now().Unix()
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "mcpgen-events")
	h.Set("webhook-id", msgID)
	h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	h.Set("webhook-signature", signature(secrets, msgID, ts, body))
	h.Set(SubscriptionIDHeader, subID)
	return h
}

// Unsubscribe answers events/unsubscribe.
func (e *Engine) Unsubscribe(ctx context.Context, c *Caller, p UnsubscribeParams) error {
	if c.principal() == nil {
		return e.codes.forbidden("webhook subscriptions need an authenticated principal")
	}
	t := e.lookup(p.Name)
	if t == nil {
		return e.codes.notFound("event", fmt.Sprintf("no event type named %q", p.Name))
	}
	args, err := e.arguments(t, p.Arguments)
	if err != nil {
		return err
	}
	u, err := url.Parse(p.Delivery.URL)
	if err != nil || p.Delivery.URL == "" {
		return invalidParams("delivery.url is required: the callback URL the subscription delivers to")
	}
	id := subscriptionID(principalKey(c.principal()), u.String(), t.Name, args)
	rec, err := e.store.DeleteWebhook(ctx, id)
	if err != nil {
		return e.unavailable(err)
	}
	if rec == nil || rec.Pending {
		return e.codes.notFound("subscription", "no webhook subscription matches this name, arguments and delivery.url")
	}
	e.endWebhook(ctx, t, rec, EndUnsubscribed)
	return nil
}

// endWebhook releases what a removed subscription held.
func (e *Engine) endWebhook(ctx context.Context, t *eventType, rec *WebhookRecord, why EndReason) {
	ctx = context.WithoutCancel(ctx)
	e.store.DropQueued(ctx, rec.Type, rec.ID)
	e.store.DropInterest(ctx, rec.Type, "w:"+rec.ID)
	e.kickWatch(rec.Type)
	if !rec.Pending {
		e.ended(t, rec.subscription(), why)
	}
}

// expireWebhooks removes the subscriptions whose TTL passed.
func (e *Engine) expireWebhooks(now time.Time) {
	for {
		recs, err := e.store.ExpireWebhooks(e.ctx, now, 100)
		if err != nil {
			if e.ctx.Err() == nil {
				e.log.Warn("events: expiring webhook subscriptions", "err", err)
			}
			return
		}
		for _, rec := range recs {
			e.endWebhook(e.ctx, e.lookup(rec.Type), rec, EndExpired)
		}
		if len(recs) < 100 {
			return
		}
	}
}
