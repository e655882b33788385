package runtime

// A handler announces what its call changed through its Call, without
// holding the Server: the same notifications as the Server's Notify
// methods, which code outside a call (a background job, a file watcher)
// uses directly.

// NotifyResourceUpdated tells the clients subscribed to uri that it
// changed, as Server.NotifyResourceUpdated does.
func (c *Call) NotifyResourceUpdated(uri string) { c.server.NotifyResourceUpdated(uri) }

// NotifyResourceListChanged tells every client that the resource list
// changed, as Server.NotifyResourceListChanged does.
func (c *Call) NotifyResourceListChanged() { c.server.NotifyResourceListChanged() }

// NotifyPromptListChanged tells every client that the prompt list changed,
// as Server.NotifyPromptListChanged does.
func (c *Call) NotifyPromptListChanged() { c.server.NotifyPromptListChanged() }

// NotifyToolListChanged tells every client that the tool list changed, as
// Server.NotifyToolListChanged does.
func (c *Call) NotifyToolListChanged() { c.server.NotifyToolListChanged() }
