package runtime

// IsAtLeastVersion0_3_0 is referenced by generated code as
//
//	const _ = runtime.IsAtLeastVersion0_3_0
//
// A generator newer than this runtime emits a reference to a constant that does
// not exist yet, so the build fails at that line instead of misbehaving at run
// time. The fix is to upgrade the runtime (go get github.com/mcpgen/mcpgen@latest)
// or to regenerate with the generator version that matches it.
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

// supportedVersions is every version this endpoint serves, newest first, as
// server/discover lists them.
var supportedVersions = append(append([]string{}, modernVersions...), legacyVersions...)
