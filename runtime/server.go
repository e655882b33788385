package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
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

// AddPrompt registers a prompt: it reads the arguments of its Definition
// and compiles the forms of its elicitations. Adding a name twice is an
// error.
func (s *Server) AddPrompt(p Prompt) error {
	var def struct {
		Name      string `json:"name"`
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(p.Definition, &def); err != nil {
		return fmt.Errorf("prompt %q: definition: %w", p.Name, err)
	}
	if def.Name != p.Name || p.Name == "" {
		return fmt.Errorf("prompt %q: definition names %q", p.Name, def.Name)
	}
	if err := checkScopes("prompt", p.Name, p.Scopes); err != nil {
		return err
	}
	if p.Handler == nil {
		return fmt.Errorf("prompt %q: no handler", p.Name)
	}
	rp := &registeredPrompt{Prompt: p, declared: map[string]bool{}}
	for i, a := range def.Arguments {
		if a.Name == "" || rp.declared[a.Name] {
			return fmt.Errorf("prompt %q: arguments[%d]: the name %q is empty or repeated", p.Name, i, a.Name)
		}
		rp.declared[a.Name] = true
		if a.Required {
			rp.required = append(rp.required, a.Name)
		}
	}
	for name := range p.Complete {
		if !rp.declared[name] {
			return fmt.Errorf("prompt %q: a completion handler for %q, which is not one of its arguments", p.Name, name)
		}
	}
	if err := checkElicitations(p.Elicitations); err != nil {
		return fmt.Errorf("prompt %q: %w", p.Name, err)
	}
	compact, err := compactJSON(p.Definition)
	if err != nil {
		return fmt.Errorf("prompt %q: definition: %w", p.Name, err)
	}
	rp.Definition = compact
	return s.features.addPrompt(rp)
}

// AddResource registers a resource with a fixed URI. Adding a URI twice is
// an error.
func (s *Server) AddResource(r Resource) error {
	var def struct {
		URI  string `json:"uri"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(r.Definition, &def); err != nil {
		return fmt.Errorf("resource %q: definition: %w", r.URI, err)
	}
	if def.URI != r.URI || r.URI == "" {
		return fmt.Errorf("resource %q: definition has uri %q", r.URI, def.URI)
	}
	if def.Name == "" {
		return fmt.Errorf("resource %q: definition has no name", r.URI)
	}
	if err := checkScopes("resource", r.URI, r.Scopes); err != nil {
		return err
	}
	if r.Handler == nil {
		return fmt.Errorf("resource %q: no handler", r.URI)
	}
	cache, err := readCache(r.Cache)
	if err != nil {
		return fmt.Errorf("resource %q: %w", r.URI, err)
	}
	if err := checkElicitations(r.Elicitations); err != nil {
		return fmt.Errorf("resource %q: %w", r.URI, err)
	}
	if r.Definition, err = compactJSON(r.Definition); err != nil {
		return fmt.Errorf("resource %q: definition: %w", r.URI, err)
	}
	return s.features.addResource(&registeredResource{Resource: r, cache: cache})
}

// AddResourceTemplate registers a resource template. Its URI template must
// parse (see URIVars for the forms matched); adding a template twice is an
// error.
func (s *Server) AddResourceTemplate(rt ResourceTemplate) error {
	var def struct {
		URITemplate string `json:"uriTemplate"`
		Name        string `json:"name"`
	}
	if err := json.Unmarshal(rt.Definition, &def); err != nil {
		return fmt.Errorf("resource template %q: definition: %w", rt.URITemplate, err)
	}
	if def.URITemplate != rt.URITemplate || rt.URITemplate == "" {
		return fmt.Errorf("resource template %q: definition has uriTemplate %q", rt.URITemplate, def.URITemplate)
	}
	if def.Name == "" {
		return fmt.Errorf("resource template %q: definition has no name", rt.URITemplate)
	}
	if err := checkScopes("resource template", rt.URITemplate, rt.Scopes); err != nil {
		return err
	}
	if rt.Handler == nil {
		return fmt.Errorf("resource template %q: no handler", rt.URITemplate)
	}
	tmpl, err := resourceuri.Parse(rt.URITemplate)
	if err != nil {
		return err
	}
	for name := range rt.Complete {
		found := false
		for _, n := range tmpl.Names() {
			found = found || n == name
		}
		if !found {
			return fmt.Errorf("resource template %q: a completion handler for %q, which is not one of its variables", rt.URITemplate, name)
		}
	}
	cache, err := readCache(rt.Cache)
	if err != nil {
		return fmt.Errorf("resource template %q: %w", rt.URITemplate, err)
	}
	if err := checkElicitations(rt.Elicitations); err != nil {
		return fmt.Errorf("resource template %q: %w", rt.URITemplate, err)
	}
	if rt.Definition, err = compactJSON(rt.Definition); err != nil {
		return fmt.Errorf("resource template %q: definition: %w", rt.URITemplate, err)
	}
	return s.features.addTemplate(&registeredTemplate{ResourceTemplate: rt, tmpl: tmpl, cache: cache})
}

// AddExtension declares an extension and adds its methods. It is an error
// to add an extension twice (ErrExtensionAdded), a method the server
// already has, or a method without Authorize or Serve.
func (s *Server) AddExtension(e Extension) error {
	x, err := e.compile()
	if err != nil {
		return err
	}
	return s.d.addExtension(x)
}

// CompleteURLElicitation tells the client that initiated a 2025-11-25
// URL-mode elicitation that its out-of-band step finished
// (notifications/elicitation/complete with its elicitationId). It may run
// on any replica that shares the session store and bus: the notification
// goes out on the session's GET stream, the one of this replica or, through
// the SessionBus, of the replica holding it (waiting up to
// Options.FallbackWait for one). A stdio connection's session is in no
// store: complete its elicitations with URLElicitation.Complete. The specification makes the notification optional (MAY) and
// clients ignore IDs they do not know, so a completion for an ended session
// returns ErrUnknownElicitation and nothing is sent.
func (s *Server) CompleteURLElicitation(ctx context.Context, ref URLElicitationRef) error {
	if ref.SessionID == "" || ref.ElicitationID == "" {
		return errors.New("CompleteURLElicitation: the reference needs a session ID and an elicitation ID")
	}
	s.smu.RLock()
	sess := s.sessions[ref.SessionID]
	s.smu.RUnlock()
	if sess == nil {
		var err error
		if sess, err = s.lookupSession(ctx, ref.SessionID); err != nil {
			return fmt.Errorf("%w: %v", ErrUnknownElicitation, err)
		}
	}
	return sess.completeURL(ctx, ref.ElicitationID)
}
