package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/reqstate"
)

// Options configure a Server. The zero value is safe: loopback-only origins,
// bounded buffers and timeouts.
type Options struct {
	// Name, Version and Title identify the server in serverInfo.
	Name, Version, Title string
	// SupportedProtocolVersions are the protocol versions the server
	// offers, on its one endpoint and over stdio, in any order; nil offers
	// every version the runtime speaks (2025-03-26 to 2026-07-28). A
	// client asking for another is answered by its era's rules:
	// initialize negotiates the newest offered session version (or, when
	// none is offered, fails with -32602 listing the offered ones); a
	// 2026-07-28 request gets -32022; server/discover lists them.
	SupportedProtocolVersions []string
	// Instructions are sent in the initialize / server/discover result.
	Instructions string
	// Logger receives the runtime's logs; nil discards them.
	Logger *slog.Logger
	// StateKey seals 2026-07-28 requestState (HMAC/AEAD). Replicas that serve one
	// client must share it; empty means a random key per Server. A server
	// whose sessions are shared (Sessions or Bus set) and that offers
	// 2026-07-28 needs one of at least MinStateKeyBytes: Validate refuses it
	// otherwise (ErrStateKey).
	StateKey []byte
	// RequestStateTTL is how long a client may take to answer one
	// input_required round before its requestState expires; 0 means 15m.
	RequestStateTTL time.Duration
	// SingleUseState makes every tool's requestState single-use: the retry
	// that carries it runs the tool once, and the same requestState sent
	// again is refused (-32602), so a replayed answer cannot run a tool
	// twice. SingleUseTools does the same for the named tools only. Spent
	// states are recorded in StateLedger until they expire.
	SingleUseState bool
	SingleUseTools []string
	// StateLedger records spent single-use requestStates; nil means in
	// memory (one process), bounded by MaxSpentStates (0 means 100,000;
	// beyond it, while none has expired, single-use retries are refused).
	StateLedger    StateLedger
	MaxSpentStates int

	// AllowedOrigins are Origin header values accepted besides loopback
	// origins (http(s)://localhost, 127.0.0.1, [::1], any port); "*" accepts
	// any. A request with another Origin gets 403.
	AllowedOrigins []string
	// AllowedHosts are Host header values (host or host:port) accepted besides
	// loopback names when the server is reached on a loopback address, the
	// DNS-rebinding check. Another Host gets 403.
	AllowedHosts []string
	// MaxBodyBytes bounds a POST body (413 beyond it) and a stdio line;
	// 0 means 4 MiB.
	MaxBodyBytes int64
	// BodyReadTimeout bounds how long a client may take to send a whole POST
	// body, from the moment the handler starts reading it (408 beyond it).
	// It is a read deadline on the connection set only while the body is
	// read, so it never cuts a long response stream. 0 means 30s, negative
	// disables.
	BodyReadTimeout time.Duration
	// ReadHeaderTimeout bounds how long Serve waits for a request's headers;
	// 0 means 10s, negative disables.
	ReadHeaderTimeout time.Duration
	// IdleTimeout is how long Serve keeps an idle keep-alive connection open
	// between requests; 0 means 75s (longer than common load balancer idle
	// timeouts, so that the balancer closes first), negative disables. It
	// does not apply while a response stream is open.
	IdleTimeout time.Duration
	// ShutdownTimeout is how long Serve, once its context ends, waits for
	// running calls to finish before it ends every session; calls still
	// running then answer with an error. 0 means 10s.
	ShutdownTimeout time.Duration
	// StreamBuffer is the number of messages a stream buffers before senders
	// wait for room (backpressure); 0 means 64.
	StreamBuffer int
	// KeepAlive is the interval of keep-alive pings on GET streams and comment
	// lines on long POST streams; 0 means 15s, negative disables. A client
	// that never opens a GET stream is never expired for missing pings.
	KeepAlive time.Duration
	// SessionIdleTimeout ends a session whose client showed no sign of life
	// (no request, no connection open) for this long, and the calls it still
	// runs; 0 means 30 minutes, negative never.
	SessionIdleTimeout time.Duration
	// FallbackWait bounds how long a request (elicitation, sampling, roots)
	// or URL completion whose request stream cannot carry it waits for the
	// client to open a GET stream; 0 means 5s. Progress and log
	// notifications never wait: with no GET stream open they are dropped.
	FallbackWait time.Duration
	// RequestTimeout bounds each wait for a client's answer (elicitation,
	// sampling, roots); 0 means 10 minutes, negative only the caller's
	// context. Without a bound, a call whose client went away for good
	// would wait, and keep its session from expiring, forever.
	RequestTimeout time.Duration
	// RootsChanged, when set, is told each time a legacy session's roots
	// (Call.Roots) differ from the list the server held before: the first
	// fetch after notifications/initialized, and each refetch after
	// notifications/roots/list_changed that brings a different list. It runs
	// on the replica that fetched them, in the fetch's goroutine (the next
	// fetch of that session waits for it): keep it short. A panic is
	// recovered and logged.
	RootsChanged func(ctx context.Context, change RootsChange)
	// ResumeWindow is how long a request's event stream may stay without a
	// connection (the client dropped it) before it is given up: its buffered
	// messages are dropped and its handler's sends fail instead of waiting
	// for room on a stream nobody drains. 0 means 1 minute, negative never.
	ResumeWindow time.Duration
	// RetryInterval is the SSE retry hint sent with 2025-11-25 priming events;
	// 0 means 1s.
	RetryInterval time.Duration
	// StreamAfter, when positive, upgrades the response of a tools/call that
	// is still running after this long to an event stream (when the client
	// accepts one), so that it gets a priming event and can resume after a
	// dropped connection (SEP-1699). 0 keeps JSON until the handler sends
	// something other than its result.
	StreamAfter time.Duration
	// PageSize is the number of tools per tools/list page; 0 means 100.
	PageSize int
	// MaxSessions bounds the legacy sessions this process holds; initialize
	// beyond it gets 503 with Retry-After (sessions end on DELETE or after
	// SessionIdleTimeout). 0 means 10,000, negative no bound. Sessions that
	// other replicas created are served even past it.
	MaxSessions int
	// MaxClientDataBytes bounds what a session stores of the client's
	// initialize: clientInfo and capabilities, each. A larger clientInfo is
	// stored as its name, version and title only; larger capabilities as
	// the ones the runtime acts on. It bounds the roots a session keeps
	// (Call.Roots) too: a larger list is not kept, and each call asks for
	// it. 0 means 8 KiB.
	MaxClientDataBytes int
	// MaxGETStreams bounds the GET streams (standalone and resumed) and
	// 2026-07-28 subscriptions/listen streams open at once in this process;
	// one more gets 429 (with Retry-After on a GET). A session has at most
	// one connection per stream anyway: a new GET takes its stream over
	// from the previous one. 0 means 10,000, negative no bound.
	MaxGETStreams int
	// EventsPerSession and EventBytesPerSession bound the SSE events the
	// default in-memory EventStore keeps per session for Last-Event-ID; the
	// oldest go first, and an event larger than EventBytesPerSession is not
	// kept (a resume replays what follows it). 0 means 512 events and 1 MiB.
	// A store given in Events has its own bounds.
	EventsPerSession     int
	EventBytesPerSession int
	// ReplicaID prefixes server-to-client request IDs ("<ReplicaID>-<n>") so
	// that replicas sharing a session store never collide; empty for one process.
	ReplicaID string
	// Sessions, Pending and Events hold legacy sessions, the server-to-client
	// requests waiting for answers and the SSE events kept for resumption.
	// nil means in-memory (one process).
	Sessions SessionStore
	Pending  PendingRouter
	Events   EventStore
	// Bus carries fallback messages to the replica that holds a session's GET
	// stream; nil means one process.
	Bus SessionBus

	// Interceptors wrap every incoming request, every server-to-client
	// request and observe runtime events, the first outermost (see
	// Interceptor); nil means none, at no cost.
	Interceptors []Interceptor
	// Auth, when set, makes the HTTP endpoint an OAuth 2.1 resource server
	// (auth.go); nil serves without authorization, for loopback only.
	Auth *Auth
	// MaxConcurrentCalls bounds the handlers running at once in this
	// process: tools/call (a detached call's handler too, while it runs),
	// prompts/get, resources/read, completion/complete and an extension's
	// methods that are not Cheap. One more is
	// refused with CodeLimitExceeded (HTTP 429 in 2026-07-28). 0 means
	// 10,000, negative no bound.
	MaxConcurrentCalls int
	// MaxCallsPerSession bounds the requests one legacy session (or stdio
	// connection) has in flight; one more is refused with
	// CodeLimitExceeded. The calls of a 2025-03-26 batch wait for room
	// instead, so a batch never runs more than this at once. 0 means 100
	// (far more than a client runs in parallel), negative no bound.
	MaxCallsPerSession int
	// CallerShare is the part of each server-wide bound (MaxGETStreams,
	// MaxConcurrentCalls, and the bounds an extension keeps with
	// Host.NewShare) that one caller may hold, so that one client cannot
	// take a whole bound from the others.
	// A caller is the principal of the request's token with Auth; without
	// it, the client's network address over HTTP (an IPv6 client's /64;
	// behind a reverse proxy, see TrustedProxies), shared by all the legacy
	// sessions it opens and its 2026-07-28 requests, and its connection over
	// stdio. CallerShare 0 means 0.1 (a tenth). At most 1 (one caller may
	// take a whole bound); a caller may always hold one unit.
	CallerShare float64
	// TrustedProxies are the reverse proxies (IP addresses or CIDR
	// prefixes, like "10.0.0.0/8") whose X-Forwarded-For header names the
	// client: a request whose peer is one of them is the caller the header
	// names (its right-most entry that is not a trusted proxy). Without it
	// every client behind a proxy is the proxy's address, one caller
	// sharing one CallerShare. Never list an address that clients reach the
	// server from directly: they could name any caller they like.
	TrustedProxies []string
	// MaxSubscriptionBytes bounds the resource URIs one legacy session
	// subscribes to, or one subscriptions/listen stream names, in bytes
	// (besides their number, at most 1,024); beyond it the request is
	// -32602. 0 means 64 KiB.
	MaxSubscriptionBytes int
}

