package runtime

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// ListenAndServe serves the Server at path /mcp on addr (for example
// "127.0.0.1:8080") until ctx ends, then shuts down gracefully: in-flight
// calls get Options.ShutdownTimeout (10s) to finish, and those still running
// then answer with an error. It returns nil after a clean shutdown.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// shutdownAnswerWait bounds how long the requests that Shutdown ended get to
// write their error responses.
const shutdownAnswerWait = 2 * time.Second

// Serve is ListenAndServe on an existing listener.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", s)
	if p := s.ProtectedResourceMetadataPath(); p != "" {
		mux.Handle(p, s)
	}
	// The extensions' routes, also those added after Serve started.
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := s.d.route(r); h != nil {
			h.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	// No ReadTimeout or WriteTimeout: both would cut long response streams.
	// The body has its own deadline (readBody, BodyReadTimeout).
	srv := &http.Server{Handler: mux,
		ReadHeaderTimeout: positive(s.opts.ReadHeaderTimeout),
		IdleTimeout:       positive(s.opts.IdleTimeout)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		_ = s.Close()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownTimeout)
	defer cancel()
	err := s.Shutdown(sctx)
	// Shutdown ended what still ran; those requests answer with an error,
	// which they get a moment to write before the connections close.
	hctx, hcancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownAnswerWait)
	defer hcancel()
	if herr := srv.Shutdown(hctx); herr != nil && err == nil {
		err = herr
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// Shutdown stops accepting new requests (503), waits until the running tool
// calls finish or ctx ends, then ends every session: open streams close and
// calls still running are cancelled. Answers to running calls' elicitations
// are still accepted while it waits.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	// Every subscriptions/listen stream ends with its final result, so
	// that the drain below can finish.
	s.d.listeners.shutdown()
	err := s.d.calls.wait(ctx)
	_ = s.Close()
	return err
}

// Close ends every session at once and stops the keep-alive goroutine. With
// a shared session store (replicas) it ends them here only: the other
// replicas serve them on.
func (s *Server) Close() error {
	s.closing.Store(true)
	s.d.listeners.shutdown()
	s.d.calls.close()
	s.sessions.closeAll()
	s.baseCancel()
	s.d.waitDetached(s.opts.ShutdownTimeout)
	return nil
}

// positive maps a disabled (negative) bound to net/http's "none" (0).
func positive(d time.Duration) time.Duration { return max(d, 0) }
