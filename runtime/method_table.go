package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
)

// methodRow is everything the runtime knows about one MCP method, in one
// place: its name, the eras (and, for an extension's method, the protocol
// versions) that have it, the members of params it reads, the member the
// 2026-07-28 Mcp-Name header must repeat, how it is authorized, and the one
// function that serves it. Nothing else in the runtime is keyed by a method
// name.
type methodRow struct {
	name string
	eras eraKind
	// versions, when set, are the only protocol versions that have the
	// method (an extension declared in some versions only).
	versions []string
	// params are the members of the params object the method reads
	// (request_params.go decodes those and _meta, nothing else).
	params paramSet
	// nameParam is the member Mcp-Name carries in 2026-07-28 (pName or
	// pURI), or 0 for none; nameMember names it instead for an
	// extension's method, whose params are not decoded (Method.NameParam).
	nameParam  paramSet
	nameMember string
	// auth is how a request is authorized: the target it names and the
	// scopes that target requires (method_scopes.go), or noScopes. Every row
	// must decide (method_table_test.go walks the table).
	auth authRule
	// list is the list a list method pages (feature_lists.go).
	list listKind
	// cost says whether the method runs application code, and so takes a
	// slot of Options.MaxConcurrentCalls (its caller's share) while it
	// runs. Every row must decide (the zero value is none).
	cost rowCost
	// capability is the member of the server's capabilities that declares
	// the method (tools/list: "tools"), or noCapability. Every row must
	// decide, and the capabilities a server with everything registered
	// declares must name each row's (method_table_test.go checks both).
	capability string
	// serve is the method.
	serve func(d *dispatcher, ctx context.Context, rq *request) outcome
}

// authRule names the target of a request and the scopes it requires beyond
// Auth.Scopes. The HTTP transport refuses a request whose principal lacks
// them with 403 and a challenge (so the client can step up); serveMethod
// refuses it with a JSON-RPC error, so no path reaches a handler without
// them. e is a malformed request the rule cannot read; serveMethod answers
// it.
type authRule func(d *dispatcher, ctx context.Context, m *message) (target string, scopes []string, e *Error)

// noScopes is the rule of a method that needs nothing beyond the server's
// own scopes (lists, which Auth.FilterLists filters per principal; the
// lifecycle).
func noScopes(*dispatcher, context.Context, *message) (string, []string, *Error) { return "", nil, nil }

// rowCost is a row's decision about concurrency slots.
type rowCost uint8

const (
	costUndecided rowCost = iota // no decision: TestEveryMethodDecides fails
	runsHandler                  // runs application code: takes a slot of MaxConcurrentCalls
	bookkeeping                  // answers from what the server holds, at once: takes none
)

// noCapability is the capability of a method no capability member declares
// (the lifecycle, server/discover, subscriptions/listen).
const noCapability = "-"

