package main

import (
	"context"

	"github.com/mcpgen/mcpgen/examples/conformance/fixtures"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestTriggerResourceUpdate sends notifications/resources/updated for the
// watched resource to every subscriber: a legacy session that called
// resources/subscribe (on its GET stream, or its stdio connection) and a
// 2026-07-28 subscriptions/listen stream whose resourceSubscriptions name it.
// The interop clients subscribe, call it, and wait for the notification.
// The watched resource is declared in schemas/resources, which gives its
// URI a constant.
func (h *handler) TestTriggerResourceUpdate(ctx context.Context, call fixtures.TestTriggerResourceUpdateCall, in fixtures.TestTriggerResourceUpdateInput) ([]runtime.Content, error) {
	call.NotifyResourceUpdated(fixtures.WatchedResourceResourceURI)
	return []runtime.Content{runtime.Text("Resource update triggered")}, nil
}
