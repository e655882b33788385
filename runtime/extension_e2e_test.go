package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/wiretest"
	"github.com/mcpgen/mcpgen/runtime"
)

// The extension below is written the way a package outside this repository
// would write one: with the runtime's public API only. Its method family
// elicits, reports progress, sends notifications of its own, holds a
// long-lived stream, and panics once; TestThirdPartyExtension drives it in
// both eras, over HTTP and stdio.

const noteExt = "com.example/notes"

var confirmNote = &runtime.Elicitation{Name: "confirm", Mode: "form", Message: "Keep the note?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"keep":{"type":"boolean"}},"required":["keep"]}`)}

// notesExtension returns the extension and a channel that receives once
// per stream, when the stream has sent its events.
func notesExtension() (runtime.Extension, <-chan struct{}) {
	var panicked atomic.Bool
	streaming := make(chan struct{}, 4)
	keep := func(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
		call := req.Call()
		if err := call.Progress(ctx, 1, 2, "asking"); err != nil {
			return nil, err
		}
		var a struct {
			Keep bool `json:"keep"`
		}
		if err := call.Elicit(ctx, confirmNote, "", &a); err != nil {
			return nil, err
		}
		if err := call.Notify(ctx, "notifications/notes/kept", map[string]any{"keep": a.Keep}); err != nil {
			return nil, err
		}
		if err := call.Progress(ctx, 2, 2, "done"); err != nil {
			return nil, err
		}
		return &runtime.MethodResult{Result: map[string]any{"keep": a.Keep}}, nil
	}
	flaky := func(context.Context, *runtime.MethodRequest) (*runtime.MethodResult, error) {
		if !panicked.Swap(true) {
			panic("a bug in the notes extension")
		}
		return &runtime.MethodResult{Result: map[string]any{"ok": true}}, nil
	}
	watch := func(ctx context.Context, req *runtime.MethodRequest, s *runtime.Stream) (*runtime.MethodResult, error) {
		for i := range 3 {
			if err := s.Send(ctx, "notifications/notes/changed", map[string]any{"n": i}); err != nil {
				return nil, err
			}
		}
		streaming <- struct{}{}
		select {
		case <-s.Closing():
			return &runtime.MethodResult{Result: map[string]any{"closed": true}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return runtime.Extension{ID: noteExt, Methods: []runtime.Method{
		{Name: "notes/keep", Authorize: runtime.NoScopes, MultiRoundTrip: true, Serve: keep},
		{Name: "notes/flaky", Authorize: runtime.NoScopes, Serve: flaky},
		{Name: "notes/watch", Authorize: runtime.NoScopes, Stream: watch},
	}}, streaming
}

// TestThirdPartyExtension: an extension's method elicits (a live request
// in a legacy session, input_required rounds in 2026-07-28), reports
// progress and sends a notification of its own on the request's stream; a
// panic is answered -32603 and the server serves on; a stream delivers its
// notifications and, at a graceful shutdown, its final result. In both
// eras, over HTTP and over stdio.
func TestThirdPartyExtension(t *testing.T) {
	wiretest.NoLeaks(t)
	caps := map[string]any{"elicitation": map[string]any{}}
	for _, era := range []struct {
		version string
		stdio   bool
	}{{runtime.Version20251125, false}, {runtime.Version20260728, false}, {runtime.Version20251125, true}, {runtime.Version20260728, true}} {
		s := runtime.NewServer(runtime.Options{ShutdownTimeout: 5 * time.Second})
		t.Cleanup(func() { _ = s.Close() })
		ext, streaming := notesExtension()
		if err := s.AddExtension(ext); err != nil {
			t.Fatal(err)
		}
		var c *wiretest.Conn
		switch {
		case era.stdio:
			c = wiretest.Stdio(t, s, era.version, caps)
		case era.version == runtime.Version20260728:
			c = wiretest.ModernHTTP(t, serveLoopback(t, s), caps, wiretest.Options{})
		default:
			c = wiretest.LegacyHTTP(t, serveLoopback(t, s), era.version, `{"elicitation":{}}`, wiretest.Options{})
		}
		t.Run(c.Name, func(t *testing.T) {
			// A panic is answered, and the server serves on.
			if m := c.Call(t, "notes/flaky", nil); m.Error == nil || m.Error.Code != runtime.CodeInternalError || strings.Contains(m.Error.Message, "a bug") {
				t.Fatalf("the panicking call: %+v", m.Error)
			}
			if m := c.Call(t, "notes/flaky", nil); m.Error != nil {
				t.Fatalf("after the panic: %+v", m.Error)
			}

			// A question, progress and a notification of the extension's own.
			params := map[string]any{"_meta": map[string]any{"progressToken": "keep-1"}}
			answer := func(m wiretest.Message) string {
				if m.Method != "elicitation/create" || !strings.Contains(string(m.Params), "Keep the note?") {
					t.Errorf("the question: %s %s", m.Method, m.Params)
				}
				return `{"action":"accept","content":{"keep":true}}`
			}
			r := c.Send(t, "notes/keep", params, answer)
			if c.Modern {
				var round struct {
					ResultType    string                     `json:"resultType"`
					InputRequests map[string]json.RawMessage `json:"inputRequests"`
					RequestState  string                     `json:"requestState"`
				}
				wiretest.Result(t, r.Message, &round)
				if round.ResultType != "input_required" || !strings.Contains(string(round.InputRequests["confirm"]), "Keep the note?") || round.RequestState == "" {
					t.Fatalf("round one: %s", r.Message.Result)
				}
				params["requestState"] = round.RequestState
				params["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"keep": true}}}
				r = c.Send(t, "notes/keep", params, nil)
			}
			var res struct {
				Keep bool `json:"keep"`
			}
			wiretest.Result(t, r.Message, &res)
			var methods []string
			for _, n := range r.Notifications {
				methods = append(methods, n.Method)
			}
			if !res.Keep || strings.Join(methods, " ") != "notifications/progress notifications/notes/kept notifications/progress" {
				t.Fatalf("notes/keep: %s after %v", r.Message.Result, methods)
			}

			// A stream, until the server shuts down gracefully.
			go func() {
				<-streaming
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = s.Shutdown(ctx)
			}()
			r = c.Send(t, "notes/watch", nil, nil)
			var closed struct {
				Closed bool `json:"closed"`
			}
			wiretest.Result(t, r.Message, &closed)
			if !closed.Closed || len(r.Notifications) != 3 || r.Notifications[2].Method != "notifications/notes/changed" || !strings.Contains(string(r.Notifications[2].Params), `"n":2`) {
				t.Fatalf("the stream: %s after %+v", r.Message.Result, r.Notifications)
			}
		})
	}
}

// serveLoopback serves s on a loopback port until the test ends.
func serveLoopback(t *testing.T, s *runtime.Server) string { return wiretest.Serve(t, s) }
