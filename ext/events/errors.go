package events

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// The extension's errors: InvalidParams (-32602) for a request that is
// statically wrong, and five general-purpose codes whose data says which
// case it is. Their numbers differ between the two documents that define
// the extension: SEP-3415 allocates -32023 to -32027; the design sketch that
// preceded it (and the clients written against it, ChatGPT's among them)
// uses -32011 to -32015. Options.Codes picks one.

// Codes is a numbering of the extension's error codes.
type Codes struct {
	NotFound, Forbidden, ResourceExhausted, Unsupported, CallbackEndpointError int
}

var (
	// SEP3415Codes are SEP-3415's numbers, the default.
	SEP3415Codes = Codes{NotFound: -32023, Forbidden: -32024, ResourceExhausted: -32025, Unsupported: -32026, CallbackEndpointError: -32027}
	// DesignSketchCodes are the design sketch's numbers, for clients that
	// follow it.
	DesignSketchCodes = Codes{NotFound: -32011, Forbidden: -32012, ResourceExhausted: -32013, Unsupported: -32014, CallbackEndpointError: -32015}
)

func (c Codes) valid() bool {
	seen := map[int]bool{}
	for _, n := range []int{c.NotFound, c.Forbidden, c.ResourceExhausted, c.Unsupported, c.CallbackEndpointError} {
		if n > -32000 || n < -32099 || seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}

// Refusal is what a handler returns to refuse a subscription: the client
// gets Forbidden with Reason as data.reason, so write it for the client.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return "events: subscription refused: " + r.Reason }

// Refuse returns a Refusal with a formatted reason.
func Refuse(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// ErrUnknownEventType: Emit named an event type the engine does not have.
var ErrUnknownEventType = errors.New("events: unknown event type")

// ErrInvalidPayload: an emitted payload does not match its payloadSchema
// (the error says where); nothing was delivered.
var ErrInvalidPayload = errors.New("events: the payload does not match the event type's payloadSchema")

// ErrClosed: the engine was closed.
var ErrClosed = errors.New("events: the engine is closed")

func rpcError(code int, name, detail string, data any) *runtime.Error {
	msg := name
	if detail != "" {
		msg = name + ": " + detail
	}
	return &runtime.Error{Code: code, Message: msg, Data: data}
}

func invalidParams(format string, args ...any) *runtime.Error {
	return rpcError(runtime.CodeInvalidParams, "InvalidParams", fmt.Sprintf(format, args...), nil)
}

func (c Codes) notFound(kind, detail string) *runtime.Error {
	return rpcError(c.NotFound, "NotFound", detail, map[string]string{"kind": kind})
}

func (c Codes) forbidden(reason string) *runtime.Error {
	return rpcError(c.Forbidden, "Forbidden", reason, map[string]string{"reason": reason})
}

// exhausted names the bound that refused: limit is the spec's data.limit
// ("subscriptions", "subscriptionBytes", "streams"), bound the option.
func (c Codes) exhausted(limit, bound string, max int64, detail string) *runtime.Error {
	return rpcError(c.ResourceExhausted, "ResourceExhausted", detail,
		map[string]any{"limit": limit, "max": max, "bound": bound})
}

func (c Codes) unsupported(feature, value, detail string) *runtime.Error {
	return rpcError(c.Unsupported, "Unsupported", detail, map[string]string{"feature": feature, "value": value})
}

func (c Codes) callbackFailed(reason Failure, detail string) *runtime.Error {
	return rpcError(c.CallbackEndpointError, "CallbackEndpointError", detail, map[string]string{"reason": string(reason)})
}

// wireError is e as notifications and envelopes nest it.
func wireError(e *runtime.Error) WireError {
	w := WireError{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		w.Data, _ = json.Marshal(e.Data)
	}
	return w
}
