package main

import (
	"context"

	"github.com/mcpgen/mcpgen/examples/conformance/fixtures"
	"github.com/mcpgen/mcpgen/runtime"
)

// watchedResource is the resource test_trigger_resource_update announces
// as changed; prompts_resources.go registers it.
const watchedResource = "test://watched-resource"

// TestTriggerResourceUpdate sends notifications/resources/updated for the
// watched resource to every subscriber: a legacy session that called
// resources/subscribe (on its GET stream, or its stdio connection) and a
// 2026-07-28 subscriptions/listen stream whose resourceSubscriptions name it.
// The interop clients subscribe, call it, and wait for the notification.
func (h *handler) TestTriggerResourceUpdate(ctx context.Context, call fixtures.TestTriggerResourceUpdateCall, in fixtures.TestTriggerResourceUpdateInput) ([]runtime.Content, error) {
	h.server.NotifyResourceUpdated(watchedResource)
	return []runtime.Content{runtime.Text("Resource update triggered")}, nil
}
