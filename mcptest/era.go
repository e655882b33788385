package mcptest

import (
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// An Era is the protocol version a client speaks, and with it how it talks
// to the server: a session opened with initialize (2025-03-26 to
// 2025-11-25), whose handlers ask their questions live on the call's own
// stream, or stateless requests (2026-07-28), each carrying its _meta, whose
// handlers ask with input_required rounds that the client answers by
// retrying the request.
type Era string

// The eras Run tests in by default. Any version the runtime speaks is an
// Era too: Eras("2025-06-18") pins an older session.
const (
	// Legacy is a 2025-11-25 session.
	Legacy Era = runtime.Version20251125
	// Modern is 2026-07-28: no session, input_required rounds.
	Modern Era = runtime.Version20260728
)

// defaultEras are the eras Run covers when no Eras option pins them.
var defaultEras = []Era{Legacy, Modern}

// stateless reports whether the era has no session (2026-07-28).
func (e Era) stateless() bool { return e == Modern }

func (e Era) check() error {
	switch e {
	case runtime.Version20250326, runtime.Version20250618, runtime.Version20251125, runtime.Version20260728:
		return nil
	}
	return fmt.Errorf("mcptest: unknown era %q (use mcptest.Legacy, mcptest.Modern, %q or %q)", string(e),
		runtime.Version20250618, runtime.Version20250326)
}

// capabilities are the client capabilities an era's client declares by
// default: everything it can answer, as far as its version defines it.
// 2025-03-26 has no elicitation and 2025-06-18 no URL mode.
func (e Era) capabilities() json.RawMessage {
	switch e {
	case runtime.Version20250326:
		return json.RawMessage(`{"sampling":{},"roots":{"listChanged":true}}`)
	case runtime.Version20250618:
		return json.RawMessage(`{"elicitation":{},"sampling":{},"roots":{"listChanged":true}}`)
	}
	return json.RawMessage(`{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{"listChanged":true}}`)
}

// versionHeader reports whether requests carry MCP-Protocol-Version (from
// 2025-06-18 on; 2025-03-26 had no such header).
func (e Era) versionHeader() bool { return e != runtime.Version20250326 }
