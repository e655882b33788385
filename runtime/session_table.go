package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// sessionTable is the legacy era's sessions in this process: it creates
// them, finds them (here first, then in the SessionStore, which replicas
// may share), ends them, and runs the janitor that keeps them alive and
// tidy. A session reaches its table for what every session of the process
// shares (the stores, the bus, the options below), never the Server.
type sessionTable struct {
	opts    sessionOptions
	logger  *slog.Logger
	store   SessionStore
	pending PendingRouter
	events  EventStore
	icpt    *interceptors // session and stream events; nil when none
	// notified hands a client notification to the extensions
	// (Extension.Notifications).
	notified func(ctx context.Context, n *ClientNotification)
	// ended tells the extensions that a session ended (Extension.SessionEnded).
	ended   func(id string)
	base    context.Context
	closing *atomic.Bool // the server is shutting down: no janitor starts

	// questions ends, with ErrShuttingDown, when Shutdown begins: every wait
	// for a client's answer ends then. waiting counts those waits.
	questions    context.Context
	endQuestions context.CancelCauseFunc
	waiting      atomic.Int64

	mu       sync.RWMutex
	byID     map[string]*session
	creating int // sessions being created (counted against MaxSessions), under mu
	janitor  janitor

	stopSignals func() // unregisters from the Bus's SessionSignals, if any
	// onTick, when set (tests), runs after every janitor tick.
	onTick func()
}

// sessionOptions are the Options a session table and its sessions use.
type sessionOptions struct {
	shared             bool // Options.Sessions is set: the store, which replicas may share, is the truth
	bus                SessionBus
	replicaID          string
	maxSessions        int
	maxClientDataBytes int
	maxCallsPerSession int
	keepAlive          time.Duration
	idleTimeout        time.Duration
	streamBuffer       int
	resumeWindow       time.Duration
	retryInterval      time.Duration
	fallbackWait       time.Duration
	requestTimeout     time.Duration
	rootsChanged       func(context.Context, RootsChange) // Options.RootsChanged
}

func newSessionTable(o Options, logger *slog.Logger, base context.Context, closing *atomic.Bool) *sessionTable {
	t := &sessionTable{logger: logger, store: o.Sessions, pending: o.Pending, events: o.Events,
		base: base, closing: closing, byID: map[string]*session{},
		opts: sessionOptions{shared: o.Sessions != nil, bus: o.Bus, replicaID: o.ReplicaID,
			maxSessions: o.MaxSessions, maxClientDataBytes: o.MaxClientDataBytes, maxCallsPerSession: o.MaxCallsPerSession,
			keepAlive: o.KeepAlive, idleTimeout: o.SessionIdleTimeout, streamBuffer: o.StreamBuffer,
			resumeWindow: o.ResumeWindow, retryInterval: o.RetryInterval, fallbackWait: o.FallbackWait,
			requestTimeout: o.RequestTimeout, rootsChanged: o.RootsChanged}}
	t.questions, t.endQuestions = context.WithCancelCause(base)
	if t.store == nil {
		t.store = &MemorySessionStore{}
	}
	if t.pending == nil {
		t.pending = &MemoryPendingRouter{}
	}
	if t.events == nil {
		t.events = &MemoryEventStore{Limit: o.EventsPerSession, MaxBytes: o.EventBytesPerSession}
	}
	return t
}

// closeAll ends every session of the process (Server.Close): its calls
// are cancelled, the extensions are told (Extension.SessionEnded), its streams end, and the stores forget it. With
// a shared store, the process only forgets its copies: a replica that
// leaves does not end its sessions for the others.
func (t *sessionTable) closeAll() {
	t.stopJanitor()
	if t.stopSignals != nil {
		t.stopSignals()
	}
	t.mu.Lock()
	list := make([]*session, 0, len(t.byID))
	for _, sess := range t.byID {
		list = append(list, sess)
	}
	t.mu.Unlock()
	for _, sess := range list {
		if t.opts.shared {
			t.dropLocal(sess)
			continue
		}
		t.endSession(context.Background(), sess)
	}
	for _, sess := range list {
		sess.waitRootsFetch()
	}
}

