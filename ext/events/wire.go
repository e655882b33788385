package events

import (
	"bytes"
	"encoding/json"
	"time"
)

// The wire shapes of the extension's methods, notifications and webhook
// bodies, field for field as SEP-3415 defines them. Results carry no
// resultType: the runtime's framing adds it to 2026-07-28 results.

// ExtensionID is the extension's identifier in capabilities.extensions.
const ExtensionID = "io.modelcontextprotocol/events"

// The extension's methods and notifications.
const (
	MethodList        = "events/list"
	MethodPoll        = "events/poll"
	MethodStream      = "events/stream"
	MethodSubscribe   = "events/subscribe"
	MethodUnsubscribe = "events/unsubscribe"

	NotificationActive      = "notifications/events/active"
	NotificationEvent       = "notifications/events/event"
	NotificationHeartbeat   = "notifications/events/heartbeat"
	NotificationError       = "notifications/events/error"
	NotificationTerminated  = "notifications/events/terminated"
	NotificationListChanged = "notifications/events/list_changed"
)

// SubscriptionIDMetaKey is the _meta key that carries, on every push
// notification, the JSON-RPC id of the events/stream request it belongs to.
const SubscriptionIDMetaKey = "io.modelcontextprotocol/subscriptionId"

// SubscriptionIDHeader carries a webhook subscription's id on every POST to
// its callback, so that the receiver picks the secret before it parses the
// body.
const SubscriptionIDHeader = "X-MCP-Subscription-Id"

// Mode is a delivery mode an event type offers.
type Mode string

// The three delivery modes.
const (
	ModePoll    Mode = "poll"
	ModePush    Mode = "push"
	ModeWebhook Mode = "webhook"
)

func (m Mode) valid() bool { return m == ModePoll || m == ModePush || m == ModeWebhook }

// Descriptor is one entry of an events/list result.
type Descriptor struct {
	Name          string          `json:"name"`
	Description   string          `json:"description,omitempty"`
	Delivery      []Mode          `json:"delivery"`
	InputSchema   json.RawMessage `json:"inputSchema"`
	PayloadSchema json.RawMessage `json:"payloadSchema"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// ListParams are the params of events/list.
type ListParams struct {
	Cursor string `json:"cursor,omitempty"`
}

// ListResult is the result of events/list.
type ListResult struct {
	Events     []Descriptor `json:"events"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

// Occurrence is one event as it is delivered: an entry of a poll result, the
// params of notifications/events/event (with the stream's _meta) and the
// body of a webhook event delivery. Cursor is the subscription's position
// after this event: nil for an event type without replay, and never set in a
// poll result (whose cursor is the result's own).
type Occurrence struct {
	EventID   string          `json:"eventId"`
	Name      string          `json:"name"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
	Cursor    *string         `json:"cursor,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// PollParams are the params of events/poll.
type PollParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Cursor is where to resume; nil (null or absent) means "from now".
	Cursor    *string `json:"cursor,omitempty"`
	MaxAgeMs  *int64  `json:"maxAgeMs,omitempty"`
	MaxEvents *int    `json:"maxEvents,omitempty"`
}

// PollResult is the result of events/poll. Cursor is always written (null
// for an event type without replay).
type PollResult struct {
	Events     []Occurrence `json:"events"`
	Cursor     *string      `json:"cursor"`
	Truncated  bool         `json:"truncated"`
	HasMore    bool         `json:"hasMore"`
	NextPollMs int64        `json:"nextPollMs"`
}

// StreamParams are the params of events/stream.
type StreamParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Cursor    *string         `json:"cursor,omitempty"`
	MaxAgeMs  *int64          `json:"maxAgeMs,omitempty"`
}

// StreamMeta is the _meta of every push notification and of the stream's
// final result: the JSON-RPC id of its events/stream request.
type StreamMeta struct {
	SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
}

// ActiveParams are the params of notifications/events/active: the stream's
// confirmation, and again mid-stream after a gap (Truncated).
type ActiveParams struct {
	Cursor    *string    `json:"cursor"`
	Truncated bool       `json:"truncated"`
	Meta      StreamMeta `json:"_meta"`
}

// HeartbeatParams are the params of notifications/events/heartbeat; Cursor
// is the position the server has checked up to.
type HeartbeatParams struct {
	Cursor *string    `json:"cursor"`
	Meta   StreamMeta `json:"_meta"`
}

