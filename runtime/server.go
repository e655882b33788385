package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/internal/reqstate"
)

// Server serves registered tools, prompts and resources over Streamable
// HTTP and stdio. It is the composition root: NewServer builds the parts
// below, each owning its state, its slice of Options and its logger, and
// wires them together; the public methods delegate to them.
type Server struct {
	opts Options // what Serve and ListenAndServe read (timeouts)

	d        *dispatcher      // the method table and what methods use: features, tasks, listeners, auth, interceptors
	features *featureRegistry // tools, prompts, resources and resource templates
	tasks    *taskEngine      // tools that run as tasks
	sessions *sessionTable    // the legacy era's sessions and their janitor
	changes  *changeFanout    // change notifications to every client, on every replica
	http     *httpTransport
	stdio    *stdioTransport

	closing    atomic.Bool // set by Shutdown and Close: new requests are refused
	baseCancel context.CancelFunc
}

// NewServer returns a Server with no tools. It panics on options that
// Validate refuses.
func NewServer(opts Options) *Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	opts = opts.withDefaults()
	versions, err := offerVersions(opts.SupportedProtocolVersions)
	if err != nil {
		panic(err) // Options.Validate reports it without a panic
	}
	if err := opts.checkStateKey(versions); err != nil {
		panic(err) // likewise
	}
	sealer, err := reqstate.NewSealer(opts.StateKey)
	if err != nil {
		// crypto/rand does not fail on supported platforms; a server that
		// cannot seal state must not run with a guessable key.
		panic(err)
	}
	sealer.TTL = opts.RequestStateTTL
	ledger := opts.StateLedger
	if ledger == nil {
		ledger = &MemoryStateLedger{Limit: opts.MaxSpentStates}
	}
	s := &Server{opts: opts, features: newFeatureRegistry(opts.PageSize)}
	base, cancel := context.WithCancel(context.Background())
	s.baseCancel = cancel

	var auth *authState
	if opts.Auth != nil {
		// A misconfigured resource server must not start serving.
		name := opts.Title
		if name == "" {
			name = opts.Name
		}
		scopes := func() []string { return s.features.scopes(opts.Auth.Scopes) }
		if auth, err = newAuthState(opts.Auth, logger, name, scopes); err != nil {
			panic(err)
		}
	}
	listeners := newListenHub()
	d := &dispatcher{logger: logger, instructions: opts.Instructions, maxSubscriptionBytes: opts.MaxSubscriptionBytes,
		versions: versions, features: s.features, listeners: listeners, auth: auth,
		callSlots: newCallerShare("MaxConcurrentCalls", "calls running", int64(max(opts.MaxConcurrentCalls, 0)), opts.CallerShare),
		streams:   newCallerShare("MaxGETStreams", "streams open", int64(max(opts.MaxGETStreams, 0)), opts.CallerShare)}
	d.serverInfo, _ = json.Marshal(struct {
		Name    string `json:"name"`
		Title   string `json:"title,omitempty"`
		Version string `json:"version"`
	}{opts.Name, opts.Title, opts.Version})
	d.icpt = newInterceptors(opts.Interceptors, d.serveMethod, func(name string) bool { return s.features.tool(name) != nil })
	s.d = d

	s.sessions = newSessionTable(opts, logger, base, &s.closing)
	s.sessions.icpt = d.icpt
	s.changes = &changeFanout{bus: opts.Bus, base: base, logger: logger, features: s.features, listeners: listeners, sessions: s.sessions}
	d.announce = s.changes
	s.tasks = newTaskEngine(opts, taskParts{logger: logger, base: base, closing: &s.closing, sessions: s.sessions.store,
		callSlots: d.callSlots, icpt: d.icpt, announce: s.changes})
	d.tasks = s.tasks
	s.sessions.tasks = s.tasks

	legacy := &sessionCore{d: d, logger: logger, closing: &s.closing, maxCallsPerSession: opts.MaxCallsPerSession}
	modern := &statelessCore{d: d, base: base,
		rounds: &roundSealer{sealer: sealer, ledger: ledger, singleUseAll: opts.SingleUseState, singleUseTools: opts.SingleUseTools}}
	trusted, _ := parseTrustedProxies(opts.TrustedProxies) // Validate checked them
	s.http = &httpTransport{opts: newHTTPOptions(opts), auth: auth, d: d, sessions: s.sessions, legacy: legacy, modern: modern, icpt: d.icpt,
		clients: clientAddresses{trusted: trusted}}
	s.stdio = &stdioTransport{sessions: s.sessions, legacy: legacy, modern: modern, d: d, changes: s.changes, maxLine: opts.MaxBodyBytes}

	core := index(coreMethods)
	d.methods.Store(&core)
	if err := d.addExtension(taskExtension(s.features)); err != nil {
		panic(err) // the runtime's own rows do not collide
	}
	if opts.Bus != nil {
		s.changes.followChanges()
	}
	s.sessions.listenSignals()
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
	if s.d.auth == nil {
		return ""
	}
	return s.d.auth.metadataPath
}

