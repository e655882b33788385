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
	// nameParam is the member Mcp-Name carries in 2026-07-28 (pName, pURI
	// or pTaskID), or 0 for none.
	nameParam paramSet
	// auth is how a request is authorized: the target it names and the
	// scopes that target requires (method_scopes.go), or noScopes. Every row
	// must decide (method_table_test.go walks the table).
	auth authRule
	// list is the list a list method pages (feature_lists.go).
	list listKind
	// handler: the method runs an application handler, so it takes a slot
	// of Options.MaxConcurrentCalls (its caller's share) while it runs.
	handler bool
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
// lifecycle; tasks, which are bound to their creator).
func noScopes(*dispatcher, context.Context, *message) (string, []string, *Error) { return "", nil, nil }

// coreMethods are the methods of the MCP core. Extensions (the tasks
// extension among them, task.go) add theirs through addExtension.
var coreMethods = []methodRow{
	{name: methodInitialize, eras: legacyEra, params: pProtocolVersion | pCapabilities | pClientInfo, auth: noScopes, serve: (*dispatcher).initialize},
	{name: methodPing, eras: legacyEra, auth: noScopes, serve: (*dispatcher).ping},
	{name: methodSetLevel, eras: legacyEra, params: pLevel, auth: noScopes, serve: (*dispatcher).setLogLevel},
	{name: methodDiscover, eras: modernEra, auth: noScopes, serve: (*dispatcher).discover},
	{name: methodListen, eras: modernEra, params: pNotifications, auth: listenScopes, serve: (*dispatcher).listen},

	{name: methodToolsList, eras: everyEra, params: pCursor, list: listTools, auth: noScopes, serve: (*dispatcher).listTools},
	{name: methodToolsCall, eras: everyEra, params: pName | pArguments | pTask | roundParams, nameParam: pName, auth: toolScopes, handler: true, serve: (*dispatcher).callTool},
	{name: methodPromptsList, eras: everyEra, params: pCursor, list: listPrompts, auth: noScopes, serve: (*dispatcher).listPrompts},
	{name: methodPromptsGet, eras: everyEra, params: pName | pArguments | roundParams, nameParam: pName, auth: promptScopes, handler: true, serve: (*dispatcher).getPrompt},
	{name: methodResourcesList, eras: everyEra, params: pCursor, list: listResources, auth: noScopes, serve: (*dispatcher).listResources},
	{name: methodTemplatesList, eras: everyEra, params: pCursor, list: listTemplates, auth: noScopes, serve: (*dispatcher).listResourceTemplates},
	{name: methodResourcesRead, eras: everyEra, params: pURI | roundParams, nameParam: pURI, auth: resourceScopes, handler: true, serve: (*dispatcher).readResource},
	{name: methodSubscribe, eras: legacyEra, params: pURI, auth: resourceScopes, serve: (*dispatcher).subscribeResource},
	{name: methodUnsubscribe, eras: legacyEra, params: pURI, auth: noScopes, serve: (*dispatcher).unsubscribeResource},
	{name: methodComplete, eras: everyEra, params: pRef | pArgument | pContext, auth: completionScopes, handler: true, serve: (*dispatcher).complete},
}

// roundParams are the members of a 2026-07-28 retry of a request that may
// take several rounds.
const roundParams = pRequestState | pInputResponses

// notificationParams are the members of params the client notifications
// the runtime acts on carry; notifications have no row.
var notificationParams = map[string]paramSet{methodCancelled: pRequestID}

// paramsOf returns the members of params decoded for method: a core
// method's (or notification's) own; for any other (an extension's, or an
// unknown method) only _meta, since its params are its own business.
func paramsOf(method string) paramSet {
	if r := coreIndex[method]; r != nil {
		return r.params
	}
	return notificationParams[method]
}

// coreIndex is the runtime's own rows by name (the core's and the tasks
// extension's), for decoding params before a request reaches its server.
// It is filled in init: the rows' rules decode params, which look the rows
// up.
var coreIndex methodTable

func init() { coreIndex = index(append(slices.Clone(coreMethods), taskMethods...)) }

// dispatcher serves the methods: it holds the method table (the core's
// rows and those of the extensions added since) and the parts the methods
// use. Every request of every era and transport reaches its method through
// serve.
type dispatcher struct {
	logger               *slog.Logger
	instructions         string // Options.Instructions
	maxSubscriptionBytes int    // Options.MaxSubscriptionBytes
	serverInfo           json.RawMessage
	versions             offeredVersions

	features  *featureRegistry
	tasks     *taskEngine
	listeners *listenHub
	auth      *authState    // nil without Options.Auth
	icpt      *interceptors // nil without Options.Interceptors
	announce  announcer     // where a Call's announcements go

	calls     drainGroup   // requests running, for graceful shutdown
	callSlots *callerShare // handlers running (MaxConcurrentCalls), per caller
	streams   *callerShare // GET and listen streams open (MaxGETStreams), per caller

	methods    atomic.Pointer[methodTable] // replaced, never changed, when an extension is added
	mu         sync.Mutex                  // serializes addExtension
	extensions atomic.Pointer[[]*extension]
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
	if m.handler {
		caller := callerOf(ctx, rq.era)
		if e := d.callSlots.take(caller, 1); e != nil {
			return failure(e)
		}
		defer d.callSlots.give(caller, 1)
	}
	return m.serve(d, ctx, rq)
}

// params returns the message's params, decoded on first use.
func (m *message) params() *requestParams {
	if !m.paramsReady {
		m.paramsReady = true
		decodeParams(&m.decoded, m.Params, paramsOf(m.Method))
	}
	return &m.decoded
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
// params of each valid request, as its row declares them: once, on the
// transport's goroutine, before any era, interceptor or method reads them.
func readMessages(body []byte) (msgs []*message, bad []*Error, batch bool, err *Error) {
	msgs, bad, batch, err = decodeMessages(body)
	for i, m := range msgs {
		if bad[i] == nil && m.Method != "" {
			m.params()
		}
	}
	return msgs, bad, batch, err
}
