package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
)

// MCP grows through extensions that a server declares in
// capabilities.extensions (and a client in its own capabilities): the
// tasks extension, skills, MCP Apps. An extension plugs into the runtime
// through one seam: AddExtension declares it in the capabilities of the
// protocol versions it names (initialize in a legacy session,
// server/discover in 2026-07-28) and adds its methods as rows of the
// server's method table, each with its authorization rule, served in every
// era and transport like the core's. Its resources are ordinary resources
// (AddResource, AddResourceTemplate), and a handler learns whether its
// client declared an extension from Call.ClientExtension.

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
	// Cheap says that Serve answers from what the extension holds, at
	// once, without running application code (a read of a catalog): the
	// request then takes no slot of Options.MaxConcurrentCalls. Any other
	// method takes one, from its caller's share, while Serve runs, as a
	// tool's handler does.
	Cheap bool
	// Serve answers a request. An *Error (or an error wrapping one) is
	// that JSON-RPC error; any other error is an internal error carrying
	// its text. A panic in Serve or Authorize is recovered and logged, and
	// the request is answered with an internal error (-32603).
	Serve func(ctx context.Context, req *MethodRequest) (*MethodResult, error)
}

// AuthRule names the target of a request and the scopes it requires.
type AuthRule func(ctx context.Context, req *MethodRequest) (target string, scopes []string, err error)

// NoScopes is the AuthRule of a method that needs nothing beyond the
// server's own scopes (Auth.Scopes).
func NoScopes(context.Context, *MethodRequest) (string, []string, error) { return "", nil, nil }

// MethodRequest is one request of an extension's method.
type MethodRequest struct {
	// Method is the method's name.
	Method string
	// Params is the params object as the client sent it ({} when absent).
	Params json.RawMessage
	// ProtocolVersion is the request's protocol version: its legacy
	// session's, or the 2026-07-28 request's own.
	ProtocolVersion string
	// Principal is who the request's access token speaks for; nil without
	// Options.Auth and over stdio.
	Principal *Principal

	caps ClientCapabilities
	auth *authState
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
}

// ClientExtension returns what the call's client declared for extension
// id in its capabilities.extensions, and whether it declared it: a
// handler can adapt its result to a host that renders an extension's
// content (or not).
func (c *Call) ClientExtension(id string) (json.RawMessage, bool) {
	return c.peer.capabilities().extension(id)
}

// extension is an Extension as the runtime holds it: its methods as
// rows, plus the hooks the runtime's own extensions use.
type extension struct {
	id       string
	settings json.RawMessage
	versions []string
	rows     []methodRow
	// declared, when set, says whether the extension is declared now (the
	// tasks extension is, once a tool may run as a task).
	declared func() bool
	// legacyMember, when set, is a capability member of its own that the
	// extension adds in a legacy session of version (2025-11-25's tasks).
	legacyMember func(version string) (key string, value json.RawMessage, ok bool)
}

// ErrExtensionAdded: AddExtension was given an extension the server
// already has. Code that several packages may run (each generated package
// enabling an extension its pages use) can take it as success.
var ErrExtensionAdded = errors.New("mcpgen: the extension is already added")

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
	x := &extension{id: e.ID, settings: settings, versions: slices.Clone(e.Versions)}
	for _, m := range e.Methods {
		switch {
		case m.Name == "":
			return nil, fmt.Errorf("extension %q: a method without a name", e.ID)
		case m.Authorize == nil:
			return nil, fmt.Errorf("extension %q: method %q has no Authorize rule (NoScopes if it needs no scope)", e.ID, m.Name)
		case m.Serve == nil:
			return nil, fmt.Errorf("extension %q: method %q has no Serve function", e.ID, m.Name)
		}
		versions := m.Versions
		if versions == nil {
			versions = x.versions
		}
		for _, v := range versions {
			if x.versions != nil && !slices.Contains(x.versions, v) {
				return nil, fmt.Errorf("extension %q: method %q names protocol version %q, which the extension does not", e.ID, m.Name, v)
			}
		}
		x.rows = append(x.rows, m.row(versions))
	}
	return x, nil
}

// row is the method's row: its versions, its rule and its Serve, behind
// the runtime's framing. Extension code is not trusted to be correct: a
// panic in its rule or its Serve is recovered (the request is answered
// -32603 and the server serves on), and unless it declares itself cheap
// it takes a slot of MaxConcurrentCalls like any handler.
func (m Method) row(versions []string) methodRow {
	r := methodRow{name: m.Name, eras: erasOf(versions), versions: slices.Clone(versions), handler: !m.Cheap}
	r.auth = func(d *dispatcher, ctx context.Context, msg *message) (target string, scopes []string, e *Error) {
		defer func() {
			if v := recover(); v != nil {
				d.extensionPanicked(ctx, m.Name, "Authorize", v)
				target, scopes, e = "", nil, errExtensionPanic
			}
		}()
		target, scopes, err := m.Authorize(ctx, d.methodRequest(ctx, msg, nil))
		if err != nil {
			return "", nil, asError(err)
		}
		return target, scopes, nil
	}
	r.serve = func(d *dispatcher, ctx context.Context, rq *request) (o outcome) {
		defer func() {
			if v := recover(); v != nil {
				d.extensionPanicked(ctx, m.Name, "Serve", v)
				o = failure(errExtensionPanic)
			}
		}()
		res, err := m.Serve(ctx, d.methodRequest(ctx, rq.msg, rq.era))
		switch {
		case err != nil:
			return failure(asError(err))
		case res == nil || res.Result == nil:
			return failure(NewError(CodeInternalError, "%s: the method returned no result", m.Name))
		}
		o = outcome{result: res.Result}
		if res.Cache != nil {
			c, herr := res.Cache.hint()
			if herr != nil {
				return failure(NewError(CodeInternalError, "%s: %v", m.Name, herr))
			}
			o.cache = c
		}
		return o
	}
	return r
}

// errExtensionPanic answers a request whose extension code panicked; the
// panic and its stack go to the log, not to the client.
var errExtensionPanic = &Error{Code: CodeInternalError, Message: "internal error: the extension's method panicked"}

// extensionPanicked logs a recovered panic of an extension method's part
// (its Authorize or its Serve).
func (d *dispatcher) extensionPanicked(ctx context.Context, method, part string, v any) {
	d.logger.LogAttrs(ctx, slog.LevelError, "extension method panicked", slog.String("method", method), slog.String("in", part),
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
	r := &MethodRequest{Method: msg.Method, Params: params, Principal: PrincipalFromContext(ctx), auth: d.auth}
	if x != nil {
		r.ProtocolVersion, r.caps = x.version(), x.clientCapabilities()
	}
	return r
}

// addExtension adds x's rows to the method table (a new table, so that
// requests read it without a lock) and x to the declared extensions.
func (d *dispatcher) addExtension(x *extension) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var have []*extension
	if p := d.extensions.Load(); p != nil {
		have = *p
	}
	for _, have := range have {
		if have.id == x.id {
			return fmt.Errorf("extension %q: %w", x.id, ErrExtensionAdded)
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
			return fmt.Errorf("extension %q: method %q is already served", x.id, r.name)
		}
		next[r.name] = r
	}
	d.methods.Store(&next)
	exts := append(slices.Clone(have), x)
	d.extensions.Store(&exts)
	return nil
}

// declares reports whether x is declared in the capabilities of version.
func (x *extension) declares(version string) bool {
	return (x.versions == nil || slices.Contains(x.versions, version)) && (x.declared == nil || x.declared())
}