// endPendingQuestions ends every wait of this process for a client's
// answer (Shutdown): each call gets ErrShuttingDown and its client a
// notifications/cancelled. It returns how many were waiting.
func (t *sessionTable) endPendingQuestions() int64 {
	n := t.waiting.Load()
	t.endQuestions(ErrShuttingDown)
	return n
}

// count is the number of sessions this process holds.
func (t *sessionTable) count() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.byID)
}

// newSessionID returns 128 random bits, hex-encoded (visible ASCII).
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (t *sessionTable) liveSession(st SessionState) *session {
	ctx, cancel := context.WithCancelCause(t.base)
	sess := &session{id: st.ID, table: t, ctx: ctx, cancel: func() { cancel(ErrSessionNotFound) }, state: st, established: true}
	if t.opts.replicaID != "" {
		// A replica may forget a session (idle here) and load it again: each
		// local copy has a prefix of its own, so that it never reuses a
		// request ID or a stream ID of an earlier copy.
		var b [4]byte
		_, _ = rand.Read(b[:])
		sess.ids.prefix = t.opts.replicaID + "." + hex.EncodeToString(b[:])
	}
	sess.caps = parseClientCapabilities(st.ClientCapabilities)
	sess.touch()
	sess.kept.Store(sess.lastSeen.Load())
	return sess
}

// parseClientCapabilities keeps what the runtime acts on; a malformed object
// declares nothing.
func parseClientCapabilities(raw json.RawMessage) ClientCapabilities {
	var c ClientCapabilities
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &c)
	}
	c.Raw = raw
	return c
}

// ErrTooManySessions: the process holds Options.MaxSessions sessions, so
// initialize is refused (HTTP 503 with Retry-After) until some end.
var ErrTooManySessions = errors.New("mcpgen: too many sessions; try again later")

// createSession starts a session after initialize. It refuses with
// ErrTooManySessions when MaxSessions are open or being created, and stores
// the client's data within MaxClientDataBytes.
func (t *sessionTable) createSession(ctx context.Context, st SessionState) (*session, error) {
	st.ID = newSessionID()
	if i := slices.Index(legacyVersions, st.ProtocolVersion); i >= 0 {
		st.ProtocolVersion = legacyVersions[i] // the constant, not the request's copy of it
	}
	st.Principal = principalKeyOf(ctx)
	boundClientData(&st, t.opts.maxClientDataBytes)
	t.mu.Lock()
	if max := t.opts.maxSessions; max > 0 && len(t.byID)+t.creating >= max {
		t.mu.Unlock()
		return nil, ErrTooManySessions
	}
	t.creating++
	t.mu.Unlock()
	var err error
	if t.opts.shared {
		err = t.store.Create(ctx, st)
	} // in one process the live session is the only copy
	var sess *session
	if err == nil {
		sess = t.liveSession(st)
	}
	t.mu.Lock()
	t.creating--
	if sess != nil {
		t.byID[st.ID] = sess
		if bus := t.opts.bus; bus != nil && announcesGET(bus) {
			sess.more().noGETSince = 1 // no client could open a GET stream before initialize returned
		}
	}
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	t.startJanitor()
	sess.opened(st.ProtocolVersion)
	return sess, nil
}

// findSession finds a session by ID: in this process first, then in the
// store (a session another replica created). lookupSession
// adds the check that the session is the caller's.
func (t *sessionTable) findSession(ctx context.Context, id string) (*session, error) {
	t.mu.RLock()
	sess := t.byID[id]
	t.mu.RUnlock()
	if sess != nil {
		if t.opts.shared {
			// A shared store is the truth: another replica may have ended the
			// session or changed its log level. The read restarts the
			// session's idle expiry there too.
			if err := t.refresh(ctx, sess); err != nil {
				return nil, err
			}
		}
		sess.touch()
		sess.kept.Store(sess.lastSeen.Load())
		return sess, nil
	}
	if !t.opts.shared {
		return nil, ErrSessionNotFound // one process: a session not held here does not exist
	}
	st, err := t.store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if sess = t.byID[id]; sess == nil {
		sess = t.liveSession(st)
		t.byID[id] = sess
	}
	t.startJanitor()
	return sess, nil
}

