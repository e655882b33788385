package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
)

// MCP grows through extensions that a server declares in
// capabilities.extensions (and a client in its own capabilities): long-running
// jobs, skills, MCP Apps, events, server cards. An extension is a package that
// plugs into the runtime through one seam, Server.AddExtension: it is
// declared in the capabilities of the protocol versions it names
// (initialize in a legacy session, server/discover in 2026-07-28), its
// methods become rows of the server's method table, each with its
// authorization rule and served in every era and transport like the
// core's, and its hooks (below) let it take part in what the core does:
// tools/call, the end of a session, the client's notifications, the
// subscriptions/listen filter, HTTP routes beside the MCP endpoint. Its
// resources are ordinary resources (AddResource, AddResourceTemplate), and
// a handler learns whether its client declared an extension from
// Call.ClientExtension. The runtime does not trust extension code: a panic
// in any of it is recovered and logged, and its methods take the same
// slots and shares as any handler.

// Extension is a protocol extension the server offers.
type Extension struct {
	// ID is the extension's identifier, a reverse-DNS prefix and a name
	// ("io.modelcontextprotocol/skills").
	ID string
	// Settings is the extension's value in capabilities.extensions, a JSON
	// object; nil means {}.
	Settings json.RawMessage
	// Versions are the protocol versions whose capabilities declare it;
	// nil means every version the server speaks.
	Versions []string
	// Methods are the JSON-RPC methods it adds.
	Methods []Method

	// Declared, when set, says whether the capabilities of version (one of
	// Versions) declare the extension now: an extension with nothing to
	// offer yet (until a tool it serves is registered) stays out of
	// them. It is asked for every initialize and server/discover, so it
	// must be quick. nil declares it in every version of Versions.
	Declared func(version string) bool
	// LegacyCapability, when set, is a capability member of the
	// extension's own that the initialize result of a legacy session of
	// version carries beside capabilities.extensions (an extension that
	// 2025-11-25 made a capability of its own); ok false adds none. It is asked for every
	// legacy version, whatever Versions says, and must not name a member
	// the core declares (tools, prompts, resources, completions, logging,
	// extensions).
	LegacyCapability func(version string) (key string, value json.RawMessage, ok bool)
	// ToolCalls, when set, has a say in every tools/call (ToolCallHook):
	// an extension that runs long calls as jobs detaches them there.
	ToolCalls ToolCallHook
	// ListenFilter, when set, checks the members of a 2026-07-28
	// subscriptions/listen request's params.notifications that the
	// extension defines (raw is the whole object as the client sent it):
	// an error refuses the request with it (a *Error as it is). Members no
	// extension defines are left out of the acknowledgement.
	ListenFilter func(req *MethodRequest, raw json.RawMessage) error
	// Notifications handle client notifications, by method, in every era
	// and transport: those the extension defines, and core ones it acts
	// on too (notifications/roots/list_changed). The runtime's own
	// handling of a core notification comes first.
	Notifications map[string]NotificationHandler
	// SessionEnded, when set, is told that a legacy session ended (DELETE,
	// idle expiry, ended on another replica, or the server closed without
	// a shared session store): what the extension keeps for the session
	// must go. It runs on the goroutine that ended the session; it must not
	// block.
	SessionEnded func(sessionID string)
	// Routes are HTTP handlers the Server serves beside the MCP endpoint,
	// by http.ServeMux pattern ("GET /.well-known/mcp/server-card.json"),
	// before anything of MCP runs: the Origin and Host checks and bearer
	// authentication of the endpoint do not apply, so a route that is not
	// public checks its callers itself. Serve and ListenAndServe mount
	// them; a Server on a mux of the user's needs Server.Routes mounted
	// too. A pattern that conflicts with another extension's, or would
	// take /mcp or the metadata document, is an error.
	Routes map[string]http.Handler
	// Init, when set, runs once as AddExtension adds the extension, before
	// any request reaches it: h is what the server lends an extension (its
	// logger, its lifetime, shares of its bounds, a description of what it
	// serves). An error adds nothing of the extension.
	Init func(h *Host) error
	// State is the extension's own value (its engine, its catalog):
	// Server.Extension returns it, so that code adding the extension a
	// second time (a second generated package) can extend the first one's
	// instead of failing.
	State any
}

