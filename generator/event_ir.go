package generator

import "slices"

// eventsPkg serves event types: the events extension's engine.
const eventsPkg = "github.com/mcpgen/mcpgen/ext/events"

// eventIR is an event type ready to emit.
type eventIR struct {
	name        string // the event type's name
	goName      string
	file        string
	description string
	doc         []string // the description as doc lines
	source      string   // the input file's name
	input       []byte   // its inputSchema as advertised; nil: any object
	payload     []byte   // its payloadSchema as advertised
	meta        []byte   // the descriptor's _meta without mcpgen's keys; nil: none
	delivery    []string // nil: every mode it can offer
	noReplay    bool
	retentionMs int64 // 0: the engine's default
	scopes      []string
	args        *typeRef // the subscription's arguments
	data        *typeRef // each event's payload
	decls       []decl
}

func (e *eventIR) constName() string   { return e.goName + "EventName" }
func (e *eventIR) inputName() string   { return lowerFirst(e.goName + "EventInputSchema") }
func (e *eventIR) payloadName() string { return lowerFirst(e.goName + "EventPayloadSchema") }
func (e *eventIR) funcName() string    { return lowerFirst(e.goName + "Event") }
func (e *eventIR) subscribeMethod() string {
	return "Subscribe" + e.goName
}
func (e *eventIR) matcherName() string { return e.goName + "Matcher" }
func (e *eventIR) watcherName() string { return e.goName + "Watcher" }
func (e *eventIR) emitMethod() string  { return "Emit" + e.goName }

// offers reports whether the type offers a delivery mode (as
// eventDef.offers).
func (e *eventIR) offers(mode string) bool {
	if e.delivery == nil {
		return mode != "poll" || !e.noReplay
	}
	return slices.Contains(e.delivery, mode)
}

// webhookClientMethods are the test client's methods of a type offered by
// webhook.
func (e *eventIR) webhookClientMethods() []string {
	return []string{"Subscribe" + e.goName, "Unsubscribe" + e.goName, "Receive" + e.goName}
}

// eventPart is the event types of the package.
type eventPart struct {
	events []*eventIR // in input order
}
