package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// serve is Server.ServeStdio.
func (t *stdioTransport) serve(ctx context.Context, r io.Reader, w io.Writer) error {
	sess := t.sessions.liveSession(SessionState{ID: "stdio-" + newSessionID(), ProtocolVersion: Version20250326})
	sess.stdio = true
	sess.established = false // until its initialize
	sess.inputClosed = make(chan struct{})
	out := sess.newStream(0, true, false)
	out.stdio = true
	sess.stdioOut = out
	defer t.sessions.pending.DeleteSession(context.Background(), sess.id)
	t.changes.addStdio(sess, out)
	defer t.changes.removeStdio(sess)
	defer sess.reportClosed()

	writerDone := make(chan error, 1)
	go func() { writerDone <- writeLines(w, out) }()

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() { readErr <- readLines(r, t.maxLine, lines, sess.ctx.Done()) }()

	var handlers sync.WaitGroup
	c := &stdioConn{t: t, sess: sess, out: out, handlers: &handlers}
	var err error
	var stopping time.Time // when ctx ended, if it did
loop:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				if rerr := <-readErr; rerr != nil && !errors.Is(rerr, io.EOF) {
					err = rerr
				}
				break loop
			}
			c.handle(ctx, line)
		case <-ctx.Done():
			// The server stops: like EOF, but the questions end for that reason.
			sess.inputEnd = ErrShuttingDown
			stopping = time.Now()
			t.sessions.logger.Info("stdio: shutting down", slog.Int64("calls running", c.running.Load()),
				slog.Int64("questions to clients ended", sess.waiting.Load()))
			break loop
		case werr := <-writerDone:
			sess.cancel()
			handlers.Wait()
			sess.waitRootsFetch()
			return fmt.Errorf("writing to the client: %w", werr)
		}
	}
	if err == nil {
		// EOF, or ctx ended: nothing will answer the server's questions any
		// more, but running calls may finish and their responses are
		// written (bounded).
		if sess.inputEnd == nil {
			sess.inputEnd = errInputClosed
		}
		close(sess.inputClosed)
		drained := make(chan struct{})
		go func() { handlers.Wait(); close(drained) }()
		timer := time.NewTimer(stdioDrain)
		select {
		case <-drained:
			if !stopping.IsZero() {
				t.sessions.logger.Info("stdio: shut down: every call finished", slog.Duration("took", time.Since(stopping).Round(time.Millisecond)))
			}
		case <-timer.C:
			t.sessions.logger.Warn("stdio: calls still running after the drain were cancelled", slog.Duration("waited", stdioDrain))
		}
		timer.Stop()
	}
	sess.cancel()
	handlers.Wait()
	sess.waitRootsFetch()
	out.q.finish()
	if werr := <-writerDone; werr != nil && err == nil {
		err = fmt.Errorf("writing to the client: %w", werr)
	}
	return err
}

// stdioTransport serves clients over newline-delimited JSON-RPC: each
// connection one legacy session after its initialize, or 2026-07-28
// requests before one.
type stdioTransport struct {
	sessions *sessionTable
	legacy   *sessionCore
	modern   *statelessCore
	d        *dispatcher
	changes  *changeFanout // change notifications reach initialized connections
	maxLine  int64         // Options.MaxBodyBytes
}

// stdioDrain bounds how long calls may run after stdin reached EOF.
const stdioDrain = 10 * time.Second

// stdioConn is the state of one ServeStdio loop.
type stdioConn struct {
	t        *stdioTransport
	sess     *session
	out      *stream
	handlers *sync.WaitGroup
	running  atomic.Int64 // calls in handlers, for the shutdown's log
	legacy   bool         // an initialize was seen: no more 2026-07-28 routing
}

// handle serves one line: it decodes the envelope, picks the era (a
// 2026-07-28 message carries modern _meta, until an initialize made the
// connection a legacy session) and hands each request to it.
func (c *stdioConn) handle(ctx context.Context, line []byte) {
	t, sess := c.t, c.sess
	msgs, bad, batch, perr := t.d.readMessages(line)
	if perr != nil {
		c.out.q.tryPush(frame{data: encodeError(nil, perr)}) // nothing to wait for on a broken line
		return
	}
	if batch && sess.version() != Version20250326 {
		c.reply(nil, &Error{Code: CodeInvalidRequest, Message: "JSON-RPC batches are not allowed in protocol version " + sess.version()})
		return
	}
	for i, m := range msgs {
		switch {
		case bad[i] != nil:
			c.reply(m.ID, bad[i])
		case !c.legacy && t.isModernStdio(m) && m.isNotification():
			c.modernNotification(ctx, m)
		case !c.legacy && t.isModernStdio(m):
			c.serveModern(m)
		case m.Method == methodInitialize && m.isRequest():
			// In order: the next line must find the session established.
			c.out.owe(1)
			t.legacy.serve(ctx, sess, m, c.out, c.establish)
		case m.isRequest():
			c.out.owe(1)
			c.handlers.Add(1)
			c.running.Add(1)
			go func() {
				defer c.handlers.Done()
				defer c.running.Add(-1)
				t.legacy.serve(context.WithoutCancel(ctx), sess, m, c.out, nil)
			}()
		case m.isNotification():
			t.sessions.serveNotification(ctx, sess, m)
		default:
			if res, _ := t.sessions.serveAnswer(sess, m); res != Delivered {
				t.sessions.logger.LogAttrs(ctx, slog.LevelWarn, "answer refused", slog.String("session", sess.id),
					slog.String("id", string(m.ID)), slog.Bool("expired", res == Expired))
			}
		}
	}
}