// Method is one JSON-RPC method an extension adds.
type Method struct {
	// Name is the method, e.g. "skills/list"; it must not be a method the
	// server already has.
	Name string
	// Versions are the protocol versions that have the method; nil means
	// the extension's Versions.
	Versions []string
	// Authorize says what a request needs: the target it names (for error
	// messages) and the OAuth scopes that target requires, checked like a
	// tool's when the server runs with Options.Auth (403 insufficient_scope
	// over HTTP, a JSON-RPC error otherwise). It is required: a method that
	// needs nothing beyond the server's own scopes says so with NoScopes.
	// An error refuses the request with it (a malformed request, say).
	// Over HTTP it runs before the request's era is known, so
	// req.ProtocolVersion may be empty there.
	Authorize AuthRule
	// NameParam is the member of params, a string, that a 2026-07-28
	// request's Mcp-Name header must repeat (the ID of what the method
	// reads, say): the
	// HTTP transport refuses a mismatch with -32020, as it does for
	// tools/call's name. "" checks no Mcp-Name.
	NameParam string
	// Cheap says that Serve answers from what the extension holds, at
	// once, without running application code (a read of a catalog): the
	// request then takes no slot of Options.MaxConcurrentCalls. Any other
	// method takes one, from its caller's share, while Serve runs, as a
	// tool's handler does.
	Cheap bool
	// MultiRoundTrip lets the method's Call ask the client in 2026-07-28
	// through input_required rounds (SEP-2322 defines them for tools/call,
	// prompts/get and resources/read; an extension that specifies them for
	// its method says so here): a question without its answer ends the
	// request with input_required, and the client's retry (inputResponses,
	// requestState) runs Serve again with the answers. Without it a
	// 2026-07-28 Call's questions fail with ErrNoInputRounds; in legacy
	// sessions questions are live requests either way.
	MultiRoundTrip bool
	// Serve answers a request. An *Error (or an error wrapping one) is
	// that JSON-RPC error; any other error is an internal error carrying
	// its text. A panic in Serve or Authorize is recovered and logged, and
	// the request is answered with an internal error (-32603).
	Serve func(ctx context.Context, req *MethodRequest) (*MethodResult, error)
	// Stream, instead of Serve, holds a long-lived request open on its
	// own response stream (Stream, extension_stream.go: an event stream in
	// both eras, lines over stdio): it sends notifications with s.Send
	// until the client goes away (ctx ends; nothing more is sent) or the
	// server shuts down gracefully (s.Closing; its result is the stream's
	// last message). The request takes a stream slot of
	// Options.MaxGETStreams (its caller's share; 429 past it) rather than
	// a call slot, and a client that accepts no event stream gets 406. It
	// cannot be MultiRoundTrip.
	Stream func(ctx context.Context, req *MethodRequest, s *Stream) (*MethodResult, error)
}

// AuthRule names the target of a request and the scopes it requires.
type AuthRule func(ctx context.Context, req *MethodRequest) (target string, scopes []string, err error)

// NoScopes is the AuthRule of a method that needs nothing beyond the
// server's own scopes (Auth.Scopes).
func NoScopes(context.Context, *MethodRequest) (string, []string, error) { return "", nil, nil }

