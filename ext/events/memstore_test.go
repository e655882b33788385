package events_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/ext/events"
	"github.com/mcpgen/mcpgen/ext/events/storetest"
)

func TestMemoryStoreKeepsTheStoreContract(t *testing.T) {
	storetest.Run(t, func(*testing.T) events.Store { return events.NewMemoryStore() })
}
