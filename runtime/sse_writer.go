package runtime

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// sseWriter writes text/event-stream events to one HTTP response. Writes
// are buffered; the writer flushes only when it has nothing more ready
// (and the last response needs no flush: ending the handler sends it), so
// a round trip costs two writes, not one per event.
type sseWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	buf   []byte
	dirty bool
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// start sends the headers of an event stream.
func (s *sseWriter) start(sessionID string) {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	if sessionID != "" {
		h.Set(headerSessionID, sessionID)
	}
	s.w.WriteHeader(http.StatusOK)
	s.dirty = true
}

// event writes one event; data lines are split on newlines as SSE requires.
func (s *sseWriter) event(id string, data []byte) error {
	b := s.buf[:0]
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		b = append(b, "data: "...)
		b = append(b, bytes.TrimSuffix(data[:i], []byte{'\r'})...)
		b = append(b, '\n')
		data = data[i+1:]
	}
	b = append(b, "data: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	s.buf = b
	return s.write(b)
}

// prime writes a priming event (ID, empty data) and the retry delay.
func (s *sseWriter) prime(id string, retry time.Duration) error {
	b := append(s.buf[:0], "id: "...)
	b = append(b, id...)
	b = append(b, "\ndata: \n"...)
	if retry > 0 {
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, retry.Milliseconds(), 10)
		b = append(b, '\n')
	}
	b = append(b, '\n')
	s.buf = b
	return s.write(b)
}

// comment writes a keep-alive comment line and flushes it.
func (s *sseWriter) comment() error {
	if err := s.write([]byte(": keep-alive\n\n")); err != nil {
		return err
	}
	return s.sync()
}

// write buffers b; sync sends it.
func (s *sseWriter) write(b []byte) error {
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	s.dirty = true
	return nil
}

// sync sends what was written to the client.
func (s *sseWriter) sync() error {
	if !s.dirty {
		return nil
	}
	s.dirty = false
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil // a writer that cannot flush still delivers, later
}