// MethodRequest is one request of an extension's method (or a tools/call,
// as a ToolCallHook sees it).
type MethodRequest struct {
	// Method is the method's name.
	Method string
	// ID is the request's JSON-RPC id as the client sent it (nil in
	// Authorize over HTTP, which runs before the request is framed): a
	// Stream method tags its notifications with it, so that a client
	// holding several streams on one connection (stdio) tells them apart.
	ID json.RawMessage
	// Params is the params object as the client sent it ({} when absent).
	Params json.RawMessage
	// ProtocolVersion is the request's protocol version: its legacy
	// session's, or the 2026-07-28 request's own.
	ProtocolVersion string
	// Principal is who the request's access token speaks for; nil without
	// Options.Auth and over stdio.
	Principal *Principal
	// SessionID is the request's legacy session ("" in 2026-07-28, which
	// has none; a stdio connection's session is named "stdio-...").
	SessionID string
	// Caller is who the request is charged to in the server's shares
	// (Share): its principal, else its client's address (the one its
	// legacy session was opened from; see Options.TrustedProxies), or its
	// connection over stdio.
	Caller string

	stateless bool
	caps      ClientCapabilities
	auth      *authState
	call      func() *Call // the request's Call, made on first use; nil where there is none
	once      sync.Once
	made      *Call
}

// Stateless reports whether the request belongs to 2026-07-28 (no
// session; the client's facts are in each request's _meta).
func (r *MethodRequest) Stateless() bool { return r.stateless }

// Call is the request's handle on its client, as a tool's handler has
// one: progress (Call.Progress, when the request's _meta carries a
// progressToken), logging (Call.Log), elicitation, sampling and roots, the
// extension's own requests and notifications (Call.Request, Call.Notify)
// and the change announcements. In a legacy session a question is a live
// request on the request's own stream; in 2026-07-28 it is an
// input_required round when the method is MultiRoundTrip, and fails with
// ErrNoInputRounds otherwise. It is nil in Authorize, which runs before
// the request does.
func (r *MethodRequest) Call() *Call {
	if r.call == nil {
		return nil
	}
	r.once.Do(func() { r.made = r.call() })
	return r.made
}

// ClientExtension returns what the client declared for extension id in
// its capabilities.extensions (in its initialize in a legacy session, in
// the request's _meta in 2026-07-28), and whether it declared it.
func (r *MethodRequest) ClientExtension(id string) (json.RawMessage, bool) {
	return r.caps.extension(id)
}

// Allowed reports whether the request's principal holds scopes (always
// true without Options.Auth, or without a principal).
func (r *MethodRequest) Allowed(scopes []string) bool {
	return r.Principal == nil || r.auth == nil || len(r.auth.missing(r.Principal, scopes)) == 0
}

// Filtered reports whether lists must hide what the principal may not use
// (Auth.FilterLists); such lists are cached privately.
func (r *MethodRequest) Filtered() bool {
	return r.Principal != nil && r.auth != nil && r.auth.cfg.FilterLists
}

// MethodResult is what an extension's method answers.
type MethodResult struct {
	// Result is the result object: a json.RawMessage as it is, anything
	// else encoded with encoding/json.
	Result any
	// Cache is the 2026-07-28 cache hint of the result (ttlMs,
	// cacheScope); nil sends none.
	Cache *CacheHint
	// ResultType is the 2026-07-28 resultType of a result the extension
	// defines; "" is "complete". "input_required" is the
	// runtime's own (MultiRoundTrip). Legacy results carry none.
	ResultType string
	// Meta are members of the 2026-07-28 result's _meta, beside the
	// serverInfo the runtime adds (a subscription ID, say); keys must not
	// be reserved ones the runtime sets.
	Meta map[string]json.RawMessage

	o *outcome // an outcome the runtime made (a round of a detached call)
}

// ErrNoInputRounds: a 2026-07-28 request of an extension's method that is
// not MultiRoundTrip asked the client something; it has no way to (no
// session, and no input_required rounds).
var ErrNoInputRounds = errors.New("mcpgen: this method cannot ask the client in protocol 2026-07-28 (it takes no input_required rounds)")

// ClientExtension returns what the call's client declared for extension
// id in its capabilities.extensions, and whether it declared it: a
// handler can adapt its result to a host that renders an extension's
// content (or not).
func (c *Call) ClientExtension(id string) (json.RawMessage, bool) {
	return c.peer.capabilities().extension(id)
}

