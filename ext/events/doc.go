// Package events is the Events extension (io.modelcontextprotocol/events,
// SEP-3415): a server tells clients what happened in an upstream system,
// by poll (events/poll), push (events/stream) and signed webhook
// (events/subscribe), with opaque cursors, bounded replay and truncated
// when events were skipped.
//
// It implements SEP-3415 as of pull request #3415 at commit 5eb6862 (created
// 2026-10-05), read beside the design sketch it grew from (the
// experimental-ext-triggers-events repository, docs/design-sketch-proposal.md,
// 2026-02-19). The two agree on the methods and payloads; they number the
// errors differently, and Options.Codes picks SEP3415Codes (the default)
// or DesignSketchCodes.
//
// The Engine holds the event types, decides on subscriptions (bounds first,
// then the handler's Subscribe hook, then for webhooks the callback's
// verification), validates every payload against its type's payloadSchema
// before anything leaves, and delivers: from each type's log for poll and
// replay, live to push streams on every replica, and through a queue of
// claimed, retried, signed POSTs for webhooks. What must outlive a request
// lives behind Store: NewMemoryStore for one process, redisstore for
// replicas.
//
// Webhooks are sent as SEP-3415 asks of a server that must not be turned
// against its own network: callback URLs are https; an address that is not
// publicly routable is refused at subscribe time and again on every dial;
// redirects are not followed; what is read of an answer, and how long an
// attempt takes, are bounded; retries back off with jitter and give up; a
// callback that keeps failing is suspended until its next refresh; and no
// answer of an endpoint reaches the emitter or, beyond its category, the
// client. Secrets are never logged.
//
// The package is transport-free: the extension's method rows (on the
// runtime's extension seam) decode a request, build a Caller from it and
// call List, Poll, OpenStream, Subscribe or Unsubscribe; a handler emits
// with Emit.
package events
