package events

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Store is where an Engine keeps what must outlive a request: each event
// type's log (for replay and for the replicas' live fan-out), webhook
// subscriptions with their bounds and delivery status, the queue of webhook
// deliveries with their claims, the verified callbacks, and who is
// interested in each type (which decides who watches its upstream).
// NewMemoryStore keeps them in one process; redisstore.EventStore on Redis,
// shared by replicas. Every method bounds its own wait by ctx.
type Store interface {
	// Append adds e to typ's log with the next sequence number, keeping at
	// most lim.MaxRetained events for lim.Retention from their append (none with
	// lim.NoReplay: the sequence is still assigned), and hands it to the
	// Listen functions of every process. An e.EventID already in the log
	// (or, without replay, seen within the retention) is a Duplicate: not
	// appended, not delivered.
	Append(ctx context.Context, typ string, e LogEntry, lim LogLimits) (AppendResult, error)
	// Read returns up to limit entries of typ's log after seq, in order,
	// none older than lim.Retention (by when they were appended).
	Read(ctx context.Context, typ string, lim LogLimits, after uint64, limit int) (LogPage, error)
	// Head returns typ's log epoch, last sequence and the highest sequence
	// retention dropped (an empty log gets its epoch here).
	Head(ctx context.Context, typ string, lim LogLimits) (LogPage, error)
	// Listen calls fn with each entry appended to typ's log by any process
	// (and prev, the sequence before it when the store knows it, 0 when it
	// does not), until stop. fn must not block. Entries may be lost or
	// reordered between processes; the engine catches up from the log when
	// prev says it missed one.
	Listen(typ string, fn func(e LogEntry, prev uint64)) (stop func(), err error)

	// PutWebhook creates the subscription rec.ID or refreshes it (its
	// expiry, effective arguments and Pending mark, and its secret: a
	// changed secret keeps signing as OldSecret until rec.OldUntil; a
	// refresh also lifts a suspension), within b. A new one that would pass a bound fails with
	// a *BoundError naming it. It returns whether it existed, and its
	// delivery status.
	PutWebhook(ctx context.Context, rec *WebhookRecord, b Bounds) (existed bool, st WebhookStatus, err error)
	// GetWebhooks returns the live subscriptions among ids (nil where one
	// is unknown or expired), with their statuses.
	GetWebhooks(ctx context.Context, ids []string) ([]*WebhookRecord, []WebhookStatus, error)
	// DeleteWebhook removes a subscription and returns it (nil if unknown).
	DeleteWebhook(ctx context.Context, id string) (*WebhookRecord, error)
	// Webhooks returns typ's live subscriptions and the version of that
	// set, which changes whenever a subscription of typ is added, removed
	// or refreshed.
	Webhooks(ctx context.Context, typ string) (version uint64, recs []*WebhookRecord, err error)
	// ExpireWebhooks removes up to max subscriptions whose expiry passed and
	// returns them; each is returned to one caller only.
	ExpireWebhooks(ctx context.Context, now time.Time, max int) ([]*WebhookRecord, error)
	// RecordAttempt adds a delivery attempt's outcome to a subscription's
	// status under p (suspending it when p says so) and returns the status;
	// nothing for an unknown subscription.
	RecordAttempt(ctx context.Context, id string, failure Failure, now time.Time, p SuspendPolicy) (WebhookStatus, error)

	// Enqueue queues deliveries; a job whose ID is queued already is left
	// as it is. An event job of a subscription with maxPending queued is
	// skipped: the subscription is then returned in gapped (once, until a
	// delivery of it completes).
	Enqueue(ctx context.Context, typ string, jobs []DeliveryJob, maxPending int) (gapped []string, err error)
	// Claim takes up to max jobs of typ due at now for owner until
	// now+lease; a job whose claim lapsed is due again. Each comes with
	// its subscription's watermark.
	Claim(ctx context.Context, typ, owner string, now time.Time, lease time.Duration, max int) ([]Claimed, error)
	// Finish ends a claimed job (delivered, or given up): it is dequeued
	// if tok still holds its claim.
	Finish(ctx context.Context, typ string, c Claimed) error
	// Retry puts a claimed job back, due at due, with its attempt count.
	Retry(ctx context.Context, typ string, c Claimed, due time.Time) error
	// Watermark returns the lowest sequence queued for sub (ok false when
	// none is).
	Watermark(ctx context.Context, typ, sub string) (seq uint64, ok bool, err error)
	// DropQueued removes every job queued for sub.
	DropQueued(ctx context.Context, typ, sub string) error
	// Resume makes every job queued for sub due now (its suspension was
	// lifted).
	Resume(ctx context.Context, typ, sub string) error

	// Verified reports whether key was verified within its TTL;
	// SetVerified records it.
	Verified(ctx context.Context, key string) (bool, error)
	SetVerified(ctx context.Context, key string, ttl time.Duration) error

	// Interest records that key (a stream, a poll lease, a webhook
	// subscription) wants typ until until; DropInterest ends it.
	Interest(ctx context.Context, typ, key string, until time.Time) error
	DropInterest(ctx context.Context, typ, key string) error
	// Watcher decides who watches typ's upstream: with no live interest it
	// releases owner's watch and returns false; otherwise it takes the
	// watch for owner for ttl if nobody holds it (or renews owner's) and
	// returns whether owner holds it.
	Watcher(ctx context.Context, typ, owner string, now time.Time, ttl time.Duration) (bool, error)
}

