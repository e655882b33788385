package mcptest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// inProcessTransport is an http.RoundTripper that serves each request by
// calling the handler's ServeHTTP on a goroutine of its own, with the
// response body streamed through an io.Pipe. No socket is involved, yet the
// server runs exactly the code a network request reaches: its response
// starts as soon as it flushes, event streams arrive event by event, a
// handler that waits for a second request (an elicitation answer) waits
// while the client sends it, and a client that closes the body cancels the
// request's context as net/http does when a connection goes away.
type inProcessTransport struct {
	h http.Handler
	// running counts the handlers still running, so that closing the client
	// can wait for them (no goroutine outlives a test).
	running sync.WaitGroup
}

// flushAt is the amount of unflushed response net/http buffers before it
// writes to the connection; the pipe writer keeps the same behaviour, so a
// handler that never flushes still streams a large body.
const flushAt = 4 << 10

func (t *inProcessTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	body := req.Body
	if body == nil {
		body = http.NoBody
	}
	r := req.Clone(ctx)
	r.Body = body
	r.RequestURI = req.URL.RequestURI()
	r.RemoteAddr = "in-process"
	if r.Host == "" {
		r.Host = req.URL.Host
	}

	pr, pw := io.Pipe()
	w := &pipeResponseWriter{header: http.Header{}, pipe: pw, ready: make(chan struct{})}
	t.running.Add(1)
	go func() {
		defer t.running.Done()
		defer body.Close()
		defer cancel() // net/http ends a request's context when its handler returns
		defer func() {
			if p := recover(); p != nil {
				w.finish(fmt.Errorf("mcptest: the handler panicked: %v", p))
				return
			}
			w.finish(nil)
		}()
		t.h.ServeHTTP(w, r)
	}()

	select {
	case <-w.ready:
	case <-req.Context().Done():
		cancel()
		pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          &pipeBody{PipeReader: pr, cancel: cancel},
		ContentLength: -1,
		Request:       req,
	}, nil
}

// wait waits until every handler returned, or ctx ends.
func (t *inProcessTransport) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { t.running.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("in-process HTTP handlers still running: %w", ctx.Err())
	}
}

// pipeBody is a response body; closing it is the client going away.
type pipeBody struct {
	*io.PipeReader
	cancel context.CancelFunc
}

func (b *pipeBody) Close() error {
	b.cancel()
	return b.PipeReader.CloseWithError(errClientClosed)
}

var errClientClosed = errors.New("mcptest: the client closed the response")

// pipeResponseWriter is the server's side of one in-process response. Like
// net/http, it sends the header when the handler first flushes, fills its
// buffer, or returns; until then the client's RoundTrip waits.
type pipeResponseWriter struct {
	header http.Header
	pipe   *io.PipeWriter

	mu      sync.Mutex
	status  int
	sent    http.Header // the header as it was when the response started
	buf     bytes.Buffer
	started bool
	ready   chan struct{} // closed when the header is sent
	broken  error         // the client closed the body
}

func (w *pipeResponseWriter) Header() http.Header { return w.header }

func (w *pipeResponseWriter) WriteHeader(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status != 0 || status < 200 && status != http.StatusSwitchingProtocols {
		return // like net/http: the first status wins (1xx informational ones are not modelled)
	}
	w.status = status
	w.sent = w.header.Clone()
}

func (w *pipeResponseWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken != nil {
		return 0, w.broken
	}
	w.buf.Write(p)
	if w.buf.Len() >= flushAt {
		if err := w.flushLocked(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// FlushError sends the header and what is buffered; http.ResponseController
// finds it, so the runtime's event streams reach the client event by event.
func (w *pipeResponseWriter) FlushError() error {
	w.WriteHeader(http.StatusOK)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

// Flush is http.Flusher, for handlers that use it directly.
func (w *pipeResponseWriter) Flush() { _ = w.FlushError() }

// flushLocked starts the response and copies the buffer into the pipe,
// which blocks until the client reads it (the pipe is the connection).
func (w *pipeResponseWriter) flushLocked() error {
	if w.broken != nil {
		return w.broken
	}
	if !w.started {
		w.started = true
		close(w.ready)
	}
	if w.buf.Len() == 0 {
		return nil
	}
	if _, err := w.pipe.Write(w.buf.Bytes()); err != nil {
		w.broken = err
		return err
	}
	w.buf.Reset()
	return nil
}

// finish ends the response when the handler returns: what is buffered is
// sent and the body ends (with err when the handler panicked).
func (w *pipeResponseWriter) finish(err error) {
	w.WriteHeader(http.StatusOK)
	w.mu.Lock()
	ferr := w.flushLocked()
	w.mu.Unlock()
	if err == nil {
		err = ferr
	}
	if err != nil && !errors.Is(err, errClientClosed) {
		w.pipe.CloseWithError(err)
		return
	}
	w.pipe.Close()
}
