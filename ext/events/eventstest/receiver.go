// Package eventstest is a webhook receiver for tests of servers that
// deliver events (package events) by webhook: a real HTTP endpoint on
// loopback that does what SEP-3415 asks of a client's endpoint.
//
// A server only calls loopback endpoints when it allows them
// (events.WebhookOptions.AllowLoopbackCallbacks, for tests and local
// development).
package eventstest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/ext/events"
)

// The receiver's bounds.
const (
	// MaxBody is the most of a POST's body the receiver reads; a larger
	// body is answered 413. It is four times the engine's default
	// MaxEventBytes, room for the envelope.
	MaxBody = 1 << 20
	// MaxQueued is how many accepted deliveries wait for Next; beyond it
	// the receiver answers 503 (the server retries) and counts a refusal.
	MaxQueued = 1024
	// MaxSeen is how many webhook-ids are remembered to deduplicate
	// retries; the oldest is forgotten first.
	MaxSeen = 10_000
	// Tolerance is how far a webhook-timestamp may be from the receiver's
	// clock, as Standard Webhooks receivers check it (replays of an old
	// message are refused).
	Tolerance = 5 * time.Minute
)

// A Delivery is one POST the receiver accepted: its signature was valid
// under Secret, its timestamp within Tolerance, its webhook-id new.
type Delivery struct {
	// ID is the webhook-id (the same on every retry of one delivery).
	ID string
	// SubscriptionID is the X-MCP-Subscription-Id header.
	SubscriptionID string
	// Kind is "event", or the type of a control envelope: "gap" or
	// "terminated".
	Kind string
	// Event is the delivered event when Kind is "event".
	Event events.Occurrence
	// Body is the raw body, as signed.
	Body []byte
}

// Receiver is a webhook endpoint on loopback. It answers the server's
// verification handshake by echoing its challenge (when the POST is signed
// with Secret), answers 401 to a POST whose Standard Webhooks signature
// does not verify, 2xx to a duplicate webhook-id without handing it out
// again, and queues every other delivery for Next.
type Receiver struct {
	// URL is the callback URL to subscribe with.
	URL string
	// Secret is the whsec_ secret to subscribe with, drawn at random.
	Secret string

	srv   *httptest.Server
	queue chan Delivery

	mu            sync.Mutex
	seen          map[string]bool
	order         []string // seen's ids, oldest first
	verifications int
	refusals      []string
}

// NewReceiver starts a receiver, closed when t ends.
func NewReceiver(t testing.TB) *Receiver {
	t.Helper()
	key := make([]byte, 32)
	rand.Read(key)
	r := &Receiver{
		Secret: "whsec_" + base64.StdEncoding.EncodeToString(key),
		queue:  make(chan Delivery, MaxQueued),
		seen:   make(map[string]bool),
	}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = r.srv.URL + "/hooks"
	t.Cleanup(r.srv.Close)
	return r
}

// Next returns the next accepted delivery (a verification is not one),
// or ctx's error when none came before ctx ended.
func (r *Receiver) Next(ctx context.Context) (Delivery, error) {
	select {
	case d := <-r.queue:
		return d, nil
	case <-ctx.Done():
		return Delivery{}, fmt.Errorf("eventstest: no delivery (%d verifications, refused: %q): %w", r.Verifications(), r.Refusals(), ctx.Err())
	}
}

// NextEvent returns the next delivered event, skipping control envelopes
// (gap, terminated), with its data decoded as T.
func NextEvent[T any](ctx context.Context, r *Receiver) (T, Delivery, error) {
	var zero T
	for {
		d, err := r.Next(ctx)
		if err != nil {
			return zero, d, err
		}
		if d.Kind != "event" {
			continue
		}
		var v T
		if err := json.Unmarshal(d.Event.Data, &v); err != nil {
			return zero, d, fmt.Errorf("eventstest: event %s: data: %w", d.Event.EventID, err)
		}
		return v, d, nil
	}
}

// Verifications is how many verification handshakes the receiver
// answered.
func (r *Receiver) Verifications() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.verifications
}

// Refusals says why each refused POST was refused (a bad signature, a
// stale timestamp, a full queue), oldest first.
func (r *Receiver) Refusals() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.refusals...)
}

func (r *Receiver) refuse(w http.ResponseWriter, status int, why string) {
	r.mu.Lock()
	if len(r.refusals) < MaxSeen {
		r.refusals = append(r.refusals, why)
	}
	r.mu.Unlock()
	http.Error(w, why, status)
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		r.refuse(w, http.StatusMethodNotAllowed, req.Method+" instead of POST")
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, MaxBody+1))
	if err != nil {
		r.refuse(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	if len(body) > MaxBody {
		r.refuse(w, http.StatusRequestEntityTooLarge, "a body over "+strconv.Itoa(MaxBody)+" bytes")
		return
	}
	id, ts := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp")
	if err := fresh(ts); err != nil {
		r.refuse(w, http.StatusUnauthorized, err.Error())
		return
	}
	if !events.VerifySignature(r.Secret, id, ts, body, req.Header.Get("webhook-signature")) {
		r.refuse(w, http.StatusUnauthorized, "webhook-signature does not verify under the secret (webhook-id "+strconv.Quote(id)+")")
		return
	}
	var env struct {
		Type      string `json:"type"`
		Challenge string `json:"challenge"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		r.refuse(w, http.StatusBadRequest, "the body is not JSON: "+err.Error())
		return
	}
	if env.Type == "verification" {
		r.mu.Lock()
		r.verifications++
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"challenge": env.Challenge})
		return
	}
	d := Delivery{ID: id, SubscriptionID: req.Header.Get(events.SubscriptionIDHeader), Kind: "event", Body: body}
	if env.Type != "" {
		d.Kind = env.Type
	} else if err := json.Unmarshal(body, &d.Event); err != nil {
		r.refuse(w, http.StatusBadRequest, "the event is not an event: "+err.Error())
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[id] {
		w.WriteHeader(http.StatusNoContent) // a retry of what was handed out: acknowledge it again
		return
	}
	select {
	case r.queue <- d:
	default:
		r.refusals = append(r.refusals, "more than "+strconv.Itoa(MaxQueued)+" deliveries waiting for Next")
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	r.seen[id] = true
	r.order = append(r.order, id)
	if len(r.order) > MaxSeen {
		delete(r.seen, r.order[0])
		r.order = r.order[1:]
	}
	w.WriteHeader(http.StatusNoContent)
}

// fresh checks a webhook-timestamp (Unix seconds) against Tolerance.
func fresh(ts string) error {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp " + strconv.Quote(ts) + " is not Unix seconds")
	}
	if d := time.Since(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("webhook-timestamp %s is %v away from now, beyond %v", ts, d.Round(time.Second), Tolerance)
	}
	return nil
}
