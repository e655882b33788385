package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// session is the live, in-process side of a legacy session: its streams, its
// ID allocator and the calls it runs. What must survive the process (or be
// shared between replicas) lives in the SessionStore as SessionState.
type session struct {
	id     string
	table  *sessionTable
	ids    sharedIDAllocator
	ctx    context.Context // ends with the session (DELETE, expiry, shutdown)
	cancel func()          // ends ctx with cause ErrSessionNotFound

	lastSeen atomic.Int64 // unix nanoseconds of the last request
	openedAt atomic.Int64 // unix nanoseconds of its SessionOpened event; 0 when none is owed a SessionClosed
	kept     atomic.Int64 // unix nanoseconds when a shared store last restarted its idle expiry
	waiting  atomic.Int64 // questions to the client that wait for its answer

	mu          sync.Mutex
	state       SessionState
	caps        ClientCapabilities
	nextStream  uint64
	streams     map[string]*stream // streams a client may resume
	standalone  *stream
	inflight    []inflightCall // incoming requests; a slice that keeps its capacity, so a request costs no map
	conns       []heldConn     // the client's open HTTP requests (hold), likewise
	nextConn    uint64
	closed      bool
	established bool          // an initialize created it (a stdio connection's becomes so at its initialize)
	stdio       bool          // a stdio connection's session: not in the store
	inputClosed chan struct{} // stdio: closed at EOF or the server's stop, when no answer can come
	inputEnd    error         // stdio: why inputClosed closed, set before it closes
	stdioOut    *stream       // stdio: the connection's output, for messages unrelated to a request
	extra       *sessionExtra // allocated on first use
	rootsFetch  *rootsCache   // the fetching of the client's roots (session_roots.go); nil until the first
}

// sessionExtra is the part of a session that only some sessions use: a
// keep-alive ping outstanding, messages waiting for a GET stream, a route
// through the SessionBus, a batch waiting for room. It is allocated on
// first use, under sess.mu, so that an idle session does not carry it.
type sessionExtra struct {
	getOpened   chan struct{}   // closed when a GET stream opens, here or on another replica; nil while nobody waits
	getOpenings uint32          // GET streams opened, here or announced by another replica
	noGETSince  uint32          // getOpenings+1 while no replica is known to hold a GET stream; else stale
	roomFreed   chan struct{}   // closed when a request leaves inflight, while a batch waits for room
	pingID      json.RawMessage // the outstanding keep-alive ping
	bus         *stream         // route through the SessionBus, once used
}

// more returns the session's extra part, allocating it; sess.mu is held.
func (sess *session) more() *sessionExtra {
	if sess.extra == nil {
		sess.extra = &sessionExtra{}
	}
	return sess.extra
}

// errClientCancelled is the cause of a handler context the client cancelled
// with notifications/cancelled: its request gets no response.
var errClientCancelled = errors.New("mcpgen: the client cancelled the request")

// close cancels the session's context and finishes its streams.
func (sess *session) close() {
	sess.cancel()
	defer sess.reportClosed()
	sess.mu.Lock()
	sess.closed = true
	streams := make([]*stream, 0, len(sess.streams)+1)
	for _, st := range sess.streams {
		streams = append(streams, st)
	}
	if sess.standalone != nil {
		streams = append(streams, sess.standalone)
	}
	sess.mu.Unlock()
	for _, st := range streams {
		if st.standalone {
			st.q.finish()
		} else {
			st.q.refuse() // its running requests still answer ("the session ended")
		}
	}
}

// hold records a connection of the client's (an HTTP request of the
// session, conn its context) until release: a session with an open
// connection is not idle.
func (sess *session) hold(conn context.Context) uint64 {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.nextConn++
	sess.conns = append(sess.conns, heldConn{sess.nextConn, conn})
	return sess.nextConn
}

// idleSlots is how much capacity an idle session keeps in its conns and
// inflight slices: enough that a steady client reuses it, small enough that
// a million idle sessions do not keep their bursts.
const idleSlots = 4

// heldConn is one open HTTP request of the client's.
type heldConn struct {
	hold uint64
	ctx  context.Context
}

// inflightCall is one incoming request that can be cancelled.
type inflightCall struct {
	id     string
	cancel context.CancelCauseFunc
}

func (sess *session) release(hold uint64) {
	sess.mu.Lock()
	for i, c := range sess.conns {
		if c.hold == hold {
			last := len(sess.conns) - 1
			sess.conns[i] = sess.conns[last]
			sess.conns[last] = heldConn{} // the slot keeps no context alive
			sess.conns = sess.conns[:last]
			if last == 0 && cap(sess.conns) > idleSlots {
				sess.conns = nil // a burst's capacity is not kept by an idle session
			}
			break
		}
	}
	sess.mu.Unlock()
	sess.touch()
}

// connected reports whether the client has a connection open (one that has
// not gone away).
func (sess *session) connected() bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	for _, c := range sess.conns {
		if c.ctx.Err() == nil {
			return true
		}
	}
	return false
}

func (sess *session) touch() { sess.lastSeen.Store(time.Now().UnixNano()) }

