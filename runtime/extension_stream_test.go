package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// streamExtension adds x/stream, which sends one notification and then
// holds the stream until it ends, reporting why on ended.
func streamExtension(ended chan<- string) Extension {
	return Extension{ID: "x.example/stream", Methods: []Method{{Name: "x/stream", Authorize: NoScopes,
		Stream: func(ctx context.Context, _ *MethodRequest, s *Stream) (*MethodResult, error) {
			if err := s.Send(ctx, "notifications/x/hello", nil); err != nil {
				ended <- "send failed"
				return nil, err
			}
			select {
			case <-ctx.Done():
				ended <- "client gone"
				return nil, ctx.Err()
			case <-s.Closing():
				ended <- "closing"
				return &MethodResult{Result: struct{}{}}, nil
			}
		}}}}
}

// TestStreamNeedsAnEventStreamAndASlot: a Stream method is 406 for a
// client that accepts no event stream, and 429 past its caller's share of
// MaxGETStreams, like subscriptions/listen.
func TestStreamNeedsAnEventStreamAndASlot(t *testing.T) {
	leakCheck(t)
	ended := make(chan string, 8)
	s := NewServer(Options{MaxGETStreams: 2, CallerShare: 0.5})
	t.Cleanup(func() { _ = s.Close() })
	if err := s.AddExtension(streamExtension(ended)); err != nil {
		t.Fatal(err)
	}
	c := modernServer(t, s)
	if r := c.call("x/stream", nil, withHeader("Accept", "application/json")); r.status != http.StatusNotAcceptable || r.errCode(t) != CodeInvalidRequest {
		t.Errorf("a stream without text/event-stream: %d %s", r.status, r.body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	resp, body := c.send("x/stream", nil, withCtx(ctx))
	if resp.StatusCode != http.StatusOK || newSSEReader(body).next(t)["method"] != "notifications/x/hello" {
		t.Fatalf("the stream: HTTP %d", resp.StatusCode)
	}
	if r := c.call("x/stream", nil); r.status != http.StatusTooManyRequests || r.errCode(t) != CodeLimitExceeded {
		t.Errorf("a second stream past the caller's share: %d %s", r.status, r.body)
	}
	cancel()
	body.Close()
	if why := <-ended; why != "client gone" {
		t.Errorf("the stream ended: %s", why)
	}
}

// TestLegacyStreamEndsWhenItsClientLeaves: a legacy session's stream whose
// client dropped the connection and did not resume it within ResumeWindow
// ends (its context), and the slot comes back.
func TestLegacyStreamEndsWhenItsClientLeaves(t *testing.T) {
	noLeaks(t)
	ended := make(chan string, 8)
	s, ts := legacyServer(t, Options{ResumeWindow: 100 * time.Millisecond, MaxGETStreams: 1, CallerShare: 1})
	if err := s.AddExtension(streamExtension(ended)); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	ctx, cancel := context.WithCancel(context.Background())
	resp := c.do(c.request(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"x/stream"}`, func(r *http.Request) { *r = *r.WithContext(ctx) }))
	if ev := next(t, events(t, resp)); ev.msg.Method != "notifications/x/hello" {
		t.Fatalf("first event %+v", ev)
	}
	cancel()
	select {
	case why := <-ended:
		if why != "client gone" {
			t.Errorf("the stream ended: %s", why)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream outlived its client and ResumeWindow")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp := c.post(`{"jsonrpc":"2.0","id":2,"method":"x/stream"}`)
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			resp.Body.Close()
			break // the slot came back: the new stream opened
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream's slot never came back: %+v", jsonBody(t, resp).Error)
		}
		resp.Body.Close()
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStreamMethodsAreChecked: a method is Serve or Stream, and a Stream
// takes no input_required rounds.
func TestStreamMethodsAreChecked(t *testing.T) {
	serve := func(context.Context, *MethodRequest) (*MethodResult, error) { return nil, nil }
	stream := func(context.Context, *MethodRequest, *Stream) (*MethodResult, error) { return nil, nil }
	for _, m := range []Method{
		{Name: "x/a", Authorize: NoScopes, Serve: serve, Stream: stream},
		{Name: "x/b", Authorize: NoScopes, Stream: stream, MultiRoundTrip: true},
	} {
		if _, err := (Extension{ID: "x.example/s", Methods: []Method{m}}).compile(); err == nil {
			t.Errorf("%s was accepted", m.Name)
		}
	}
}

// TestStreamKnowsItsRequestID: a Stream method learns its request's
// JSON-RPC id (MethodRequest.ID), as the client sent it, so that it can
// tag its notifications: over stdio two streams share one stdout, and
// the client tells their notifications apart only by that tag.
func TestStreamKnowsItsRequestID(t *testing.T) {
	leakCheck(t)
	s := NewServer(Options{})
	t.Cleanup(func() { _ = s.Close() })
	if err := s.AddExtension(Extension{ID: "x.example/tag", Methods: []Method{{Name: "x/tag", Authorize: NoScopes,
		Stream: func(ctx context.Context, req *MethodRequest, st *Stream) (*MethodResult, error) {
			if err := st.Send(ctx, "notifications/x/tag", map[string]json.RawMessage{"id": req.ID}); err != nil {
				return nil, err
			}
			<-ctx.Done()
			return nil, ctx.Err()
		}}}}); err != nil {
		t.Fatal(err)
	}
	p := startStdio(t, s)
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	seen := map[string]bool{}
	for _, id := range []string{`"a-1"`, `7`} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"x/tag"}`)
		m := p.recv()
		var got struct {
			ID json.RawMessage `json:"id"`
		}
		if m.Method != "notifications/x/tag" || json.Unmarshal(m.Params, &got) != nil {
			t.Fatalf("stream %s: %+v", id, m)
		}
		seen[string(got.ID)] = true
	}
	if !seen[`"a-1"`] || !seen[`7`] {
		t.Errorf("the streams' notifications carry %v, not their request ids", seen)
	}
	for _, id := range []string{`"a-1"`, `7`} {
		p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`)
	}
}