// extension is an Extension as the runtime holds it: its methods as rows,
// and the public value it came from, whose hooks the runtime calls.
type extension struct {
	Extension
	settings json.RawMessage
	rows     []methodRow
}

// ErrExtensionAdded: AddExtension was given an extension the server
// already has. Code that several packages may run (each generated package
// enabling an extension its pages use) can take it as success, or find the
// extension already added with Server.Extension and extend it.
var ErrExtensionAdded = errors.New("mcpgen: the extension is already added")

// coreCapabilities are the capability members the core declares, which an
// extension's LegacyCapability must not take.
var coreCapabilities = []string{"tools", "prompts", "resources", "completions", "logging", "extensions", "experimental"}

func (e Extension) compile() (*extension, error) {
	prefix, name, ok := strings.Cut(e.ID, "/")
	if !ok || prefix == "" || name == "" || strings.ContainsAny(e.ID, " \t\"") {
		return nil, fmt.Errorf("extension %q: the identifier must be a reverse-DNS prefix and a name, like io.modelcontextprotocol/skills", e.ID)
	}
	settings := e.Settings
	if settings == nil {
		settings = json.RawMessage("{}")
	}
	settings, err := compactJSON(settings)
	if err != nil || !isObjectJSON(settings) {
		return nil, fmt.Errorf("extension %q: Settings must be a JSON object", e.ID)
	}
	for _, v := range e.Versions {
		if !slices.Contains(supportedVersions, v) {
			return nil, fmt.Errorf("extension %q: unknown protocol version %q", e.ID, v)
		}
	}
	e.Versions = slices.Clone(e.Versions)
	e.Methods = slices.Clone(e.Methods)
	e.Notifications = maps.Clone(e.Notifications)
	e.Routes = maps.Clone(e.Routes)
	for method, h := range e.Notifications {
		if method == "" || h == nil {
			return nil, fmt.Errorf("extension %q: a notification handler needs a method and a function", e.ID)
		}
	}
	x := &extension{Extension: e, settings: settings}
	seen := map[string]bool{}
	for _, m := range e.Methods {
		switch {
		case m.Name == "":
			return nil, fmt.Errorf("extension %q: a method without a name", e.ID)
		case seen[m.Name]:
			return nil, fmt.Errorf("extension %q: method %q is listed twice", e.ID, m.Name)
		case m.Authorize == nil:
			return nil, fmt.Errorf("extension %q: method %q has no Authorize rule (NoScopes if it needs no scope)", e.ID, m.Name)
		case (m.Serve == nil) == (m.Stream == nil):
			return nil, fmt.Errorf("extension %q: method %q has no Serve function (give it Serve, or Stream for a long-lived request, not both)", e.ID, m.Name)
		case m.Stream != nil && m.MultiRoundTrip:
			return nil, fmt.Errorf("extension %q: method %q is a Stream, which cannot end in an input_required round (MultiRoundTrip)", e.ID, m.Name)
		}
		seen[m.Name] = true
		versions := m.Versions
		if versions == nil {
			versions = e.Versions
		}
		for _, v := range versions {
			switch {
			case !slices.Contains(supportedVersions, v):
				return nil, fmt.Errorf("extension %q: method %q names unknown protocol version %q", e.ID, m.Name, v)
			case e.Versions != nil && !slices.Contains(e.Versions, v):
				return nil, fmt.Errorf("extension %q: method %q names protocol version %q, which the extension does not", e.ID, m.Name, v)
			}
		}
		x.rows = append(x.rows, m.row(e.ID, versions))
	}
	return x, nil
}

