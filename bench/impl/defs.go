// Package impl holds the four servers the benchmark compares: the same two
// tools (add and confirm) served by mcpgen, the official Go SDK, mcp-go and a
// bare net/http floor. Each one is an http.Handler to mount at /mcp.
package impl

import (
	"fmt"
	"net/http"
	"sort"
)

// The two tools, as every implementation advertises them.
const (
	addInputSchema  = `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`
	addOutputSchema = `{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"],"additionalProperties":false}`
	addDescription  = "Add two numbers and return their sum."

	confirmInputSchema = `{"type":"object","properties":{"item":{"type":"string"}},"additionalProperties":false}`
	confirmDescription = "Ask the user to confirm, then report the answer."

	// confirmFormSchema is the one-boolean form confirm elicits.
	confirmFormSchema = `{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","description":"Go ahead?"}},"required":["confirm"]}`
	confirmMessage    = "Go ahead?"

	// The texts confirm answers with; the driver checks them.
	textConfirmed = "confirmed"
	textDeclined  = "declined"
)

// Impl is one server under test.
type Impl struct {
	// Name is what -impl selects: mcpgen, gosdk, mcpgo, floor.
	Name string
	// New builds a fresh handler (own sessions, own state).
	New func() (http.Handler, error)
	// Modern reports whether the implementation serves stateless 2026-07-28
	// requests (workload W2).
	Modern bool
	// Elicit reports whether confirm's elicitation round trip works over a
	// POST-only client (workload W3).
	Elicit bool
	// Sessions reports whether the implementation keeps legacy sessions
	// (workload W4 measures their memory).
	Sessions bool
}

var registry = map[string]Impl{}

func register(i Impl) { registry[i.Name] = i }

// Get returns the named implementation.
func Get(name string) (Impl, error) {
	i, ok := registry[name]
	if !ok {
		return Impl{}, fmt.Errorf("unknown implementation %q (have %v)", name, Names())
	}
	return i, nil
}

// Names lists the implementations in report order: ours first, the floor last.
func Names() []string {
	order := map[string]int{"mcpgen": 0, "gosdk": 1, "mcpgo": 2, "floor": 3}
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return order[names[i]] < order[names[j]] })
	return names
}