// LogEntry is one event as a type's log keeps it.
type LogEntry struct {
	Seq     uint64          `json:"s"`
	EventID string          `json:"id"`
	Time    int64           `json:"t"` // Unix milliseconds
	Data    json.RawMessage `json:"d"`
	// To is the subscription a targeted event is for; "" for a broadcast.
	To string `json:"to,omitempty"`
}

// LogLimits bound a type's log.
type LogLimits struct {
	Retention   time.Duration
	MaxRetained int
	NoReplay    bool
	// Fanout, when set, queues (in the same step as the append) a job
	// "fanout/<seq>" that expands the event into its webhook deliveries,
	// claimed by the appender: if it dies before expanding it, another
	// replica does once the claim lapses. A type with no webhook
	// subscription (pending ones count) gets no job.
	Fanout *FanoutClaim
}

// FanoutClaim is who claims an appended event's fan-out job, and for how
// long.
type FanoutClaim struct {
	Owner string
	Lease time.Duration
}

// AppendResult is what Append did.
type AppendResult struct {
	Seq, Prev uint64
	Epoch     string
	Duplicate bool
	// WebhooksVersion is the version of the type's webhook subscriptions
	// (Webhooks) at the time of the append.
	WebhooksVersion uint64
	// Fanout is the claimed fan-out job (with LogLimits.Fanout).
	Fanout *Claimed
}

// LogPage is a stretch of a type's log.
type LogPage struct {
	Epoch   string
	Entries []LogEntry
	// Head is the last sequence assigned; Trimmed the highest dropped by
	// retention (a cursor below it has missed events).
	Head, Trimmed uint64
}

// WebhookRecord is a webhook subscription as the store keeps it.
type WebhookRecord struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	PrincipalKey string           `json:"pk"`
	Principal    *storedPrincipal `json:"p,omitempty"`
	URL          string           `json:"url"`
	Secret       string           `json:"secret"`
	// OldSecret also signs deliveries until OldUntil (Unix ms) after a
	// rotation.
	OldSecret string          `json:"old,omitempty"`
	OldUntil  int64           `json:"oldUntil,omitempty"`
	Arguments json.RawMessage `json:"args"`
	Effective json.RawMessage `json:"eff,omitempty"`
	// Expiry is when it lapses (Unix ms); 0 never.
	Expiry  int64 `json:"exp"`
	Created int64 `json:"created"`
	// Pending marks a subscription still being set up (bounds reserved,
	// its handler asked, its callback being verified): it receives nothing.
	Pending bool `json:"pending,omitempty"`
}

// Size is what the record counts against the byte bounds.
func (r *WebhookRecord) Size() int64 {
	return int64(len(r.URL) + len(r.Secret) + len(r.OldSecret) + len(r.Arguments) + len(r.Effective) + 256)
}

