package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// legacyPeer is the peer of a call in a legacy session (2025-03-26 to
// 2025-11-25): a live server-to-client request on the call's own stream,
// through the requestScopedSender, and a wait for the answer.
type legacyPeer struct {
	x        *legacyExchange
	parent   json.RawMessage // the incoming request's ID, for logs
	caps     ClientCapabilities
	progress json.RawMessage
}

func (p *legacyPeer) capabilities() ClientCapabilities { return p.caps }
func (p *legacyPeer) logLevel() LogLevel {
	p.x.sess.mu.Lock()
	defer p.x.sess.mu.Unlock()
	return p.x.sess.state.LogLevel
}
func (p *legacyPeer) progressToken() json.RawMessage { return p.progress }

// client is what the session keeps of the client's initialize.
func (p *legacyPeer) client() clientFacts {
	st, caps := p.x.sess.snapshot()
	return clientFacts{sessionID: st.ID, version: st.ProtocolVersion, info: st.ClientInfo, caps: caps}
}

// sessionRoots is the session's roots cache.
func (p *legacyPeer) sessionRoots() rootsSource { return p.x.sess }

func (p *legacyPeer) notify(ctx context.Context, method string, params any) error {
	return p.x.notify(ctx, method, params)
}

func (p *legacyPeer) request(ctx context.Context, _ string, method string, params any) (json.RawMessage, error) {
	return p.x.sess.outbound(ctx, &p.x.sender, p.parent, method, params)
}

// urlMode mints a random elicitationId; the session hears of the
// elicitation's completion (notifications/elicitation/complete). URL mode
// starts with 2025-11-25.
func (p *legacyPeer) urlMode() urlMode {
	var b [12]byte
	_, _ = rand.Read(b[:])
	sess := p.x.sess
	return urlMode{supported: sess.version() >= Version20251125, id: hex.EncodeToString(b[:]),
		session: sess.id, stored: !sess.stdio, completer: sess}
}

func (p *legacyPeer) requireURL(_ []string, list []urlParams) error { return urlRequiredError(list) }

// outbound sends one server-to-client request and waits for its answer. Its
// lifecycle (parent request, ID, route, outcome) is logged at debug level as
// one "outbound request" record per step, all carrying the same ID.
func (sess *session) outbound(ctx context.Context, snd *requestScopedSender, parent json.RawMessage, method string, params any) (json.RawMessage, error) {
	s := sess.table
	id := sess.ids.next()
	data, err := encodeRequest(id, method, params)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", method, err)
	}
	answers := make(chan Answer, 1)
	if err := s.pending.Register(ctx, sess.id, id, func(a Answer) { answers <- a }); err != nil {
		return nil, fmt.Errorf("%s: registering the request: %w", method, err)
	}
	log := outboundLog{l: s.logger, on: s.logger.Enabled(ctx, slog.LevelDebug),
		session: sess.id, method: method, id: id, parent: parent}
	route, err := snd.send(ctx, data)
	if err != nil {
		s.pending.Expire(context.WithoutCancel(ctx), sess.id, id, false)
		log.step(ctx, "not sent", slog.String("error", err.Error()))
		return nil, fmt.Errorf("sending %s: %w", method, err)
	}
	log.route = route
	log.step(ctx, "sent")
	var timeout <-chan time.Time
	if d := s.opts.requestTimeout; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	answered := func(a Answer) (json.RawMessage, error) {
		sess.touch() // an answer is a sign of life, wherever it was posted
		if a.Error != nil {
			log.step(ctx, "error", slog.Int("code", a.Error.Code))
			return nil, fmt.Errorf("the client answered %s with error %d: %s", method, a.Error.Code, a.Error.Message)
		}
		log.step(ctx, "answered")
		return a.Result, nil
	}
	var cause error
	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	sess.waiting.Add(1)
	defer sess.waiting.Add(-1)
	select {
	case a := <-answers:
		return answered(a)
	case <-s.questions.Done():
		cause = ErrShuttingDown
	case <-ctx.Done():
		cause = context.Cause(ctx)
	case <-timeout:
		cause = context.DeadlineExceeded
	case <-sess.ctx.Done():
		cause = ErrSessionNotFound
	case <-sess.inputClosed:
		cause = sess.inputEnd
	}
	// The wait ended without an answer: leave a tombstone and tell the client
	// on the same route.
	s.pending.Expire(context.WithoutCancel(ctx), sess.id, id, true)
	select {
	case a := <-answers: // answered while we gave up: take it
		return answered(a)
	default:
	}
	sess.sendCancelled(route, id, cause)
	log.step(context.WithoutCancel(ctx), "cancelled", slog.String("cause", cause.Error()))
	if errors.Is(cause, errClientCancelled) {
		return nil, fmt.Errorf("%w: %s: %w", ErrExpired, method, context.Canceled)
	}
	return nil, fmt.Errorf("%w: %s: %w", ErrExpired, method, cause)
}

// outboundLog writes the lifecycle of one outbound request as "outbound
// request" debug records; it costs nothing when debug logging is off.
type outboundLog struct {
	l          *slog.Logger
	on         bool
	session    string
	method     string
	id, parent json.RawMessage
	route      *stream
}

func (o *outboundLog) step(ctx context.Context, outcome string, extra ...slog.Attr) {
	if !o.on {
		return
	}
	attrs := append([]slog.Attr{
		slog.String("session", o.session), slog.String("method", o.method),
		slog.String("id", string(o.id)), slog.String("parent", string(o.parent)),
		slog.String("outcome", outcome),
	}, extra...)
	if o.route != nil {
		attrs = append(attrs, slog.String("route", routeName(o.route)))
	}
	o.l.LogAttrs(ctx, slog.LevelDebug, "outbound request", attrs...)
}

// errInputClosed: the client's input stream ended (stdio EOF); no answer can
// come.
var errInputClosed = errors.New("mcpgen: the client closed its input")

// sendCancelled tells the client that the server stopped waiting for id, on
// the route the request took. It waits briefly for room; the session's end
// stops it.
func (sess *session) sendCancelled(route *stream, id json.RawMessage, cause error) {
	data, _ := encodeRequest(nil, methodCancelled, struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason,omitempty"`
	}{id, cause.Error()})
	ctx, cancel := context.WithTimeout(sess.ctx, time.Second)
	defer cancel()
	if err := route.push(ctx, data); errors.Is(err, errStreamFinished) && !route.standalone {
		_, _ = sess.sendStandalone(ctx, data, 0)
	}
}

// carriesMeta: a live request carries the _meta an interceptor adds.
func (p *legacyPeer) carriesMeta() bool { return true }

// waited is 0: the live request itself lasts as long as the user takes.
func (p *legacyPeer) waited(string) time.Duration { return 0 }

// completeURL sends notifications/elicitation/complete for id on the
// session's GET stream (through the bus when another replica holds it), or
// on the stdio connection.
func (sess *session) completeURL(ctx context.Context, id string) error {
	data, err := encodeRequest(nil, methodElicitComplete, struct {
		ElicitationID string `json:"elicitationId"`
	}{id})
	if err != nil {
		return err
	}
	if out := sess.stdioOutput(); out != nil {
		return out.push(ctx, data)
	}
	_, err = sess.sendStandalone(ctx, data, sess.table.opts.fallbackWait)
	return err
}

// stdioOutput is the connection's output stream of a stdio session, or nil.
func (sess *session) stdioOutput() *stream {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.stdioOut
}