func (c *stdioConn) reply(id json.RawMessage, e *Error) {
	_ = c.out.q.pushFinal(frame{data: encodeError(id, e)})
}

// establish makes the connection the legacy session an initialize
// negotiated; 2026-07-28 routing ends.
func (c *stdioConn) establish(_ context.Context, st SessionState) (*session, error) {
	c.legacy = true
	sess := c.sess
	defer sess.opened(st.ProtocolVersion)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.established = true
	sess.state.ProtocolVersion = st.ProtocolVersion
	sess.state.ClientCapabilities = st.ClientCapabilities
	sess.state.ClientInfo = st.ClientInfo
	sess.caps = parseClientCapabilities(st.ClientCapabilities)
	return sess, nil
}

// serveModern runs one 2026-07-28 message in its own goroutine; a client
// notifications/cancelled for its ID cancels it like a legacy call.
func (c *stdioConn) serveModern(m *message) {
	ctx, cancel := context.WithCancelCause(c.sess.ctx)
	if m.isRequest() {
		if e := c.sess.addInflight(m.ID, cancel); e != nil {
			cancel(nil)
			_ = c.out.push(context.Background(), encodeError(m.ID, e))
			return
		}
	}
	c.handlers.Add(1)
	c.running.Add(1)
	go func() {
		defer c.handlers.Done()
		defer c.running.Add(-1)
		defer cancel(nil)
		c.t.d.calls.hold() // until its answer is written
		defer c.t.d.calls.done()
		data := c.t.answerModernStdio(ctx, m, c.out.push, "c:"+c.sess.id)
		if m.isRequest() {
			c.sess.removeInflight(m.ID) // before the client can read the answer and reuse the ID
		}
		if data != nil && ctx.Err() == nil {
			_ = c.out.push(ctx, data)
		}
	}()
}

// modernNotification handles a 2026-07-28 client notification read on
// stdio: a notifications/cancelled cancels the request it names, as in a
// session; every one reaches the extensions.
func (c *stdioConn) modernNotification(ctx context.Context, m *message) {
	if m.Method == methodCancelled {
		if id := m.params().RequestID; validID(id) {
			c.sess.cancelLocal(id)
		}
	}
	c.t.d.clientNotification(ctx, notificationOf(ctx, m, Version20260728, ""))
}

// isModernStdio reports whether a message read on stdio belongs to the
// 2026-07-28 era: it carries modern _meta. The stdio loop asks only until a
// legacy initialize was seen.
func (t *stdioTransport) isModernStdio(msg *message) bool {
	return msg.Method != "" && msg.params().modern()
}

// serveModernStdio serves one 2026-07-28 request read on stdio; send writes
// one message in order. The stdio loop runs it in its own goroutine and
// cancels ctx on a notifications/cancelled for its ID; then nothing more is
// sent. There are no headers on stdio, so only the _meta and version checks
// apply before the era serves the method. from is the connection, the
// caller of a request without a principal.
func (t *stdioTransport) serveModernStdio(ctx context.Context, msg *message, send func(context.Context, []byte) error, from string) {
	t.d.calls.hold() // until its answer is written
	defer t.d.calls.done()
	if data := t.answerModernStdio(ctx, msg, send, from); data != nil && ctx.Err() == nil {
		_ = send(ctx, data)
	}
}

// answerModernStdio is serveModernStdio up to its answer, which it returns
// (nil for a notification) instead of sending, so that the connection can
// forget the request's ID before the client reads the answer and may use
// the ID again.
func (t *stdioTransport) answerModernStdio(ctx context.Context, msg *message, send func(context.Context, []byte) error, from string) []byte {
	if !msg.isRequest() {
		return nil // notifications: cancellation is the loop's business
	}
	if !validID(msg.ID) {
		return encodeError(nil, NewError(CodeInvalidRequest, "the request id must be a string or an integer"))
	}
	meta, e := parseRequestMeta(msg.params().Meta)
	if e == nil {
		e = t.d.versions.checkModern(meta.ProtocolVersion)
	}
	if e != nil {
		return encodeError(msg.ID, e)
	}
	data, _ := t.modern.serve(ctx, msg, meta, &modernStdioStream{send: send}, from)
	return data
}

// modernStdioStream sends a 2026-07-28 request's notifications as their own
// lines.
type modernStdioStream struct {
	send func(context.Context, []byte) error
}

func (o *modernStdioStream) notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := encodeRequest(nil, method, params)
	if err != nil {
		return err
	}
	return o.send(ctx, data)
}

func (o *modernStdioStream) canStream() bool { return true }

// keepAlive does nothing: a pipe needs no keep-alive.
func (o *modernStdioStream) keepAlive() error { return nil }

// writeLines writes the stream's frames, one per line, until it is drained.
func writeLines(w io.Writer, out *stream) error {
	bw := bufio.NewWriter(w)
	for {
		f, ok, wait := out.q.pop()
		if !ok {
			if err := bw.Flush(); err != nil {
				return err
			}
			if out.q.drained() {
				return nil
			}
			<-wait
			continue
		}
		if _, err := bw.Write(f.data); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
}

// readLines sends each line of r (without its newline) until EOF or stop.
func readLines(r io.Reader, limit int64, lines chan<- []byte, stop <-chan struct{}) error {
	defer close(lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br, limit)
		if len(trimSpace(line)) > 0 {
			select {
			case lines <- line:
			case <-stop:
				return nil
			}
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line of at most limit bytes; a longer line is skipped
// and reported as a parse error line.
func readLine(br *bufio.Reader, limit int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if int64(len(line)+len(chunk)) <= limit {
			line = append(line, chunk...)
		} else if line != nil || len(chunk) > 0 {
			line = []byte("\x00too long")
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}
