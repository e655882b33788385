package runtime

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// IsAtLeastVersion0_5_0 is referenced by generated code as
//
//	const _ = runtime.IsAtLeastVersion0_5_0
//
// A generator newer than this runtime emits a reference to a constant that does
// not exist yet, so the build fails at that line instead of misbehaving at run
// time. The fix is to upgrade the runtime (go get github.com/mcpgen/mcpgen@latest)
// or to regenerate with the generator version that matches it.
const IsAtLeastVersion0_5_0 = true

// IsAtLeastVersion0_4_0 is what code generated before tools were wired with
// NewStructuredTool and NewContentTool references; this runtime still serves
// it.
const IsAtLeastVersion0_4_0 = true

// IsAtLeastVersion0_3_0 is what code generated before call handles embedded
// ToolCall and FeatureCall and decoded with DecodeArguments references; this
// runtime still serves it.
const IsAtLeastVersion0_3_0 = true

// IsAtLeastVersion0_2_0 is what code generated before call handles could
// announce changes (Call.NotifyResourceUpdated, ExpandURITemplate) and
// before skills and MCP Apps references; this runtime still serves it.
const IsAtLeastVersion0_2_0 = true

// IsAtLeastVersion0_1_0 is what code generated before runtime.Optional,
// sum types and tool scopes references; this runtime still serves it.
const IsAtLeastVersion0_1_0 = true

// Protocol versions the runtime speaks, oldest first.
const (
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"
)

// legacyVersions are the session-based protocol versions, newest first, so that
// negotiation can offer legacyVersions[0] when the client asks for one we lack.
var legacyVersions = []string{Version20251125, Version20250618, Version20250326}

// modernVersions are the stateless protocol versions, newest first.
var modernVersions = []string{Version20260728}

// supportedVersions is every version the runtime speaks, newest first.
var supportedVersions = append(append([]string{}, modernVersions...), legacyVersions...)

// offeredVersions are the protocol versions a Server offers
// (Options.SupportedProtocolVersions), each list newest first.
type offeredVersions struct {
	legacy, modern, all []string
}

// offerVersions checks the versions a server is to offer (nil: every one).
func offerVersions(list []string) (offeredVersions, error) {
	if list == nil {
		return offeredVersions{legacyVersions, modernVersions, supportedVersions}, nil
	}
	if len(list) == 0 {
		return offeredVersions{}, errors.New("Options.SupportedProtocolVersions is empty; nil offers every version")
	}
	var o offeredVersions
	for _, v := range list {
		if !slices.Contains(supportedVersions, v) {
			return offeredVersions{}, fmt.Errorf("Options.SupportedProtocolVersions: unknown protocol version %q; the runtime speaks %s",
				v, strings.Join(supportedVersions, ", "))
		}
	}
	for _, v := range supportedVersions { // newest first, whatever the order given
		if slices.Contains(list, v) {
			o.all = append(o.all, v)
			if isLegacyVersion(v) {
				o.legacy = append(o.legacy, v)
			} else {
				o.modern = append(o.modern, v)
			}
		}
	}
	return o, nil
}

// offers reports whether v is an offered version.
func (o offeredVersions) offers(v string) bool { return slices.Contains(o.all, v) }

// negotiate is initialize's version: the client's when it is an offered
// session version, else the newest offered one. A server that offers no
// session version answers -32602 listing what it offers, as the
// specification asks of a server that speaks only 2026-07-28.
func (o offeredVersions) negotiate(requested string) (string, *Error) {
	if slices.Contains(o.legacy, requested) {
		return requested, nil
	}
	if len(o.legacy) == 0 {
		return "", &Error{Code: CodeInvalidParams,
			Message: "this server serves no sessions (initialize); supported protocol versions: " + strings.Join(o.all, ", "),
			Data: struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			}{o.all, requested}}
	}
	return o.legacy[0], nil
}

// checkModern returns -32022 with {supported, requested} for a version this
// server does not serve statelessly; supported lists only the versions a
// request can use without a session (a client that retried a session
// version statelessly would fail again).
func (o offeredVersions) checkModern(v string) *Error {
	if slices.Contains(o.modern, v) {
		return nil
	}
	msg := "unsupported protocol version " + v + "; supported: " + strings.Join(o.modern, ", ")
	if len(o.modern) == 0 {
		msg = "unsupported protocol version " + v + "; this server serves sessions only: initialize with one of " + strings.Join(o.legacy, ", ")
	}
	return &Error{
		Code:    CodeUnsupportedVersion,
		Message: msg,
		Data: struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}{append([]string{}, o.modern...), v},
	}
}

// isLegacyVersion reports whether v is a session-based protocol version.
func isLegacyVersion(v string) bool { return slices.Contains(legacyVersions, v) }

// The protocol's HTTP headers: the legacy session's ID, and the 2026-07-28
// standard request headers (names are case-insensitive; Go canonicalises
// them, values are compared case-sensitively).
const (
	headerProtocolVersion = "MCP-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerParamPrefix     = "Mcp-Param-"
	headerSessionID       = "Mcp-Session-Id"
)