// AddPrompt registers a prompt: it reads the arguments of its Definition
// and compiles the forms of its elicitations. Adding a name twice is an
// error.
func (s *Server) AddPrompt(p Prompt) error {
	rp, err := compilePrompt(p)
	if err != nil {
		return err
	}
	return s.features.addPrompt(rp)
}

// AddResource registers a resource with a fixed URI. Adding a URI twice is
// an error.
func (s *Server) AddResource(r Resource) error {
	rr, err := compileResource(r)
	if err != nil {
		return err
	}
	return s.features.addResource(rr)
}

// AddResourceTemplate registers a resource template. Its URI template must
// parse (see URIVars for the forms matched); adding a template twice is an
// error.
func (s *Server) AddResourceTemplate(rt ResourceTemplate) error {
	t, err := compileTemplate(rt)
	if err != nil {
		return err
	}
	return s.features.addTemplate(t)
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
	sess := s.sessions.heldSession(ref.SessionID)
	if sess == nil {
		var err error
		if sess, err = s.sessions.lookupSession(ctx, ref.SessionID); err != nil {
			return fmt.Errorf("%w: %v", ErrUnknownElicitation, err)
		}
	}
	return sess.completeURL(ctx, ref.ElicitationID)
}

// ServeStdio serves one client over newline-delimited JSON-RPC on r and w
// (a server started as a subprocess: os.Stdin, os.Stdout). It returns nil
// when r reaches EOF or ctx ends (the server is told to stop), after
// running calls finished (for up to 10 seconds, then they are cancelled;
// questions to the client fail at once, as nothing will answer them: with
// ErrShuttingDown when ctx ended) and their responses were written. It
// returns an error when reading r or writing w fails. A read from r that
// is blocked when ctx ends is abandoned (close r to end it).
//
// The connection is one legacy session (after initialize) and one stream:
// every server-to-client message, responses included, goes out on w in the
// order it was queued, with the same backpressure as an HTTP stream. A
// 2026-07-28 message (modern _meta, before any initialize) is handed to the
// stateless core.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.stdio.serve(ctx, r, w)
}

// ServeHTTP serves the MCP endpoint: POST for client messages, GET for the
// standalone stream and resumption, DELETE to end a session. 2026-07-28
// requests are handed to the stateless core; everything else is a legacy
// session (2025-03-26 to 2025-11-25).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.http.ServeHTTP(w, r) }

// NotifyToolListChanged tells clients that the tool list changed: a
// notifications/tools/list_changed on the GET stream of every legacy session
// that has one (a session without one learns nothing, as the spec allows) or
// its stdio connection, then the 2026-07-28 listeners; on every replica when
// Options.Bus is set.
func (s *Server) NotifyToolListChanged() { s.changes.NotifyToolListChanged() }

// NotifyPromptListChanged tells every client that the prompt list changed:
// notifications/prompts/list_changed on the GET stream of every legacy
// session (or its stdio connection) and on every 2026-07-28
// subscriptions/listen stream that asked for promptsListChanged, on every
// replica when Options.Bus is set.
func (s *Server) NotifyPromptListChanged() { s.changes.NotifyPromptListChanged() }

// NotifyResourceListChanged is NotifyPromptListChanged for the resource
// list (and the templates): notifications/resources/list_changed, to
// listen streams that asked for resourcesListChanged.
func (s *Server) NotifyResourceListChanged() { s.changes.NotifyResourceListChanged() }

// NotifyResourceUpdated tells the clients subscribed to uri that it
// changed: notifications/resources/updated to every legacy session that
// subscribed to it (resources/subscribe) and every listen stream that names
// it in resourceSubscriptions, on every replica when Options.Bus is set.
// URIs match in their normalized form (RFC 3986 section 6.2.2: every
// spelling of one URI is one resource), which the notification carries.
func (s *Server) NotifyResourceUpdated(uri string) { s.changes.NotifyResourceUpdated(uri) }
