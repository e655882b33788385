package runtime

import (
	"context"
	"slices"
)

// Roots are a legacy session's state: the server asks the client for them
// (roots/list) once the session is initialized, again after each
// notifications/roots/list_changed, and keeps the list with the session
// (SessionState.Roots, which replicas share). A call reads that list
// without a round trip to the client. A 2026-07-28 request has no session
// to keep them in, so there every read asks the client, through the
// request's multi round-trip.

// ErrNoRoots is what Call.Roots returns when the client declared no roots
// capability: it has no roots to give, which is not the same as an empty
// list. errors.Is(err, ErrCapabilityMissing) is true as well, so a handler
// that returns it answers -32021 naming "roots".
var ErrNoRoots error = &CapabilityError{Capability: "roots", detail: "roots (the client declared no roots capability)"}

// RootsChange is what Options.RootsChanged receives when a session's roots
// differ from the list the server held before.
type RootsChange struct {
	// SessionID is the legacy session whose roots changed.
	SessionID string
	// Roots is the new list; Previous the one held before (nil when the
	// server had none yet: the first fetch after initialize).
	Roots, Previous []Root
	// First reports that the server held no list before this one.
	First bool
}

// rootsSource is a legacy session's roots cache as a Call reads it
// (session_roots.go). ask asks the client on the call's own stream, for when
// the session holds no list (the fetch after initialize has not succeeded
// yet, or the list is larger than the session may keep).
type rootsSource interface {
	roots(ctx context.Context, ask func(context.Context) ([]Root, error)) ([]Root, error)
}

// Roots returns the client's roots. In a legacy session they are the
// session's state: the list the server fetched when the session was
// initialized and after the client's last notifications/roots/list_changed,
// read without asking the client (a refetch in flight is waited for). While
// the session holds no list yet, Roots asks the client once, on the call's
// own stream, and keeps the answer for every later call. In 2026-07-28,
// which has no session, every call that reads Roots asks the client: one
// more round trip of the call (an input_required round, under the key
// "roots"). A client that declared no roots capability gets ErrNoRoots.
//
// ListRoots always asks the client, in every era.
func (c *Call) Roots(ctx context.Context) ([]Root, error) {
	if c.peer.capabilities().Roots == nil {
		return nil, ErrNoRoots
	}
	src := c.peer.sessionRoots()
	if src == nil {
		return c.ListRoots(ctx)
	}
	list, err := src.roots(ctx, c.ListRoots)
	return slices.Clone(list), err
}

// sameRoots reports whether two lists name the same roots in the same
// order.
func sameRoots(a, b []Root) bool { return slices.Equal(a, b) }