// ErrorParams are the params of notifications/events/error (a transient
// failure; the stream stays open) and of notifications/events/terminated
// (the subscription has ended).
type ErrorParams struct {
	Error WireError  `json:"error"`
	Meta  StreamMeta `json:"_meta"`
}

// WireError is a JSON-RPC error object as notifications and webhook
// envelopes nest it.
type WireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// StreamResult is the final frame of a stream the server ends.
type StreamResult struct {
	Meta StreamMeta `json:"_meta"`
}

// Delivery is where and how a webhook subscription delivers.
type Delivery struct {
	Mode   Mode   `json:"mode,omitempty"`
	URL    string `json:"url"`
	Secret string `json:"secret,omitempty"`
}

// TTL is the ttlMs of events/subscribe, which has three states: absent (the
// server's default), null (no expiry asked for) and a number of
// milliseconds.
type TTL struct {
	Set  bool // the field was present
	Null bool // it was null
	Ms   int64
}

// UnmarshalJSON reads null or a number; absence leaves the zero TTL.
func (t *TTL) UnmarshalJSON(b []byte) error {
	t.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		t.Null = true
		return nil
	}
	if err := json.Unmarshal(b, &t.Ms); err != nil {
		return invalidParams("ttlMs must be an integer number of milliseconds or null")
	}
	return nil
}

// MarshalJSON writes null or the number (an unset TTL is omitted by the
// omitzero of the field that holds it).
func (t TTL) MarshalJSON() ([]byte, error) {
	if t.Null {
		return []byte("null"), nil
	}
	return json.Marshal(t.Ms)
}

// IsZero reports an absent TTL.
func (t TTL) IsZero() bool { return !t.Set }

// SubscribeParams are the params of events/subscribe.
type SubscribeParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Delivery  Delivery        `json:"delivery"`
	Cursor    *string         `json:"cursor,omitempty"`
	MaxAgeMs  *int64          `json:"maxAgeMs,omitempty"`
	TTLMs     TTL             `json:"ttlMs,omitzero"`
}

// SubscribeResult is the result of events/subscribe. RefreshBefore is
// always written: null grants no expiry.
type SubscribeResult struct {
	ID             string          `json:"id"`
	RefreshBefore  *string         `json:"refreshBefore"`
	Cursor         *string         `json:"cursor"`
	Truncated      bool            `json:"truncated"`
	DeliveryStatus *DeliveryStatus `json:"deliveryStatus,omitempty"`
}

// DeliveryStatus is how a webhook subscription's deliveries fare, reported
// on refresh. LastError is one of the Failure categories.
type DeliveryStatus struct {
	Active         bool    `json:"active"`
	LastDeliveryAt string  `json:"lastDeliveryAt,omitempty"`
	LastError      *string `json:"lastError"`
	FailedSince    string  `json:"failedSince,omitempty"`
	Throttled      bool    `json:"throttled,omitempty"`
	RetryAfterMs   int64   `json:"retryAfterMs,omitempty"`
}

// UnsubscribeParams are the params of events/unsubscribe.
type UnsubscribeParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Delivery  Delivery        `json:"delivery"`
}

// Failure is a category of webhook failure: deliveryStatus.lastError and
// the data.reason of CallbackEndpointError. It never carries anything the
// endpoint answered.
type Failure string

// The failure categories of SEP-3415.
const (
	FailureConnectionRefused Failure = "connection_refused"
	FailureTimeout           Failure = "timeout"
	FailureTLS               Failure = "tls_error"
	FailureHTTP4xx           Failure = "http_4xx"
	FailureHTTP5xx           Failure = "http_5xx"
	FailureChallenge         Failure = "challenge_failed"
)

// The control envelopes a webhook receives besides events: a body with a
// top-level type.
type (
	// GapEnvelope says events were skipped; the receiver persists Cursor.
	GapEnvelope struct {
		Type   string  `json:"type"` // "gap"
		Cursor *string `json:"cursor"`
	}
	// TerminatedEnvelope says the subscription has ended.
	TerminatedEnvelope struct {
		Type  string    `json:"type"` // "terminated"
		Error WireError `json:"error"`
	}
	// VerificationEnvelope asks the endpoint to echo Challenge in a 2xx body.
	VerificationEnvelope struct {
		Type      string `json:"type"` // "verification"
		Challenge string `json:"challenge"`
	}
)

// timestamp formats t as the ISO 8601 timestamps of the wire (UTC, with
// milliseconds when there are any).
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.999Z07:00")
}