// coreMethods are the methods of the MCP core. Extensions add theirs
// through addExtension (extension.go).
var coreMethods = []methodRow{
	{name: methodInitialize, eras: legacyEra, params: pProtocolVersion | pCapabilities | pClientInfo, auth: noScopes, cost: bookkeeping, capability: noCapability, serve: (*dispatcher).initialize},
	{name: methodPing, eras: legacyEra, auth: noScopes, cost: bookkeeping, capability: noCapability, serve: (*dispatcher).ping},
	{name: methodSetLevel, eras: legacyEra, params: pLevel, auth: noScopes, cost: bookkeeping, capability: "logging", serve: (*dispatcher).setLogLevel},
	{name: methodDiscover, eras: modernEra, auth: noScopes, cost: bookkeeping, capability: noCapability, serve: (*dispatcher).discover},
	{name: methodListen, eras: modernEra, params: pNotifications, auth: listenScopes, cost: bookkeeping, capability: noCapability, serve: (*dispatcher).listen},

	{name: methodToolsList, eras: everyEra, params: pCursor, list: listTools, auth: noScopes, cost: bookkeeping, capability: "tools", serve: (*dispatcher).listTools},
	{name: methodToolsCall, eras: everyEra, params: pName | pArguments | roundParams, nameParam: pName, auth: toolScopes, cost: runsHandler, capability: "tools", serve: (*dispatcher).callTool},
	{name: methodPromptsList, eras: everyEra, params: pCursor, list: listPrompts, auth: noScopes, cost: bookkeeping, capability: "prompts", serve: (*dispatcher).listPrompts},
	{name: methodPromptsGet, eras: everyEra, params: pName | pArguments | roundParams, nameParam: pName, auth: promptScopes, cost: runsHandler, capability: "prompts", serve: (*dispatcher).getPrompt},
	{name: methodResourcesList, eras: everyEra, params: pCursor, list: listResources, auth: noScopes, cost: bookkeeping, capability: "resources", serve: (*dispatcher).listResources},
	{name: methodTemplatesList, eras: everyEra, params: pCursor, list: listTemplates, auth: noScopes, cost: bookkeeping, capability: "resources", serve: (*dispatcher).listResourceTemplates},
	{name: methodResourcesRead, eras: everyEra, params: pURI | roundParams, nameParam: pURI, auth: resourceScopes, cost: runsHandler, capability: "resources", serve: (*dispatcher).readResource},
	{name: methodSubscribe, eras: legacyEra, params: pURI, auth: resourceScopes, cost: bookkeeping, capability: "resources", serve: (*dispatcher).subscribeResource},
	{name: methodUnsubscribe, eras: legacyEra, params: pURI, auth: noScopes, cost: bookkeeping, capability: "resources", serve: (*dispatcher).unsubscribeResource},
	{name: methodComplete, eras: everyEra, params: pRef | pArgument | pContext, auth: completionScopes, cost: runsHandler, capability: "completions", serve: (*dispatcher).complete},
}

// roundParams are the members of a 2026-07-28 retry of a request that may
// take several rounds.
const roundParams = pRequestState | pInputResponses

// notificationParams are the members of params the client notifications
// the runtime acts on carry; notifications have no row.
var notificationParams = map[string]paramSet{methodCancelled: pRequestID}

// paramsIn returns the members of params decoded for method: its row's
// (a core method's own; an extension's, which reads its params raw, only
// the round members it asks for), a notification's, or for an unknown
// method only _meta.
func paramsIn(t methodTable, method string) paramSet {
	if r := t[method]; r != nil {
		return r.params
	}
	return notificationParams[method]
}

// dispatcher serves the methods: it holds the method table (the core's
// rows and those of the extensions added since) and the parts the methods
// use. Every request of every era and transport reaches its method through
// serve.
type dispatcher struct {
	logger               *slog.Logger
	instructions         string // Options.Instructions
	maxSubscriptionBytes int    // Options.MaxSubscriptionBytes
	info                 serverIdentity
	serverInfo           json.RawMessage // info, encoded
	versions             offeredVersions
	base                 context.Context // the server's: ends when it closes
	closing              *atomic.Bool    // the server is shutting down

	features  *featureRegistry
	listeners *listenHub
	auth      *authState                         // nil without Options.Auth
	icpt      *interceptors                      // nil without Options.Interceptors
	announce  announcer                          // where a Call's announcements go
	notifyAll func(method string, params []byte) // Host.Notify: to every client

	calls     drainGroup   // requests running, for graceful shutdown
	callSlots *callerShare // handlers running (MaxConcurrentCalls), per caller
	streams   *callerShare // GET and listen streams open (MaxGETStreams), per caller

	methods    atomic.Pointer[methodTable] // replaced, never changed, when an extension is added
	mu         sync.Mutex                  // serializes addExtension
	extensions atomic.Pointer[[]*extension]
	routes     atomic.Pointer[routeTable] // the extensions' HTTP routes; nil when none
	changes    changeListeners            // Host.OnChange
	detached   sync.WaitGroup             // detached calls and Host.Go goroutines, which Close waits for
}

// methodTable is a Server's rows by name: the core methods and those of
// the extensions added to it. It is replaced, never changed, when an
// extension is added, so requests read it without a lock.
type methodTable map[string]*methodRow

func index(rows []methodRow) methodTable {
	t := make(methodTable, len(rows))
	for i := range rows {
		t[rows[i].name] = &rows[i]
	}
	return t
}

// row returns the row of method, or nil.
func (d *dispatcher) row(method string) *methodRow { return (*d.methods.Load())[method] }

