package mcptest_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/mcptest"
)

// TestServerCapabilities: ServerCapabilities returns what initialize
// declared in a session and what server/discover declares in 2026-07-28.
func TestServerCapabilities(t *testing.T) {
	run(t, func(t *testing.T, c *mcptest.Client, _ *ledger) {
		raw, err := c.ServerCapabilities(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var caps map[string]json.RawMessage
		if err := json.Unmarshal(raw, &caps); err != nil || caps["tools"] == nil {
			t.Errorf("capabilities %s (%v): want the tools the fixture serves", raw, err)
		}
	})
}