// row is the method's row: its versions, its rule and its Serve, behind
// the runtime's framing. Extension code is not trusted to be correct: a
// panic in its rule or its Serve is recovered (the request is answered
// -32603 and the server serves on), and unless it declares itself cheap
// it takes a slot of MaxConcurrentCalls like any handler.
func (m Method) row(ext string, versions []string) methodRow {
	r := methodRow{name: m.Name, eras: erasOf(versions), versions: slices.Clone(versions), nameMember: m.NameParam,
		cost: runsHandler, capability: "extensions"}
	if m.Cheap {
		r.cost = bookkeeping
	}
	if m.MultiRoundTrip {
		r.params = roundParams
	}
	r.auth = func(d *dispatcher, ctx context.Context, msg *message) (target string, scopes []string, e *Error) {
		defer func() {
			if v := recover(); v != nil {
				d.extensionPanicked(ctx, ext, m.Name+" Authorize", v)
				target, scopes, e = "", nil, errExtensionPanic
			}
		}()
		target, scopes, err := m.Authorize(ctx, d.methodRequest(ctx, msg, nil))
		if err != nil {
			return "", nil, asError(err)
		}
		return target, scopes, nil
	}
	if m.Stream != nil {
		m.streamRow(ext, &r)
		return r
	}
	r.serve = func(d *dispatcher, ctx context.Context, rq *request) (o outcome) {
		defer func() {
			if v := recover(); v != nil {
				d.extensionPanicked(ctx, ext, m.Name, v)
				o = failure(errExtensionPanic)
			}
		}()
		req := d.methodRequest(ctx, rq.msg, rq.era)
		var round *methodRound
		if m.MultiRoundTrip {
			// Opened before Serve: a retry whose requestState does not
			// open (tampered, expired, another request's) is -32602.
			r, e := d.openMethodRound(ctx, rq, m)
			if e != nil {
				return failure(e)
			}
			round = r
			req.call = func() *Call { return r.call }
		} else {
			req.call = func() *Call {
				r, e := d.openMethodRound(ctx, rq, m)
				if e != nil {
					return nil // a first round's peer does not fail to open
				}
				round = r
				return r.call
			}
		}
		res, err := m.Serve(ctx, req)
		if round != nil {
			if o, ended := round.close(rq, err); ended {
				return o
			}
		}
		if err != nil {
			return failure(asError(err))
		}
		return d.methodOutcome(m.Name, res)
	}
	return r
}

// methodOutcome frames what an extension's method returned.
func (d *dispatcher) methodOutcome(method string, res *MethodResult) outcome {
	switch {
	case res == nil || res.Result == nil && res.o == nil:
		return failure(NewError(CodeInternalError, "%s: the method returned no result", method))
	case res.o != nil:
		return *res.o
	case res.ResultType == "input_required":
		return failure(NewError(CodeInternalError, "%s: resultType input_required is the runtime's own (Method.MultiRoundTrip)", method))
	}
	o := outcome{result: res.Result, meta: res.Meta}
	if res.ResultType != "complete" {
		o.resultType = res.ResultType
	}
	for k := range res.Meta {
		if k == metaServerInfo {
			return failure(NewError(CodeInternalError, "%s: _meta[%q] is set by the runtime", method, k))
		}
	}
	if res.Cache != nil {
		c, herr := res.Cache.hint()
		if herr != nil {
			return failure(NewError(CodeInternalError, "%s: %v", method, herr))
		}
		o.cache = c
	}
	return o
}

// errExtensionPanic answers a request whose extension code panicked; the
// panic and its stack go to the log, not to the client.
var errExtensionPanic = &Error{Code: CodeInternalError, Message: "internal error: the extension's method panicked"}

// extensionPanicked logs a recovered panic of extension code: what names
// the method or hook that panicked.
func (d *dispatcher) extensionPanicked(ctx context.Context, ext, what string, v any) {
	d.logger.LogAttrs(ctx, slog.LevelError, "extension panicked", slog.String("extension", ext), slog.String("in", what),
		slog.String("subject", subjectOf(PrincipalFromContext(ctx))), slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
}

// erasOf are the eras of versions (nil: every era).
func erasOf(versions []string) eraKind {
	if versions == nil {
		return everyEra
	}
	var k eraKind
	for _, v := range versions {
		if isLegacyVersion(v) {
			k |= legacyEra
		} else {
			k |= modernEra
		}
	}
	return k
}

// asError is err as a JSON-RPC error: an *Error as it is, anything else an
// internal error with its text.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return NewError(CodeInternalError, "%v", err)
}