// serve runs one request: through Options.Interceptors when there are any
// (interceptor_chain.go), which end in serveMethod.
func (d *dispatcher) serve(ctx context.Context, rq *request) outcome {
	if d.icpt != nil {
		return d.icpt.intercepted(ctx, rq)
	}
	return d.serveMethod(ctx, rq)
}

// serveMethod runs one request's method. A method the request's era (or
// protocol version) lacks is -32601 (which 2026-07-28 sends with HTTP 404).
// The method's authorization rule is checked before it runs. Every request
// counts for graceful shutdown while it runs; once the server is draining,
// new ones are refused.
func (d *dispatcher) serveMethod(ctx context.Context, rq *request) outcome {
	m := d.row(rq.method)
	switch {
	case m == nil:
		return failure(NewError(CodeMethodNotFound, "method not found: %s", rq.method))
	case m.eras&rq.era.kind() == 0 && m.eras == modernEra:
		return failure(NewError(CodeMethodNotFound, "method %q is only available in protocol %s", rq.method, Version20260728))
	case m.eras&rq.era.kind() == 0:
		return failure(NewError(CodeMethodNotFound, "method %q is not available in protocol %s", rq.method, Version20260728))
	case m.versions != nil && !slices.Contains(m.versions, rq.era.version()):
		return failure(NewError(CodeMethodNotFound, "method %q is not available in protocol %s", rq.method, rq.era.version()))
	case rq.params.err != nil:
		return outcome{err: rq.params.err, status: http.StatusBadRequest}
	}
	if d.auth != nil {
		if e := d.authorize(ctx, m, rq.msg); e != nil {
			return failure(e)
		}
	}
	if !d.calls.add() {
		return outcome{err: errShuttingDown, status: http.StatusServiceUnavailable}
	}
	defer d.calls.done()
	if m.cost != bookkeeping { // undecided counts as a handler: the safe side
		caller := callerOf(ctx, rq.era)
		if e := d.callSlots.take(caller, 1); e != nil {
			return failure(e)
		}
		defer d.callSlots.give(caller, 1)
	}
	return m.serve(d, ctx, rq)
}

// params returns the message's params as readMessages decoded them (only
// _meta for a message it did not read).
func (m *message) params() *requestParams {
	if !m.paramsReady {
		m.decodeParams(0)
	}
	return &m.decoded
}

// decodeParams decodes the members want names, and _meta, once.
func (m *message) decodeParams(want paramSet) {
	m.paramsReady = true
	decodeParams(&m.decoded, m.Params, want)
}

// drainGroup counts running handlers so that Shutdown can wait for them. It
// is a WaitGroup that may be waited on while handlers still start, and that
// refuses new ones once closed.
type drainGroup struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{} // closed when n drops to 0 while someone waits
}

// add counts one more handler; false once the group is closed.
func (g *drainGroup) add() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.n++
	return true
}

// hold counts a request until its response is framed and queued, also
// while the group is closed: a method that returns its final result as the
// server shuts down (a stream's) gets it out before Shutdown ends the
// sessions. serveMethod refuses the new requests; this only delays the
// drain by the time an answer takes to be queued. done releases it.
func (g *drainGroup) hold() {
	g.mu.Lock()
	g.n++
	g.mu.Unlock()
}

func (g *drainGroup) done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// running is the number of handlers running.
func (g *drainGroup) running() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

// close refuses new handlers from now on.
func (g *drainGroup) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
}

// wait closes the group and waits until every handler returned or ctx ends.
func (g *drainGroup) wait(ctx context.Context) error {
	g.mu.Lock()
	g.closed = true
	if g.n == 0 {
		g.mu.Unlock()
		return nil
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	idle := g.idle
	g.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readMessages decodes one HTTP body or stdio line (decodeMessages) and the
// params of each valid request, as its row in the server's table declares
// them: once, on the transport's goroutine, before any era, interceptor or
// method reads them.
func (d *dispatcher) readMessages(body []byte) (msgs []*message, bad []*Error, batch bool, err *Error) {
	msgs, bad, batch, err = decodeMessages(body)
	table := *d.methods.Load()
	for i, m := range msgs {
		if bad[i] == nil && m.Method != "" {
			m.decodeParams(paramsIn(table, m.Method))
		}
	}
	return msgs, bad, batch, err
}