func (r *WebhookRecord) subscription() *Subscription {
	eff := r.Effective
	if len(eff) == 0 {
		eff = r.Arguments
	}
	return &Subscription{ID: r.ID, Name: r.Type, Mode: ModeWebhook, Principal: r.Principal.principal(), Arguments: r.Arguments, Effective: eff}
}

// WebhookStatus is how a subscription's deliveries fare.
type WebhookStatus struct {
	Suspended      bool    `json:"suspended,omitempty"`
	LastDeliveryAt int64   `json:"last,omitempty"`
	LastError      Failure `json:"err,omitempty"`
	FailedSince    int64   `json:"failedSince,omitempty"`
	WindowStart    int64   `json:"win,omitempty"`
	Attempts       int     `json:"n,omitempty"`
	Failures       int     `json:"f,omitempty"`
}

// SuspendPolicy says when failures suspend a subscription.
type SuspendPolicy struct {
	Window      time.Duration
	MinAttempts int
	FailureRate float64
}

// apply adds one attempt's outcome to st (failure "" is a success) and
// reports whether it suspended it now. Stores call it inside their atomic
// update.
func (p SuspendPolicy) apply(st *WebhookStatus, failure Failure, now time.Time) (suspended bool) {
	ms := now.UnixMilli()
	if st.WindowStart == 0 || ms-st.WindowStart >= p.Window.Milliseconds() {
		st.WindowStart, st.Attempts, st.Failures = ms, 0, 0
	}
	st.Attempts++
	if failure == "" {
		st.LastDeliveryAt, st.LastError, st.FailedSince = ms, "", 0
		return false
	}
	st.Failures++
	st.LastError = failure
	if st.FailedSince == 0 {
		st.FailedSince = ms
	}
	if !st.Suspended && st.Attempts >= p.MinAttempts && float64(st.Failures) >= p.FailureRate*float64(st.Attempts) {
		st.Suspended = true
		return true
	}
	return false
}

// Bounds are the bounds PutWebhook holds a new subscription to.
type Bounds struct {
	MaxCount, MaxCountPerPrincipal int64
	MaxBytes, MaxBytesPerPrincipal int64
}

// BoundError is a subscription refused by a bound.
type BoundError struct {
	// Bound is the Options field ("MaxSubscriptions", "MaxSubscriptionBytes");
	// PerPrincipal says it was the principal's share of it.
	Bound        string
	PerPrincipal bool
	Max          int64
}

func (e *BoundError) Error() string {
	if e.PerPrincipal {
		return fmt.Sprintf("events: the principal holds its share (%d) of %s", e.Max, e.Bound)
	}
	return fmt.Sprintf("events: %s (%d) is reached", e.Bound, e.Max)
}

// DeliveryJob is one webhook POST to make: an event for a subscription, or
// a control envelope.
type DeliveryJob struct {
	// ID identifies it: subscription id + "/" + eventId for an event, so
	// that one event is queued once per subscription whoever emits it.
	ID   string `json:"id"`
	Sub  string `json:"sub"`
	Kind string `json:"kind"` // "event", "gap", "terminated", "fanout"
	// Entry is the event (Kind "event"); Body the envelope otherwise.
	Entry *LogEntry       `json:"e,omitempty"`
	Body  json.RawMessage `json:"b,omitempty"`
	MsgID string          `json:"mid,omitempty"` // webhook-id of an envelope
	// Epoch is the epoch of the log the event's sequence belongs to.
	Epoch    string `json:"ep,omitempty"`
	Attempts int    `json:"n,omitempty"`
	// First is when it was first attempted (Unix ms; 0 not yet).
	First int64 `json:"first,omitempty"`
	// Paused is time spent suspended (ms), which the retry window does not
	// count.
	Paused int64 `json:"paused,omitempty"`
}

// Claimed is a job a replica holds.
type Claimed struct {
	Job   DeliveryJob
	Token string
	// Watermark is the lowest sequence queued for the job's subscription
	// when it was claimed (0 when none).
	Watermark uint64
}
