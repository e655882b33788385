package runtime

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// ListenAndServe serves the Server at path /mcp on addr (for example
// "127.0.0.1:8080") until ctx ends, then shuts down gracefully (see
// Shutdown): questions waiting for the client end at once, in-flight calls
// get Options.ShutdownTimeout (10s) to finish, and those still running then
// answer with an error. The shutdown is logged. It returns nil once ctx
// ended and the server shut down within those bounds, whether or not every
// call finished in time; an error only when serving failed.
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
	_ = s.Shutdown(sctx) // a drain cut short is logged there, and is still a shutdown
	// Shutdown ended what still ran; those requests answer with an error,
	// which they get a moment to write before the connections close.
	hctx, hcancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownAnswerWait)
	defer hcancel()
	if srv.Shutdown(hctx) != nil {
		s.sessions.logger.Warn("closed the connections still open after the shutdown", slog.Duration("waited", shutdownAnswerWait))
		_ = srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return nil
}

// Shutdown stops accepting new requests (503), ends every wait for a
// client's answer at once (the call's Elicit, CreateMessage or ListRoots
// returns an error wrapping ErrExpired and ErrShuttingDown, and the client
// gets notifications/cancelled for the question), waits until the running
// calls finish or ctx ends, then ends every session: open streams close and
// calls still running are cancelled. It logs what it did at Info level
// (Warn when calls had to be cancelled) and returns ctx's error when the
// drain was cut short.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	start := time.Now()
	// Every subscriptions/listen stream ends with its final result, and
	// every question to a client ends, so that the drain below can finish:
	// a user who may never answer must not hold the shutdown.
	s.d.listeners.shutdown()
	questions := s.sessions.endPendingQuestions()
	log := s.sessions.logger
	log.Info("shutting down", slog.Int("calls running", s.d.calls.running()),
		slog.Int64("questions to clients ended", questions))
	err := s.d.calls.wait(ctx)
	left := s.d.calls.running()
	_ = s.Close()
	if err != nil {
		log.Warn("shut down before every call finished: the rest were cancelled",
			slog.Int("calls cancelled", left), slog.Duration("waited", time.Since(start).Round(time.Millisecond)))
		return err
	}
	log.Info("shut down: every call finished", slog.Duration("took", time.Since(start).Round(time.Millisecond)))
	return nil
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
	s.tasks.close()
	return nil
}

// positive maps a disabled (negative) bound to net/http's "none" (0).
func positive(d time.Duration) time.Duration { return max(d, 0) }
