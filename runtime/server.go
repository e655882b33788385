package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/internal/reqstate"
)

// Server serves registered tools over Streamable HTTP and stdio.
type Server struct {
	opts   Options
	logger *slog.Logger

	d *dispatcher // the method table and what methods use

	sessionStore SessionStore
	pending      PendingRouter
	events       EventStore
	ledger       StateLedger

	baseCtx    context.Context // parent of every session; Close cancels it
	baseCancel context.CancelFunc
	smu        sync.RWMutex
	sessions   map[string]*session
	creating   int // sessions being created (counted against MaxSessions), under smu
	closing    atomic.Bool
	janitor    janitor

	serverInfo json.RawMessage // the Implementation object, encoded once, for every era
	legacy     *sessionCore    // serves the requests of legacy sessions
	modern     *statelessCore  // serves 2026-07-28 requests
	listeners  *listenHub      // open subscriptions/listen streams

	features *featureRegistry // tools, prompts, resources and resource templates
	changes  changeFanout     // where change notifications go: sessions, stdio, replicas
	auth     *authState       // Options.Auth checked; nil without authorization
	tasks    *taskEngine      // tools that run as tasks

	stopSignals func() // unregisters from the Bus's SessionSignals, if any

	icpt *interceptors // Options.Interceptors composed; nil when none

	// onTick, when set (tests), runs after every keep-alive tick.
	onTick func()
}

// NewServer returns a Server with no tools. It panics on options that
// Validate refuses.
func NewServer(opts Options) *Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	opts = opts.withDefaults()
	s := &Server{opts: opts, logger: logger, features: newFeatureRegistry(opts.PageSize),
		sessionStore: opts.Sessions, pending: opts.Pending, events: opts.Events, ledger: opts.StateLedger,
		sessions: map[string]*session{}}
	if s.sessionStore == nil {
		s.sessionStore = &MemorySessionStore{}
	}
	if s.pending == nil {
		s.pending = &MemoryPendingRouter{}
	}
	if s.events == nil {
		s.events = &MemoryEventStore{Limit: opts.EventsPerSession, MaxBytes: opts.EventBytesPerSession}
	}
	if s.ledger == nil {
		s.ledger = &MemoryStateLedger{Limit: opts.MaxSpentStates}
	}
	versions, err := offerVersions(opts.SupportedProtocolVersions)
	if err != nil {
		panic(err) // Options.Validate reports it without a panic
	}
	s.baseCtx, s.baseCancel = context.WithCancel(context.Background())
	sealer, err := reqstate.NewSealer(opts.StateKey)
	if err != nil {
		// crypto/rand does not fail on supported platforms; a server that
		// cannot seal state must not run with a guessable key.
		panic(err)
	}
	sealer.TTL = opts.RequestStateTTL
	s.listeners = newListenHub()
	if opts.Bus != nil {
		s.followChanges()
	}
	if opts.Auth != nil {
		// A misconfigured resource server must not start serving.
		name := opts.Title
		if name == "" {
			name = opts.Name
		}
		scopes := func() []string { return s.features.scopes(opts.Auth.Scopes) }
		if s.auth, err = newAuthState(opts.Auth, logger, name, scopes); err != nil {
			panic(err)
		}
	}
	d := &dispatcher{logger: logger, instructions: opts.Instructions, maxSubscriptionBytes: opts.MaxSubscriptionBytes,
		versions: versions, features: s.features, listeners: s.listeners, auth: s.auth,
		callSlots: newCallerShare("MaxConcurrentCalls", "calls running", int64(max(opts.MaxConcurrentCalls, 0)), opts.CallerShare),
		streams:   newCallerShare("MaxGETStreams", "streams open", int64(max(opts.MaxGETStreams, 0)), opts.CallerShare)}
	d.serverInfo, _ = json.Marshal(struct {
		Name    string `json:"name"`
		Title   string `json:"title,omitempty"`
		Version string `json:"version"`
	}{opts.Name, opts.Title, opts.Version})
	d.announce = s
	s.d = d
	s.tasks = newTaskEngine(opts, taskParts{logger: logger, base: s.baseCtx, closing: &s.closing, sessions: s.sessionStore,
		callSlots: d.callSlots, announce: s})
	d.tasks = s.tasks
	d.icpt = newInterceptors(opts.Interceptors, d.serveMethod, func(name string) bool { return s.features.tool(name) != nil })
	s.icpt = d.icpt
	s.tasks.icpt = d.icpt
	s.legacy = &sessionCore{d: d, logger: logger, closing: &s.closing, maxCallsPerSession: opts.MaxCallsPerSession}
	s.modern = &statelessCore{d: d, base: s.baseCtx,
		rounds: &roundSealer{sealer: sealer, ledger: s.ledger, singleUseAll: opts.SingleUseState, singleUseTools: opts.SingleUseTools}}
	core := index(coreMethods)
	d.methods.Store(&core)
	if err := d.addExtension(taskExtension(s.features)); err != nil {
		panic(err) // the runtime's own rows do not collide
	}
	s.listenSignals()
	return s
}

// AddTool registers a tool: it compiles the inputSchema of its Definition and
// the forms of its elicitations. Adding a name twice is an error.
func (s *Server) AddTool(t Tool) error {
	rt, err := compileTool(t)
	if err != nil {
		return err
	}
	return s.features.addTool(rt)
}

// SetListCache sets the 2026-07-28 cache hint of one list's results:
// method is "tools/list", "prompts/list", "resources/list" or
// "resources/templates/list". The default is public for one minute (a
// subscriptions/listen stream hears of changes sooner); a list filtered
// for its caller (Auth.FilterLists) is private.
func (s *Server) SetListCache(method string, h CacheHint) error {
	row := s.d.row(method)
	if row == nil || row.list == listNone {
		return fmt.Errorf("SetListCache: %q is not a list method", method)
	}
	c, err := h.hint()
	if err != nil {
		return fmt.Errorf("SetListCache %s: %w", method, err)
	}
	s.features.setListCache(row.list, c)
	return nil
}

// ProtectedResourceMetadataPath is the path at which the server answers its
// Protected Resource Metadata ("" without Options.Auth). Serve and
// ListenAndServe route it; a server mounted on another mux needs this path
// routed to it too.
func (s *Server) ProtectedResourceMetadataPath() string {
	if s.auth == nil {
		return ""
	}
	return s.auth.metadataPath
}
