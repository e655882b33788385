package events

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/netip"
	"time"
)

// Options tune an Engine. The zero value is usable for one process: every
// bound has a safe default.
type Options struct {
	// Store keeps subscriptions, logs and webhook deliveries; nil keeps them
	// in this process (NewMemoryStore). Replicas share one (redisstore).
	Store Store
	// CursorKey keys the MAC of cursors (at least 32 bytes). nil draws a
	// random key, which only this process knows: replicas must share one,
	// or a cursor from one is refused by the others.
	CursorKey []byte
	// Codes numbers the extension's errors; the zero value means
	// SEP3415Codes.
	Codes Codes

	// Retention is how long a type's log keeps an event for replay, unless
	// the type says otherwise; 0 means 1h.
	Retention time.Duration
	// MaxRetained is how many events a type's log keeps, unless the type
	// says otherwise; 0 means 10,000.
	MaxRetained int
	// MaxEventBytes bounds one event's data (and each transformed copy),
	// within the webhook body size SEP-3415 asks servers to keep to; 0 means
	// 256 KiB. A larger payload fails its Emit.
	MaxEventBytes int

	// MaxSubscriptions bounds webhook subscriptions in all (across replicas,
	// in the store); 0 means 10,000. Each principal may hold its
	// CallerShare of them.
	MaxSubscriptions int
	// MaxSubscriptionBytes bounds what webhook subscriptions store
	// (arguments, URL, secret), in all; 0 means 64 MiB. Each principal may
	// hold its CallerShare.
	MaxSubscriptionBytes int64
	// MaxStreams bounds the push streams this process holds open; 0 means
	// 10,000. Each caller (its principal, else Caller.Key) may hold its
	// CallerShare.
	MaxStreams int
	// MaxPollLeases bounds the (principal, type, arguments) poll leases this
	// process tracks; 0 means 10,000, each caller (its principal, else
	// Caller.Key) its CallerShare.
	MaxPollLeases int
	// CallerShare is the part of each bound one principal may hold; 0
	// means 0.1 (at least one).
	CallerShare float64

	// PollLease is how long a poll subscription lives after its last poll;
	// 0 means 5m. When it lapses its Ended hook runs and, with no other
	// subscription left, the type's Watch stops.
	PollLease time.Duration
	// NextPoll is the nextPollMs poll results suggest; 0 means 5s.
	NextPoll time.Duration
	// MaxPollEvents caps the events of one poll result (and the client's
	// maxEvents); 0 means 100.
	MaxPollEvents int
	// Heartbeat is how often a quiet push stream carries a heartbeat; 0
	// means 25s (SEP-3415: at least every 30s).
	Heartbeat time.Duration
	// StreamBuffer is how many events a push stream may fall behind before
	// it reads them back from the log instead (or, without replay, is told
	// it missed some); 0 means 256.
	StreamBuffer int

	// WebhookTTL is the lifetime granted to a webhook subscription that
	// asks for none; 0 means 1h.
	WebhookTTL time.Duration
	// MinWebhookTTL is the floor a shorter suggestion is raised to; 0
	// means 1m.
	MinWebhookTTL time.Duration
	// MaxWebhookTTL caps a granted lifetime; 0 means 24h.
	MaxWebhookTTL time.Duration
	// AllowNoExpiry grants ttlMs:null (a subscription that never expires)
	// when asked; off by default. Turn it on only with a durable Store.
	AllowNoExpiry bool

	// Webhook tunes webhook delivery.
	Webhook WebhookOptions

	// Logger receives the engine's logs; nil discards them. Secrets never
	// reach it, and callback URLs only without their query.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now. Tests move it.
	Now func() time.Time

	tick time.Duration // the maintenance period (1s); tests shorten it
}