// withDefaults fills in the zero fields.
func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.StreamBuffer <= 0 {
		o.StreamBuffer = 64
	}
	if o.PageSize <= 0 {
		o.PageSize = defaultPageSize
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = 10_000
	}
	if o.MaxClientDataBytes <= 0 {
		o.MaxClientDataBytes = 8 << 10
	}
	if o.MaxGETStreams == 0 {
		o.MaxGETStreams = 10_000
	}
	if o.MaxConcurrentCalls == 0 {
		o.MaxConcurrentCalls = 10_000
	}
	if o.MaxCallsPerSession == 0 {
		o.MaxCallsPerSession = 100
	}
	if o.CallerShare <= 0 || o.CallerShare > 1 {
		o.CallerShare = 0.1
	}
	if o.MaxSubscriptionBytes <= 0 {
		o.MaxSubscriptionBytes = 64 << 10
	}
	def(&o.KeepAlive, 15*time.Second)
	def(&o.BodyReadTimeout, 30*time.Second)
	def(&o.ReadHeaderTimeout, 10*time.Second)
	def(&o.IdleTimeout, 75*time.Second)
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 10 * time.Second
	}
	def(&o.RequestStateTTL, reqstate.DefaultTTL)
	def(&o.SessionIdleTimeout, 30*time.Minute)
	def(&o.RequestTimeout, 10*time.Minute)
	def(&o.ResumeWindow, time.Minute)
	def(&o.FallbackWait, 5*time.Second)
	def(&o.RetryInterval, time.Second)
	def(&o.RequestTimeout, 10*time.Minute)
	if o.Name == "" {
		o.Name = "mcpgen-server"
	}
	if o.Version == "" {
		o.Version = "0.0.0"
	}
	return o
}