func (sess *session) snapshot() (SessionState, ClientCapabilities) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.state, sess.caps
}

func (sess *session) version() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.state.ProtocolVersion
}

// caller is the caller the session's requests count against without a
// principal: the address it was opened from, else the session itself (a
// stdio connection).
func (sess *session) caller() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if c := sess.state.Caller; c != "" {
		return c
	}
	return "s:" + sess.id
}

// update changes the session's state atomically in the store (another
// replica, or another request of this one, may change it at the same time:
// a log level, a resource subscription) and keeps the result as the local
// copy. fn may run more than once. A stdio connection's session, and every
// session of a server without a shared store, lives here only.
func (sess *session) update(ctx context.Context, fn func(*SessionState)) error {
	if sess.stdio || !sess.table.opts.shared {
		sess.mu.Lock()
		defer sess.mu.Unlock()
		st := sess.state
		st.Subscriptions = slices.Clone(st.Subscriptions) // a snapshot taken earlier may still read the old slice
		fn(&st)
		sess.state = st
		return nil
	}
	st, err := sess.table.store.Update(ctx, sess.id, fn)
	if err != nil {
		return err
	}
	sess.mu.Lock()
	sess.state = st
	sess.mu.Unlock()
	return nil
}

func (sess *session) addStream(st *stream) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.streams == nil {
		sess.streams = map[string]*stream{}
	}
	sess.streams[st.id] = st
}

func (sess *session) removeStream(st *stream) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	delete(sess.streams, st.id)
}

func (sess *session) stream(id string) *stream {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.standalone != nil && sess.standalone.id == id {
		return sess.standalone
	}
	return sess.streams[id]
}

// standaloneStream returns the GET stream, creating it on first use.
func (sess *session) standaloneStream() *stream {
	sess.mu.Lock()
	st := sess.standalone
	sess.mu.Unlock()
	if st != nil {
		return st
	}
	st = sess.newStream(0, true, true)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.standalone != nil {
		return sess.standalone
	}
	if sess.closed {
		st.q.finish()
	}
	sess.standalone = st
	return st
}

// knownNoGET reports whether no replica holds a GET stream of the session,
// as far as the announcements of openings tell (when announcesGET), and
// the count of openings so far, for noGETAsOf after asking the bus.
func (sess *session) knownNoGET() (bool, uint32) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if x := sess.extra; x != nil {
		return x.noGETSince == x.getOpenings+1, x.getOpenings
	}
	return false, 0
}

// noGETAsOf records that the bus found no GET stream of the session when
// openings GET streams had opened; an opening announced meanwhile makes
// the finding stale.
func (sess *session) noGETAsOf(openings uint32) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if x := sess.more(); x.getOpenings == openings {
		x.noGETSince = openings + 1
	}
}

// forgetNoGET drops what knownNoGET knows: an announcement may have been
// lost (the keep-alive tick calls it, bounding that to one interval).
func (sess *session) forgetNoGET() {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if x := sess.extra; x != nil {
		x.noGETSince = 0
	}
}

// getStreamOpened wakes the messages waiting for a GET stream of the
// session: one opened here, or another replica announced one.
func (sess *session) getStreamOpened() {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	x := sess.more()
	x.getOpenings++
	if x.getOpened != nil {
		close(x.getOpened)
		x.getOpened = nil
	}
}

// sendStandalone sends data on the session's GET stream: the fallback of
// the requestScopedSender for a request whose own stream cannot carry it,
// and the route of URL completions. The GET stream attached here comes
// first, then the one another replica holds (through the SessionBus); in
// one process, a GET stream that was opened once queues for the client's
// next GET. With no GET stream open anywhere, it waits up to wait for one
// to open, here or on another replica (which the bus announces): nothing is
// sent while nobody can receive it.
func (sess *session) sendStandalone(ctx context.Context, data []byte, wait time.Duration) (*stream, error) {
	return sess.fallback(ctx, data, wait, false)
}

// notifyStandalone is sendStandalone for a notification the client can do
// without (progress, logs): it never waits. With no GET stream open
// anywhere, or one whose buffer is full, data is dropped; a failure to
// reach another replica is logged, not returned. So a handler is never
// held up, and its call never fails, for want of a route.
func (sess *session) notifyStandalone(ctx context.Context, data []byte) error {
	_, err := sess.fallback(ctx, data, 0, true)
	if err != nil && ctx.Err() == nil {
		sess.table.logger.Debug("notification dropped", "session", sess.id, "error", err)
		return nil
	}
	return err
}