// methodRequest is msg as an extension's method sees it; x is the
// request's era, nil when the transport authorizes it before the era is
// known.
func (d *dispatcher) methodRequest(ctx context.Context, msg *message, x era) *MethodRequest {
	params := msg.Params
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	r := &MethodRequest{Method: msg.Method, ID: msg.ID, Params: params, Principal: PrincipalFromContext(ctx), auth: d.auth}
	if x != nil {
		r.ProtocolVersion, r.caps = x.version(), x.clientCapabilities()
		r.SessionID, r.Caller, r.stateless = x.sessionID(), callerOf(ctx, x), x.kind() == modernEra
	}
	return r
}

// addExtension adds x's rows to the method table (a new table, so that
// requests read it without a lock) and x to the declared extensions, once
// init (the extension's Init) succeeded; nothing is added when anything
// fails.
func (d *dispatcher) addExtension(x *extension, init func() error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var have []*extension
	if p := d.extensions.Load(); p != nil {
		have = *p
	}
	for _, have := range have {
		if have.ID == x.ID {
			return fmt.Errorf("extension %q: %w", x.ID, ErrExtensionAdded)
		}
	}
	old := *d.methods.Load()
	next := make(methodTable, len(old)+len(x.rows))
	for k, v := range old {
		next[k] = v
	}
	for i := range x.rows {
		r := &x.rows[i]
		if next[r.name] != nil {
			return fmt.Errorf("extension %q: method %q is already served", x.ID, r.name)
		}
		next[r.name] = r
	}
	reserved := []string{"/mcp"}
	if d.auth != nil {
		reserved = append(reserved, d.auth.metadataPath)
	}
	routes, err := d.routes.Load().withRoutes(x, reserved)
	if err != nil {
		return err
	}
	if init != nil {
		if err := init(); err != nil {
			return fmt.Errorf("extension %q: %w", x.ID, err)
		}
	}
	d.methods.Store(&next)
	d.routes.Store(routes)
	exts := append(slices.Clone(have), x)
	d.extensions.Store(&exts)
	return nil
}

// extensionsNow are the extensions added so far, in the order they were.
func (d *dispatcher) extensionsNow() []*extension {
	if p := d.extensions.Load(); p != nil {
		return *p
	}
	return nil
}

// declares reports whether x is declared in the capabilities of version.
func (d *dispatcher) declares(x *extension, version string) (ok bool) {
	if x.Versions != nil && !slices.Contains(x.Versions, version) {
		return false
	}
	if x.Declared == nil {
		return true
	}
	defer d.recoverHook(x, "Declared", func() { ok = false })
	return x.Declared(version)
}

// legacyCapability is x's capability member of its own in a legacy
// session of version, if any.
func (d *dispatcher) legacyCapability(x *extension, version string) (key string, value json.RawMessage, ok bool) {
	if x.LegacyCapability == nil || !isLegacyVersion(version) {
		return "", nil, false
	}
	defer d.recoverHook(x, "LegacyCapability", func() { ok = false })
	key, value, ok = x.LegacyCapability(version)
	if ok && (slices.Contains(coreCapabilities, key) || !isObjectJSON(value)) {
		d.logger.Error("an extension's legacy capability is refused: the key is the core's, or the value is no JSON object",
			slog.String("extension", x.ID), slog.String("key", key))
		return "", nil, false
	}
	return key, value, ok
}

// recoverHook, deferred in a call of one of x's hooks, logs the hook's
// panic and runs failed instead of letting it go on.
func (d *dispatcher) recoverHook(x *extension, hook string, failed func()) {
	if v := recover(); v != nil {
		d.extensionPanicked(context.Background(), x.ID, hook, v)
		if failed != nil {
			failed()
		}
	}
}
