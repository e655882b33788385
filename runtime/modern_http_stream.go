package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
	ctx       context.Context // the request's: done when the client goes away
	acceptSSE bool

	mu   sync.Mutex
	sse  *sseWriter // once upgraded
	done bool
}

func newModernHTTPStream(w http.ResponseWriter, r *http.Request) *modernHTTPStream {
	_, sse := accepts(r)
	return &modernHTTPStream{w: w, ctx: r.Context(), acceptSSE: sse}
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
	if err := h.stream().event("", b); err != nil {
		return err
	}
	return h.sse.sync()
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
	return h.stream().comment()
}

// finish writes the response (data, nil for none): as the last SSE event
// when the stream was upgraded, otherwise as JSON with its HTTP status. A
// client that has gone away gets nothing.
func (h *modernHTTPStream) finish(data []byte, status int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return
	}
	h.done = true
	switch {
	case data == nil || h.ctx.Err() != nil:
	case h.sse != nil:
		_ = h.sse.event("", data)
	default:
		writeJSONStatus(h.w, status, "", data)
	}
}

// stream upgrades the response to an event stream on first use.
func (h *modernHTTPStream) stream() *sseWriter {
	if h.sse == nil {
		h.sse = newSSEWriter(h.w)
		h.sse.start("")
	}
	return h.sse
}
