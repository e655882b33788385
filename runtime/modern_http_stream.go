package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// errModernStreamDone: the response was already written.
var errModernStreamDone = errors.New("mcpgen: the response stream is finished")

// modernHTTPStream is the response of one 2026-07-28 POST. It starts as plain JSON
// and becomes text/event-stream when the first notification (progress, log,
// a listen event) is sent. It carries only notifications related to the
// request and then the response: never a request, never an event ID. Once
// the client has closed it (cancellation) nothing more is written.
type modernHTTPStream struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	ctx       context.Context // the request's: done when the client goes away
	acceptSSE bool

	mu   sync.Mutex
	sse  bool
	done bool
}

func newModernHTTPStream(w http.ResponseWriter, r *http.Request) *modernHTTPStream {
	accept := r.Header.Get("Accept")
	return &modernHTTPStream{
		w: w, rc: http.NewResponseController(w), ctx: r.Context(),
		acceptSSE: strings.Contains(accept, "text/event-stream") || strings.Contains(accept, "*/*"),
	}
}

// notify writes one notification as an SSE event. A client that did not
// accept SSE cannot receive notifications on this response; they are left
// out, and the response stays JSON.
func (h *modernHTTPStream) notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := encodeRequest(nil, method, params)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return errModernStreamDone
	}
	if !h.acceptSSE {
		return nil
	}
	return h.writeEvent(b)
}

// canStream reports whether the client accepts an event stream.
func (h *modernHTTPStream) canStream() bool { return h.acceptSSE }

// keepAlive writes an SSE comment (listen streams only).
func (h *modernHTTPStream) keepAlive() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done || h.ctx.Err() != nil {
		return errModernStreamDone
	}
	h.startSSE()
	if _, err := h.w.Write([]byte(": keep-alive\n\n")); err != nil {
		return err
	}
	return h.rc.Flush()
}

// finish writes the response: as the last SSE event when the stream was
// upgraded, otherwise as JSON with the reply's HTTP status. An empty reply,
// or a client that has gone away, writes nothing.
func (h *modernHTTPStream) finish(id json.RawMessage, reply modernReply) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return
	}
	h.done = true
	if (reply.result == nil && reply.err == nil) || h.ctx.Err() != nil {
		return
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	b := encodeModernResponse(id, reply)
	if h.sse {
		_ = h.writeEvent(b)
		return
	}
	status := reply.status
	if status == 0 {
		status = http.StatusOK
	}
	h.w.Header().Set("Content-Type", "application/json")
	h.w.WriteHeader(status)
	_, _ = h.w.Write(b)
}

func (h *modernHTTPStream) startSSE() {
	if h.sse {
		return
	}
	h.sse = true
	hd := h.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	h.w.WriteHeader(http.StatusOK)
}

func (h *modernHTTPStream) writeEvent(data []byte) error {
	h.startSSE()
	if _, err := fmt.Fprintf(h.w, "event: message\ndata: %s\n\n", data); err != nil {
		return err
	}
	return h.rc.Flush()
}

// encodeModernResponse writes the response envelope around an encoded result
// (which is not encoded again) or encodes the error.
func encodeModernResponse(id json.RawMessage, reply modernReply) []byte {
	if reply.err != nil {
		return encodeError(id, reply.err)
	}
	b, _ := encodeResponse(id, reply.result) // a json.RawMessage is not encoded again
	return b
}
