package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
)

// A client sends notifications as well as requests. The runtime acts on
// some itself (coreNotifications says which, and what it does), and hands
// every one, in every era and transport, to the extensions that registered
// a handler for its method (Extension.Notifications). One that neither the
// core nor an extension handles is logged (debug) as ignored: none is
// dropped without a word.

// ClientNotification is a notification a client sent, as an extension's
// handler sees it.
type ClientNotification struct {
	// Method is the notification's method, e.g.
	// "notifications/roots/list_changed".
	Method string
	// Params is the params object as the client sent it ({} when absent).
	Params json.RawMessage
	// ProtocolVersion is the legacy session's version, or 2026-07-28.
	ProtocolVersion string
	// SessionID is the legacy session it came in ("" in 2026-07-28).
	SessionID string
	// Principal is who the request's access token speaks for (nil without
	// Options.Auth, and over stdio).
	Principal *Principal
}

// NotificationHandler handles a client notification. It runs on the
// goroutine of the transport that read it, before the next message of the
// connection: it must not block (start a goroutine for slow work). A panic
// is recovered and logged.
type NotificationHandler func(ctx context.Context, n *ClientNotification)

// coreNotifications are the notifications a client may send (every revision
// the runtime speaks), each with what the core does with it. An extension
// may handle each as well.
var coreNotifications = map[string]string{
	methodInitialized: "the legacy session is marked initialized",
	methodCancelled:   "the request it names is cancelled, on whichever replica runs it; it gets no response",
	methodRootsListChanged: "a legacy session refetches its roots (Call.Roots; Options.RootsChanged hears of a change); " +
		"ignored in 2026-07-28, which keeps no roots, and from a client that declared no roots",
	methodProgress: "nothing: the server's requests to the client carry no progress token",
	methodTaskStatus: "nothing in the core: the server creates no task on the client; " +
		"an extension may handle it (Extension.Notifications)",
}

// clientNotification hands n to the extensions that handle its method, and
// logs one that nothing handles.
func (d *dispatcher) clientNotification(ctx context.Context, n *ClientNotification) {
	if len(n.Params) == 0 {
		n.Params = json.RawMessage("{}")
	}
	handled := false
	for _, x := range d.extensionsNow() {
		h := x.Notifications[n.Method]
		if h == nil {
			continue
		}
		handled = true
		func() {
			defer d.recoverHook(x, "Notifications["+n.Method+"]", nil)
			h(ctx, n)
		}()
	}
	if _, core := coreNotifications[n.Method]; !core && !handled && d.logger.Enabled(ctx, slog.LevelDebug) {
		d.logger.LogAttrs(ctx, slog.LevelDebug, "client notification ignored: neither the runtime nor an extension handles it",
			slog.String("method", n.Method), slog.String("session", n.SessionID))
	}
}

// notificationOf is msg as an extension sees it: of a legacy session of
// version, or of 2026-07-28 (session "").
func notificationOf(ctx context.Context, msg *message, version, session string) *ClientNotification {
	return &ClientNotification{Method: msg.Method, Params: msg.Params, ProtocolVersion: version, SessionID: session,
		Principal: PrincipalFromContext(ctx)}
}
