package runtime

// The names of the MCP methods and notifications the runtime serves, sends
// or reads: each is spelled here and only here (the envelope codec interns
// the busiest ones, jsonrpc.go), so that a method's name, like its
// row in the method table, has one home.
const (
	methodInitialize           = "initialize"
	methodPing                 = "ping"
	methodSetLevel             = "logging/setLevel"
	methodDiscover             = "server/discover"
	methodListen               = "subscriptions/listen"
	methodToolsList            = "tools/list"
	methodToolsCall            = "tools/call"
	methodPromptsList          = "prompts/list"
	methodPromptsGet           = "prompts/get"
	methodResourcesList        = "resources/list"
	methodTemplatesList        = "resources/templates/list"
	methodResourcesRead        = "resources/read"
	methodSubscribe            = "resources/subscribe"
	methodUnsubscribe          = "resources/unsubscribe"
	methodComplete             = "completion/complete"
	methodElicit               = "elicitation/create"
	methodCreateMessage        = "sampling/createMessage"
	methodListRoots            = "roots/list"
	methodInitialized          = "notifications/initialized"
	methodCancelled            = "notifications/cancelled"
	methodProgress             = "notifications/progress"
	methodLogMessage           = "notifications/message"
	methodAcknowledged         = "notifications/subscriptions/acknowledged"
	methodElicitComplete       = "notifications/elicitation/complete"
	methodToolsListChanged     = "notifications/tools/list_changed"
	methodPromptsListChanged   = "notifications/prompts/list_changed"
	methodResourcesListChanged = "notifications/resources/list_changed"
	methodResourceUpdated      = "notifications/resources/updated"
	methodRootsListChanged     = "notifications/roots/list_changed"
	methodTaskStatus           = "notifications/tasks/status" // 2025-11-25: either side's task changed status
)
