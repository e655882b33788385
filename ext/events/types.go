package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/schemacheck"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// EventType declares one event type: what events/list shows of it, and
// the hooks through which its handler decides on subscriptions, watches the
// upstream system and shapes what each subscription receives.
type EventType struct {
	// Name is the event type's name, e.g. "note.added" (letters, digits and
	// "._-/", at most 128 bytes).
	Name        string
	Description string
	// InputSchema is the JSON Schema of a subscription's arguments; nil
	// means any object.
	InputSchema json.RawMessage
	// PayloadSchema is the JSON Schema of an event's data; required. Every
	// payload is validated against it before anything is delivered.
	PayloadSchema json.RawMessage
	// Delivery lists the modes the type offers; nil offers every mode it
	// can: poll and push, and webhook. Poll needs replay.
	Delivery []Mode
	// NoReplay keeps no log of the type's events: cursors are null, poll is
	// not offered, and a push stream or webhook receives only what is
	// emitted while it is open.
	NoReplay bool
	// Retention bounds how long the log keeps an event for replay; 0 means
	// Options.Retention. A cursor older than that resumes with truncated.
	Retention time.Duration
	// MaxRetained bounds how many events the log keeps; 0 means
	// Options.MaxRetained.
	MaxRetained int
	// Scopes are the OAuth scopes a caller needs to see and subscribe to the
	// type (with the runtime's Auth): listed only to callers that hold them
	// when lists are filtered, Forbidden otherwise.
	Scopes []string
	// Meta is the descriptor's _meta as events/list shows it (mcpgen's own
	// keys already removed).
	Meta json.RawMessage
	// Hooks are the handler's; every one is optional.
	Hooks Hooks
}

// Hooks are what an event type's handler plugs in. Each runs with the
// engine's panic recovery; a panicking hook refuses (Subscribe), matches
// nothing (Match) or is logged (the others).
type Hooks struct {
	// Subscribe decides on a new subscription before it is accepted: a
	// webhook subscribe (not its refreshes), a push stream, the first poll
	// of a (principal, arguments) on this process. It returns the arguments
	// to match with (nil keeps the client's: narrowing replaces them), or a
	// Refusal, whose reason the client sees; any other error refuses with
	// a generic reason. Bounds are checked before it runs, so a refused
	// subscription provisions nothing.
	Subscribe func(ctx context.Context, s *Subscription) (narrowed json.RawMessage, err error)
	// Match reports whether a broadcast event reaches s; nil means every
	// subscription of the type. It runs wherever the event is delivered:
	// live, on replay and on poll.
	Match func(ctx context.Context, s *Subscription, ev *Event) bool
	// Transform shapes the data s receives (redaction, expansion); nil
	// delivers it as emitted. Its result is validated against the
	// payloadSchema too.
	Transform func(ctx context.Context, s *Subscription, ev *Event) (json.RawMessage, error)
	// Watch watches the upstream system and emits what happens there. It
	// starts when the first subscription of the type appears (on any
	// replica: with a shared store exactly one replica watches at a time)
	// and its context ends when the last one is gone, or when this replica
	// loses the watch to another. An error return is logged and Watch is
	// started again after a backoff while subscriptions remain.
	Watch func(ctx context.Context) error
	// Ended is told when a subscription ends: unsubscribed, expired, its
	// stream closed, its poll lease lapsed. It runs once per subscription
	// on the replica that saw the end.
	Ended func(ctx context.Context, s *Subscription, why EndReason)
}

// EndReason says why a subscription ended.
type EndReason string

// The reasons a subscription ends.
const (
	EndUnsubscribed EndReason = "unsubscribed"
	EndExpired      EndReason = "expired"
	EndClosed       EndReason = "closed"
	EndTerminated   EndReason = "terminated"
)

// Subscription is one subscription as the hooks see it.
type Subscription struct {
	// ID identifies it: for a webhook the id its deliveries carry; for poll
	// and push a digest of (principal, name, arguments), so that a
	// reconnecting stream and the next poll are the same subscription.
	ID   string
	Name string
	Mode Mode
	// Principal is who subscribed; nil without authentication. A webhook
	// subscription read from a shared store carries Issuer, Subject and
	// ClientID only.
	Principal *runtime.Principal
	// Arguments are the arguments as the client sent them (canonical JSON);
	// Effective are those Match and Transform see (narrowed by Subscribe).
	Arguments json.RawMessage
	Effective json.RawMessage
}

// Event is one occurrence as the handler emits it.
type Event struct {
	// ID is the eventId: the upstream's stable identifier when there is one
	// (so that one upstream event emitted twice is one event); empty asks
	// the engine for one. Within a type's retention a second emit of the
	// same ID is dropped.
	ID string
	// Time is when it happened; zero means now.
	Time time.Time
	// Data is the payload, matching the type's payloadSchema.
	Data json.RawMessage
}

var eventNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$`)

// eventType is an EventType as the engine holds it.
type eventType struct {
	EventType
	input, payload *jsonschema.Schema
	inputDoc       json.RawMessage
	payloadDoc     json.RawMessage
	modes          map[Mode]bool
	retention      time.Duration
	maxRetained    int
	descriptor     Descriptor
}

func compileType(t EventType, o *Options) (*eventType, error) {
	if !eventNamePattern.MatchString(t.Name) {
		return nil, fmt.Errorf("event type %q: a name is 1 to 128 letters, digits and \"._-/\", starting with a letter or digit", t.Name)
	}
	x := &eventType{EventType: t, modes: map[Mode]bool{}}
	x.inputDoc = t.InputSchema
	if len(bytes.TrimSpace(x.inputDoc)) == 0 {
		x.inputDoc = json.RawMessage(`{"type":"object"}`)
	}
	if len(bytes.TrimSpace(t.PayloadSchema)) == 0 {
		return nil, fmt.Errorf("event type %q: PayloadSchema is required", t.Name)
	}
	x.payloadDoc = t.PayloadSchema
	var err error
	if x.inputDoc, err = compactJSON(x.inputDoc); err != nil {
		return nil, fmt.Errorf("event type %q: InputSchema: %v", t.Name, err)
	}
	if x.payloadDoc, err = compactJSON(x.payloadDoc); err != nil {
		return nil, fmt.Errorf("event type %q: PayloadSchema: %v", t.Name, err)
	}
	if x.input, err = schemacheck.Compile("mcpgen:events/"+t.Name+"/inputSchema", x.inputDoc); err != nil {
		return nil, fmt.Errorf("event type %q: InputSchema: %w", t.Name, err)
	}
	if x.payload, err = schemacheck.Compile("mcpgen:events/"+t.Name+"/payloadSchema", x.payloadDoc); err != nil {
		return nil, fmt.Errorf("event type %q: PayloadSchema: %w", t.Name, err)
	}
	modes := t.Delivery
	if modes == nil {
		modes = []Mode{ModePoll, ModePush, ModeWebhook}
		if t.NoReplay {
			modes = []Mode{ModePush, ModeWebhook}
		}
	}
	if len(modes) == 0 {
		return nil, fmt.Errorf("event type %q: Delivery is empty; offer at least one mode (or nil for all)", t.Name)
	}
	for _, m := range modes {
		if !m.valid() {
			return nil, fmt.Errorf("event type %q: unknown delivery mode %q (poll, push or webhook)", t.Name, m)
		}
		if x.modes[m] {
			return nil, fmt.Errorf("event type %q: delivery mode %q is listed twice", t.Name, m)
		}
		x.modes[m] = true
	}
	if x.modes[ModePoll] && t.NoReplay {
		return nil, fmt.Errorf("event type %q: poll needs replay (a poll resumes from a cursor); drop NoReplay or the poll mode", t.Name)
	}
	if len(t.Meta) > 0 {
		if x.EventType.Meta, err = compactJSON(t.Meta); err != nil || x.EventType.Meta[0] != '{' {
			return nil, fmt.Errorf("event type %q: Meta must be a JSON object", t.Name)
		}
	}
	x.retention = t.Retention
	if x.retention <= 0 {
		x.retention = o.Retention
	}
	x.maxRetained = t.MaxRetained
	if x.maxRetained <= 0 {
		x.maxRetained = o.MaxRetained
	}
	x.Scopes = slices.Clone(t.Scopes)
	// Deliver the modes in a fixed order, whatever order they were declared in.
	var delivery []Mode
	for _, m := range []Mode{ModePoll, ModePush, ModeWebhook} {
		if x.modes[m] {
			delivery = append(delivery, m)
		}
	}
	x.descriptor = Descriptor{Name: t.Name, Description: t.Description, Delivery: delivery,
		InputSchema: x.inputDoc, PayloadSchema: x.payloadDoc, Meta: x.EventType.Meta}
	return x, nil
}

func (t *eventType) limits() LogLimits {
	return LogLimits{Retention: t.retention, MaxRetained: t.maxRetained, NoReplay: t.NoReplay}
}

// validate checks doc against s and says every place it fails.
func validate(s *jsonschema.Schema, doc json.RawMessage) error {
	v, err := decodeJSON(doc)
	if err != nil {
		return err
	}
	if err := s.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if ok := asValidation(err, &ve); ok {
			return fmt.Errorf("%s", strings.Join(violations(ve), "; "))
		}
		return err
	}
	return nil
}

func asValidation(err error, ve **jsonschema.ValidationError) bool {
	v, ok := err.(*jsonschema.ValidationError)
	if ok {
		*ve = v
	}
	return ok
}

// violations lists the leaves of a validation error as "/pointer: what",
// in the runtime's words, at most 8 and a count of the rest.
func violations(ve *jsonschema.ValidationError) []string {
	out := schemacheck.Violations(ve, nil)
	if len(out) > 8 {
		out = append(out[:8], fmt.Sprintf("and %d more", len(out)-8))
	}
	return out
}