// WebhookOptions tune webhook delivery.
type WebhookOptions struct {
	// AllowLoopbackCallbacks accepts callback URLs on loopback addresses
	// (127.0.0.0/8, ::1), over http as well as https, for tests and local
	// development. Off by default: every callback must be https to a
	// publicly routable address. Other private, link-local and metadata
	// addresses stay refused.
	AllowLoopbackCallbacks bool
	// AllowedCallbacks are URL prefixes ("https://hooks.example.com/") whose
	// callbacks need no verification handshake (SEP-3415's allowlist). They
	// are still checked against private addresses.
	AllowedCallbacks []string
	// Timeout bounds one delivery attempt, from dialing to the end of
	// reading the answer; 0 means 5s.
	Timeout time.Duration
	// MaxAttempts bounds the attempts of one delivery; 0 means 5.
	MaxAttempts int
	// RetryWindow bounds the time from a delivery's first attempt to its
	// last; 0 means 15m. Time suspended does not count.
	RetryWindow time.Duration
	// Backoff is the base of the exponential backoff between attempts (with
	// full jitter, capped at RetryWindow/4); 0 means 2s.
	Backoff time.Duration
	// MaxResponseBytes bounds what is read of an endpoint's answer; 0 means
	// 64 KiB. The rest is not read.
	MaxResponseBytes int64
	// MaxPending bounds the deliveries queued for one subscription; 0 means
	// 1,000. Events beyond it are skipped and the endpoint gets a gap
	// envelope.
	MaxPending int
	// Workers bounds the deliveries this process makes at once; 0 means 32.
	Workers int
	// Lease is how long a claimed delivery stays with the replica that
	// claimed it before another may take it over; 0 means 3×Timeout.
	Lease time.Duration
	// PollEvery is how often this process looks for deliveries queued by
	// others or due for retry; 0 means 500ms.
	PollEvery time.Duration
	// A subscription whose deliveries failed (at least) a rate of the
	// attempts within a window, once it made a minimum of attempts there, is
	// suspended until its next refresh (and reported: deliveryStatus.active
	// false, a log line, OnSuspend). The defaults are the SEP's example:
	// SuspendWindow, SuspendMinAttempts and SuspendFailureRate 0 means 1h,
	// 100 and 0.95.
	SuspendWindow      time.Duration
	SuspendMinAttempts int
	SuspendFailureRate float64
	// OnSuspend, when set, is told of each suspension.
	OnSuspend func(s *Subscription, why Failure)
	// VerificationTTL is how long a verified (principal, callback URL) needs
	// no new handshake; 0 means 24h.
	VerificationTTL time.Duration
	// VerificationsPerHost bounds verification handshakes per callback host
	// per minute from this process; 0 means 10.
	VerificationsPerHost int
	// RotationGrace is how long deliveries are signed with the old secret
	// too after a refresh changed it; 0 means 5m.
	RotationGrace time.Duration
	// LookupHost resolves a callback host; nil means the system resolver.
	// Tests point names at chosen addresses with it.
	LookupHost func(ctx context.Context, host string) ([]netip.Addr, error)
}

func (o *Options) defaults() error {
	if o.Store == nil {
		o.Store = NewMemoryStore()
	}
	switch {
	case o.CursorKey == nil:
		o.CursorKey = make([]byte, 32)
		rand.Read(o.CursorKey)
	case len(o.CursorKey) < 32:
		return errors.New("events: Options.CursorKey must be at least 32 bytes")
	}
	if o.Codes == (Codes{}) {
		o.Codes = SEP3415Codes
	} else if !o.Codes.valid() {
		return errors.New("events: Options.Codes must be five distinct codes in -32099..-32000")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	defInt := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	def(&o.Retention, time.Hour)
	defInt(&o.MaxRetained, 10_000)
	defInt(&o.MaxEventBytes, 256<<10)
	defInt(&o.MaxSubscriptions, 10_000)
	if o.MaxSubscriptionBytes <= 0 {
		o.MaxSubscriptionBytes = 64 << 20
	}
	defInt(&o.MaxStreams, 10_000)
	defInt(&o.MaxPollLeases, 10_000)
	if o.CallerShare <= 0 || o.CallerShare > 1 {
		o.CallerShare = 0.1
	}
	def(&o.PollLease, 5*time.Minute)
	def(&o.NextPoll, 5*time.Second)
	defInt(&o.MaxPollEvents, 100)
	def(&o.Heartbeat, 25*time.Second)
	defInt(&o.StreamBuffer, 256)
	def(&o.WebhookTTL, time.Hour)
	def(&o.MinWebhookTTL, time.Minute)
	def(&o.MaxWebhookTTL, 24*time.Hour)
	if o.MinWebhookTTL > o.MaxWebhookTTL || o.WebhookTTL < o.MinWebhookTTL || o.WebhookTTL > o.MaxWebhookTTL {
		return errors.New("events: Options needs MinWebhookTTL <= WebhookTTL <= MaxWebhookTTL")
	}
	w := &o.Webhook
	def(&w.Timeout, 5*time.Second)
	defInt(&w.MaxAttempts, 5)
	def(&w.RetryWindow, 15*time.Minute)
	def(&w.Backoff, 2*time.Second)
	if w.MaxResponseBytes <= 0 {
		w.MaxResponseBytes = 64 << 10
	}
	defInt(&w.MaxPending, 1000)
	defInt(&w.Workers, 32)
	def(&w.Lease, 3*w.Timeout)
	def(&w.PollEvery, 500*time.Millisecond)
	def(&w.SuspendWindow, time.Hour)
	defInt(&w.SuspendMinAttempts, 100)
	if w.SuspendFailureRate <= 0 || w.SuspendFailureRate > 1 {
		w.SuspendFailureRate = 0.95
	}
	def(&w.VerificationTTL, 24*time.Hour)
	defInt(&w.VerificationsPerHost, 10)
	def(&w.RotationGrace, 5*time.Minute)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// share is one principal's part of bound n: at least one.
func (o *Options) share(n int64) int64 {
	s := int64(float64(n) * o.CallerShare)
	if s < 1 {
		s = 1
	}
	return s
}