// fallback is sendStandalone; lossy drops data rather than wait.
func (sess *session) fallback(ctx context.Context, data []byte, wait time.Duration, lossy bool) (*stream, error) {
	bus := sess.table.opts.bus
	var timeout <-chan time.Time
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sess.mu.Lock()
		st := sess.standalone
		var opened chan struct{} // taken before looking elsewhere: an opening after the look still wakes us
		if !lossy && wait > 0 {
			x := sess.more()
			if x.getOpened == nil {
				x.getOpened = make(chan struct{})
			}
			opened = x.getOpened
		}
		sess.mu.Unlock()
		if st != nil && (bus == nil || st.attached()) {
			if lossy {
				if !st.q.tryPush(frame{data: data}) {
					sess.table.logger.Debug("notification dropped: the GET stream is full", "session", sess.id)
				}
				return st, nil
			}
			return st, st.push(ctx, data)
		}
		if bus != nil {
			announced := announcesGET(bus)
			none, openings := sess.knownNoGET()
			if announced && none && lossy {
				sess.table.logger.Debug("notification dropped: no GET stream is open", "session", sess.id)
				return nil, nil
			}
			sent, err := sess.sendRemoteGET(ctx, data)
			if err != nil {
				return nil, err
			}
			if sent {
				return sess.busStream(), nil
			}
			if announced {
				sess.noGETAsOf(openings)
			}
		}
		if lossy {
			sess.table.logger.Debug("notification dropped: no GET stream is open", "session", sess.id)
			return nil, nil
		}
		if wait <= 0 {
			return nil, errNoRoute
		}
		if timeout == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-opened:
		case <-timeout:
			return nil, errNoRoute
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-sess.ctx.Done():
			return nil, ErrSessionNotFound
		}
	}
}

// errNoRoute: the originating stream is finished and no GET stream opened in
// time.
var errNoRoute = errors.New("mcpgen: no open stream to the client (the request's stream is finished and no GET stream opened)")

// addInflight records an incoming request that the client may cancel. It
// refuses (with the error to answer) a request whose ID is already in
// flight in the session: the client could not cancel either of the two,
// and each would escape the bound below. It refuses one past
// Options.MaxCallsPerSession, and any request once the session has ended,
// so that an ended session starts no handler.
func (sess *session) addInflight(id json.RawMessage, cancel context.CancelCauseFunc) *Error {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	e, _ := sess.admitLocked(trimSpace(id), cancel)
	return e
}

// admitLocked is addInflight with sess.mu held; full reports that the
// refusal is for want of room, which a batch waits out.
func (sess *session) admitLocked(key []byte, cancel context.CancelCauseFunc) (e *Error, full bool) {
	switch {
	case sess.ctx.Err() != nil:
		return errSessionEnded, false
	case sess.inflightAt(key) >= 0:
		return errIDInFlight(key), false
	}
	if max := sess.table.opts.maxCallsPerSession; max > 0 && len(sess.inflight) >= max {
		return errSessionBusy(max), true
	}
	sess.inflight = append(sess.inflight, inflightCall{string(key), cancel})
	return nil, false
}

// addInflightWait is addInflight that waits for room instead of refusing
// a request past Options.MaxCallsPerSession, until ctx or the session
// ends: the calls of a batch take their turns. A reused ID and an ended
// session are refused at once, as by addInflight.
func (sess *session) addInflightWait(ctx context.Context, id json.RawMessage, cancel context.CancelCauseFunc) *Error {
	key := trimSpace(id)
	for {
		sess.mu.Lock()
		e, full := sess.admitLocked(key, cancel)
		if !full {
			sess.mu.Unlock()
			return e
		}
		x := sess.more()
		if x.roomFreed == nil {
			x.roomFreed = make(chan struct{})
		}
		freed := x.roomFreed
		sess.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return errSessionEnded
		case <-sess.ctx.Done():
			return errSessionEnded
		}
	}
}

func (sess *session) removeInflight(id json.RawMessage) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	i := sess.inflightAt(trimSpace(id))
	if i < 0 {
		return
	}
	last := len(sess.inflight) - 1
	sess.inflight[i] = sess.inflight[last]
	sess.inflight[last] = inflightCall{} // the slot keeps no closure alive
	sess.inflight = sess.inflight[:last]
	if x := sess.extra; x != nil && x.roomFreed != nil { // a batch waits for room
		close(x.roomFreed)
		x.roomFreed = nil
	}
	if last == 0 && cap(sess.inflight) > idleSlots {
		sess.inflight = nil // a burst's capacity is not kept by an idle session
	}
}

// inflightAt is the index of the request key (a trimmed ID) in inflight, or
// -1; sess.mu is held.
func (sess *session) inflightAt(key []byte) int {
	for i, c := range sess.inflight {
		if c.id == string(key) {
			return i
		}
	}
	return -1
}

// cancelInflight handles the client's notifications/cancelled: the call
// is cancelled here if it runs here, otherwise on the replica that runs it
// (signalCancel, when the Bus reaches every replica).
func (sess *session) cancelInflight(id json.RawMessage) bool {
	if sess.cancelLocal(id) {
		return true
	}
	sess.signalCancel(id)
	return false
}

// cancelLocal cancels the request id if it runs in this process.
func (sess *session) cancelLocal(id json.RawMessage) bool {
	sess.mu.Lock()
	var cancel context.CancelCauseFunc
	if i := sess.inflightAt(trimSpace(id)); i >= 0 {
		cancel = sess.inflight[i].cancel
	}
	sess.mu.Unlock()
	if cancel != nil {
		cancel(errClientCancelled)
	}
	return cancel != nil
}
