package runtime

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Outcomes of a server-to-client request that callers branch on with errors.Is.
var (
	// ErrDeclined: the user saw the elicitation and explicitly declined it.
	ErrDeclined = errors.New("mcpgen: the user declined the elicitation")
	// ErrCancelled: the user dismissed the elicitation without choosing.
	ErrCancelled = errors.New("mcpgen: the user cancelled the elicitation")
	// ErrExpired: the wait for the client's answer ended (timeout or the
	// caller's context) before an answer came; a late answer is refused with a
	// "request expired" error.
	ErrExpired = errors.New("mcpgen: the request to the client expired before it was answered")
	// ErrInputRequired: in a 2026-07-28 request the answer is not there yet.
	// The runtime ends this round with an input_required result and replays the
	// handler when the client retries with the answer. Handlers return it (or any
	// error wrapping it) unchanged; even a handler that swallows it still yields
	// input_required, because the runtime records the outstanding question.
	ErrInputRequired = errors.New("mcpgen: input required from the client (multi round-trip)")
	// ErrShuttingDown: the server began to shut down while a call waited for
	// the client's answer. The wait ends at once (the client is sent
	// notifications/cancelled for the question), wrapped in ErrExpired, so
	// that the call can finish within the shutdown's bound.
	ErrShuttingDown = errors.New("mcpgen: the server is shutting down")
	// ErrCapabilityMissing: the client did not declare the capability the
	// request needs (elicitation, a mode of it, sampling or roots).
	ErrCapabilityMissing = errors.New("mcpgen: the client did not declare the capability this request needs")
	// ErrInvalidAnswer: the client's answer did not match the requested schema.
	ErrInvalidAnswer = errors.New("mcpgen: the client's answer does not match the requested schema")
)

// JSON-RPC and MCP error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeURLElicitationRequired is 2025-11-25's URLElicitationRequired.
	CodeURLElicitationRequired = -32042

	// 2026-07-28 codes.
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
	// CodeResourceNotFound answers resources/read of an unknown URI in
	// 2025-03-26 to 2025-11-25 (2026-07-28 uses -32602, SEP-2164).
	CodeResourceNotFound = -32002
	// Implementation-defined codes (-32000..-32019) for answers the client
	// POSTs to server-to-client requests.
	CodeRequestExpired    = -32001 // the wait for this ID ended (timeout, cancel); the answer came too late
	CodeUnknownResponseID = -32003 // this session never sent a request with this ID
)

// Error is a JSON-RPC error. A tool handler that returns an *Error (or an error
// wrapping one) makes the call fail with that JSON-RPC error instead of an
// isError tool result.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// NewError returns a JSON-RPC error with a formatted message.
func NewError(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CapabilityError is the ErrCapabilityMissing a Call returns: Capability
// names what the client did not declare ("elicitation.form",
// "elicitation.url", "sampling" or "roots"). errors.Is(err,
// ErrCapabilityMissing) is true.
type CapabilityError struct {
	Capability string
	detail     string
}

func (e *CapabilityError) Error() string {
	d := e.detail
	if d == "" {
		d = e.Capability
	}
	return ErrCapabilityMissing.Error() + ": " + d
}

// Is makes errors.Is(err, ErrCapabilityMissing) true.
func (e *CapabilityError) Is(target error) bool { return target == ErrCapabilityMissing }

// missingCapability turns an ErrCapabilityMissing into -32021 whose data
// names the capability as a ClientCapabilities object, e.g.
// {"requiredCapabilities":{"sampling":{}}}.
func missingCapability(err error) *Error {
	required := map[string]any{}
	var ce *CapabilityError
	if errors.As(err, &ce) {
		switch ce.Capability {
		case "elicitation.form":
			required["elicitation"] = map[string]any{"form": struct{}{}}
		case "elicitation.url":
			required["elicitation"] = map[string]any{"url": struct{}{}}
		case "":
		default:
			required[ce.Capability] = struct{}{}
		}
	}
	return &Error{
		Code:    CodeMissingCapability,
		Message: strings.TrimPrefix(err.Error(), "mcpgen: "), // err says what is missing; say it once
		Data: struct {
			RequiredCapabilities map[string]any `json:"requiredCapabilities"`
		}{required},
	}
}

// errStoreUnavailable answers a request that a failed shared store
// (ErrStoreUnavailable, or any error of a session lookup or creation that
// is not ErrSessionNotFound) refused, with HTTP 503: a stable code and
// message that name no address and no driver error.
var errStoreUnavailable = &Error{Code: CodeInternalError, Message: "session store unavailable; try again later"}

// errShuttingDown answers requests that arrive once Shutdown has begun.
var errShuttingDown = &Error{Code: CodeInternalError, Message: "the server is shutting down"}

// clip is s cut to at most n bytes (at a rune boundary, marked "..."), for
// client values quoted in error messages: a message never grows with what a
// client sent.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