// MinStateKeyBytes is the shortest StateKey that replicas sharing sessions
// may use: 256 bits, the size of the key derived from it.
const MinStateKeyBytes = 32

// ErrStateKey: the server shares its sessions with other replicas and offers
// 2026-07-28, but StateKey is missing or shorter than MinStateKeyBytes, so a
// retry that reaches another replica could not be opened there (or its
// requestState could be forged).
var ErrStateKey = errors.New("runtime.Options.StateKey")

// Validate reports what is wrong with the options, naming the field; NewServer
// panics on what it reports (a server must not start misconfigured).
func (o Options) Validate() error {
	versions, err := offerVersions(o.SupportedProtocolVersions)
	if err != nil {
		return err
	}
	if err := o.checkStateKey(versions); err != nil {
		return err
	}
	if _, err := parseTrustedProxies(o.TrustedProxies); err != nil {
		return err
	}
	if o.Auth != nil {
		return o.Auth.Validate()
	}
	return nil
}

// checkStateKey refuses a server that shares its sessions (a SessionStore or
// SessionBus of other processes) and offers 2026-07-28 with no StateKey or a
// short one: each replica would seal requestState with a key of its own, and
// a retry reaching another replica would fail.
func (o Options) checkStateKey(versions offeredVersions) error {
	if (o.Sessions == nil && o.Bus == nil) || len(o.StateKey) >= MinStateKeyBytes || len(versions.modern) == 0 {
		return nil
	}
	have := "it is empty"
	if len(o.StateKey) > 0 {
		have = fmt.Sprintf("it has %d bytes", len(o.StateKey))
	}
	return fmt.Errorf("%w: the sessions are shared with other replicas (Options.Sessions or Options.Bus is set), so every replica must seal 2026-07-28 requestState "+
		"with the same key of at least %d bytes, and %s; make one with `openssl rand -base64 32` and give every replica the same",
		ErrStateKey, MinStateKeyBytes, have)
}
