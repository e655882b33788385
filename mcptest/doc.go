// Package mcptest tests MCP servers built on the mcpgen runtime the way a
// client uses them, in every protocol era, without a network.
//
// A Client drives a *runtime.Server through its real dispatch: in-process
// HTTP calls the server's ServeHTTP with the response streamed through a
// pipe (HTTP), and in-process stdio runs ServeStdio on pipes (Stdio). The
// same client speaks to a server at a URL (URL) or to a subprocess's stdio
// (Command), for integration tests.
//
// Run runs a test body once per era, as subtests named by protocol
// version: a 2025-11-25 session, whose handlers ask their questions live on
// the call's own stream, and 2026-07-28, stateless, whose handlers ask with
// input_required rounds that the client answers by retrying the request for
// the caller. The test scripts the answers (Accept, Decline, Cancel,
// OnElicit, OnSampling, SetRoots) and reads the notifications the server
// sent (Notifications, Progress, Logs, WaitFor, after Listen or Subscribe
// for those no request carries):
//
//	func TestDeleteNote(t *testing.T) {
//		mcptest.Run(t, newServer, func(t *testing.T, c *mcptest.Client) {
//			c.Accept("confirm_delete", map[string]any{"confirm": true})
//			res, err := c.CallTool(t.Context(), "delete_note", map[string]any{"title": "welcome"})
//			...
//		})
//	}
//
// mcpgen generates a typed layer over Client for each generated package
// (package notes gets notes/notestest), so that tests call tools with their
// input structs and answer forms with their answer structs:
//
//	notestest.Run(t, newServer, func(t *testing.T, c *notestest.Client) {
//		c.AnswerConfirmDelete(notes.ConfirmDelete{Confirm: true})
//		out, err := c.DeleteNote(t.Context(), notes.DeleteNoteInput{Title: "welcome"})
//		...
//	})
//
// In 2026-07-28 a handler that asks a question runs again from the top
// with the answer, so work it does before the question happens once per
// round. When such a subtest fails, the client logs which calls ran how
// many times, and after which questions.
package mcptest
