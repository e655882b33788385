package mcptest

import "context"

// transport carries one client's messages to one server.
type transport interface {
	// call sends request m and returns its response. What the server sends
	// for the request before its response (notifications, and in a session
	// its questions) goes to the dispatcher with x along the way.
	call(ctx context.Context, m *message, x *exchange) (*message, error)
	// notify sends a notification.
	notify(ctx context.Context, m *message) error
	// openStandalone opens the stream of messages no request caused: a
	// session's GET stream over HTTP. Over stdio everything rides the one
	// connection, so it does nothing.
	openStandalone(ctx context.Context) error
	// close ends the connection: the session (DELETE), the streams, the
	// server's goroutines or process, within ctx.
	close(ctx context.Context) error
}

// dispatcher receives what the server sends besides responses: a
// notification (it returns nil) or a request, which it answers.
type dispatcher interface {
	incoming(ctx context.Context, m *message, x *exchange) *message
}