// lookupHeldSession is lookupSession with no read of the store when this
// process holds the session: for a request whose next step checks the
// session in the store anyway (a GET stream's GETRoutes.HoldGET).
func (t *sessionTable) lookupHeldSession(ctx context.Context, id string) (*session, error) {
	if sess := t.heldSession(id); sess != nil {
		return t.callersSession(ctx, sess)
	}
	return t.lookupSession(ctx, id)
}

// heldSession is the session id as this process holds it, with no look at
// the store, or nil.
func (t *sessionTable) heldSession(id string) *session {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.byID[id]
}

// refresh reloads a session's state from a shared store; a session the store
// no longer has ends here too.
func (t *sessionTable) refresh(ctx context.Context, sess *session) error {
	st, err := t.store.Load(ctx, sess.id)
	if errors.Is(err, ErrSessionNotFound) {
		t.dropLocal(sess)
		return err
	}
	if err != nil {
		return err
	}
	sess.mu.Lock()
	sess.state.LogLevel = st.LogLevel
	sess.state.Initialized = st.Initialized
	sess.state.Roots, sess.state.RootsKnown, sess.state.RootsStale = st.Roots, st.RootsKnown, st.RootsStale
	sess.mu.Unlock()
	return nil
}

// dropLocal forgets a session in this process only (it ended elsewhere).
func (t *sessionTable) dropLocal(sess *session) {
	t.mu.Lock()
	delete(t.byID, sess.id)
	t.mu.Unlock()
	sess.close()
}

// endSession terminates a session: its calls are cancelled, its streams
// end, the extensions are told (what they keep for it ends too) and every
// store forgets it.
func (t *sessionTable) endSession(ctx context.Context, sess *session) {
	// The store first: a request that misses the session in this process a
	// moment later must not load it back from the store.
	if t.opts.shared {
		_ = t.store.Delete(ctx, sess.id)
	}
	t.mu.Lock()
	delete(t.byID, sess.id)
	t.mu.Unlock()
	sess.close()
	t.ended(sess.id)
	_ = t.events.DeleteSession(ctx, sess.id)
	t.pending.DeleteSession(ctx, sess.id)
}

// A legacy session belongs to the principal whose token created it
// (SessionState.Principal). Possession of a session ID is not
// authentication: a request of another principal naming it is answered as
// for an unknown session (404), so a leaked ID neither works nor confirms
// that the session exists. Without Options.Auth both keys are empty and
// every session matches.

// lookupSession finds the session id of the caller's principal, or
// ErrSessionNotFound.
func (t *sessionTable) lookupSession(ctx context.Context, id string) (*session, error) {
	sess, err := t.findSession(ctx, id)
	if err != nil {
		return nil, err
	}
	return t.callersSession(ctx, sess)
}

// callersSession returns sess if it is the caller's principal's, or
// ErrSessionNotFound.
func (t *sessionTable) callersSession(ctx context.Context, sess *session) (*session, error) {
	sess.mu.Lock()
	owner := sess.state.Principal
	sess.mu.Unlock()
	if owner != principalKeyOf(ctx) {
		if p := PrincipalFromContext(ctx); p != nil {
			t.logger.Warn("session of another principal refused", "subject", p.Subject)
		}
		return nil, ErrSessionNotFound
	}
	return sess, nil
}

// maxClientInfoField bounds each member kept of an oversized clientInfo.
const maxClientInfoField = 256

// boundClientData keeps what a session stores of the client's initialize
// within max bytes each: an oversized clientInfo is reduced to its name,
// version and title (each cut to 256 bytes), oversized capabilities to the
// ones the runtime acts on. The session lives as long as the client keeps
// it, and in Redis with replicas, so a client must not make it hold
// megabytes.
func boundClientData(st *SessionState, max int) {
	if len(st.ClientInfo) > max {
		var info struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			Title   string `json:"title,omitempty"`
		}
		_ = json.Unmarshal(st.ClientInfo, &info)
		info.Name, info.Version, info.Title = cutUTF8(info.Name), cutUTF8(info.Version), cutUTF8(info.Title)
		st.ClientInfo, _ = json.Marshal(info)
	}
	if len(st.ClientCapabilities) > max {
		c := parseClientCapabilities(st.ClientCapabilities)
		if c.Sampling != nil && len(*c.Sampling) > max/2 {
			empty := json.RawMessage("{}")
			c.Sampling = &empty
		}
		st.ClientCapabilities, _ = json.Marshal(c)
	}
}

// cutUTF8 cuts s to at most maxClientInfoField bytes on a rune boundary.
func cutUTF8(s string) string {
	if len(s) <= maxClientInfoField {
		return s
	}
	s = s[:maxClientInfoField]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// serveNotification handles a client notification of a legacy session:
// the core's part (coreNotifications), then the extensions'.
func (t *sessionTable) serveNotification(ctx context.Context, sess *session, msg *message) {
	defer t.notified(ctx, notificationOf(ctx, msg, sess.version(), sess.id))
	switch msg.Method {
	case methodInitialized:
		if err := sess.update(sess.ctx, func(st *SessionState) { st.Initialized = true }); err != nil {
			t.logger.Warn("saving the session", "session", sess.id, "error", err)
		}
		sess.refetchRoots() // in the background: the notification is answered at once
	case methodCancelled:
		if id := msg.params().RequestID; validID(id) {
			sess.cancelInflight(id)
		}
	case methodRootsListChanged:
		if _, caps := sess.snapshot(); caps.Roots == nil {
			sess.logRootsIgnored(ctx)
			break
		}
		// No call reads the list the client said changed, here or on another
		// replica: until the refetch lands, a call asks on its own stream.
		if err := sess.update(sess.ctx, func(st *SessionState) { st.RootsStale = st.RootsKnown }); err != nil {
			t.logger.Warn("saving the session", "session", sess.id, "error", err)
		}
		sess.refetchRoots()
	}
}

// serveAnswer hands a client's response to the server-to-client request it
// answers. Only requests of this session can be answered.
// A store failure is reported as err (the client may retry the answer).
func (t *sessionTable) serveAnswer(sess *session, msg *message) (Resolution, error) {
	res, err := t.pending.Resolve(sess.ctx, sess.id, msg.ID, Answer{Result: msg.Result, Error: msg.Error})
	if err != nil {
		t.logger.Warn("routing an answer", "session", sess.id, "id", string(msg.ID), "error", err)
		return Unknown, err
	}
	if res != Delivered {
		t.logger.Debug("answer refused", "session", sess.id, "id", string(msg.ID), "expired", res == Expired)
	}
	return res, nil
}

// opened reports to the interceptors that the session started here.
func (sess *session) opened(version string) {
	icpt := sess.table.icpt
	if !icpt.observing() {
		return
	}
	sess.openedAt.Store(time.Now().UnixNano())
	icpt.emit(sess.ctx, Event{Kind: SessionOpened, SessionID: sess.id, ProtocolVersion: version, Transport: sess.transport()})
}

// reportClosed reports the end of a session that opened reported, once.
func (sess *session) reportClosed() {
	at := sess.openedAt.Swap(0)
	icpt := sess.table.icpt
	if at == 0 || !icpt.observing() {
		return
	}
	icpt.emit(context.WithoutCancel(sess.ctx), Event{Kind: SessionClosed, SessionID: sess.id, ProtocolVersion: sess.version(),
		Transport: sess.transport(), Duration: time.Duration(time.Now().UnixNano() - at)})
}

// transport names the session's transport in events.
func (sess *session) transport() string {
	if sess.stdio {
		return "stdio"
	}
	return "http"
}

// streamEvent reports a stream of the session that starts or stops
// carrying messages.
func (sess *session) streamEvent(ctx context.Context, kind EventKind, stream string) {
	sess.table.icpt.emit(context.WithoutCancel(ctx), Event{Kind: kind, Stream: stream,
		SessionID: sess.id, ProtocolVersion: sess.version(), Transport: sess.transport()})
}

// getStreams are the GET streams of this process's sessions, by session:
// where a change notification goes (a session without one learns nothing).
func (t *sessionTable) getStreams() map[*session]*stream {
	t.mu.RLock()
	defer t.mu.RUnlock()
	targets := make(map[*session]*stream, len(t.byID))
	for _, sess := range t.byID {
		sess.mu.Lock()
		if st := sess.standalone; st != nil {
			targets[sess] = st
		}
		sess.mu.Unlock()
	}
	return targets
}
