package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Scopes are declared per tool, prompt and resource in its file
// (_meta["mcpgen.dev/scopes"]) and reach the runtime as the Scopes field of
// Tool, Prompt, Resource and ResourceTemplate. Each method's row names its
// authorization rule (method_table.go); the rules below find the target a
// request names and the scopes it requires. They are checked twice before
// a handler runs: by the HTTP transport, which answers a request that lacks
// them with 403 and an insufficient_scope challenge (the client can step
// up), and by serveMethod (a JSON-RPC error), so no path reaches a handler
// without them.

// toolScopes is the rule of tools/call: the named tool's scopes.
func toolScopes(d *dispatcher, _ context.Context, m *message) (string, []string, *Error) {
	p := m.params()
	if p.Name == nil {
		return "", nil, nil
	}
	t := d.features.toolNamed(p.Name)
	if t == nil {
		return "", nil, nil
	}
	return "tool " + strconv.Quote(t.Name), t.Scopes, nil
}

// promptScopes is the rule of prompts/get: the named prompt's scopes.
func promptScopes(d *dispatcher, _ context.Context, m *message) (string, []string, *Error) {
	p := m.params()
	if p.Name == nil {
		return "", nil, nil
	}
	if rp := d.features.prompt(string(p.Name)); rp != nil {
		return "prompt " + strconv.Quote(rp.Name), rp.Scopes, nil
	}
	return "", nil, nil
}

// resourceScopes is the rule of the methods that name a resource by URI:
// the scopes of the fixed resource, or else of the template, that the URI
// names.
func resourceScopes(d *dispatcher, _ context.Context, m *message) (string, []string, *Error) {
	p := m.params()
	if p.URI == nil {
		return "", nil, nil
	}
	return d.features.scopesOf(*p.URI)
}

// completionScopes is the rule of completion/complete: completing a
// prompt's argument or a template's variable may reveal what they hold, so
// it needs the same scopes.
func completionScopes(d *dispatcher, _ context.Context, m *message) (string, []string, *Error) {
	var ref struct{ Type, Name, URI string }
	if json.Unmarshal(m.params().Ref, &ref) != nil {
		return "", nil, nil
	}
	switch ref.Type {
	case "ref/prompt":
		if rp := d.features.prompt(ref.Name); rp != nil {
			return "prompt " + strconv.Quote(rp.Name), rp.Scopes, nil
		}
	case "ref/resource":
		if t, _ := d.features.template(ref.URI); t != nil {
			return "resource template " + strconv.Quote(ref.URI), t.Scopes, nil
		}
	}
	return "", nil, nil
}

// listenScopes is the rule of subscriptions/listen: a stream that hears of
// changes to resources needs the scopes of every resource it names, as a
// legacy resources/subscribe does. The target names the resources whose
// scopes the caller lacks.
func listenScopes(d *dispatcher, ctx context.Context, m *message) (string, []string, *Error) {
	f := m.params().Notifications
	if f == nil {
		return "", nil, nil
	}
	p := PrincipalFromContext(ctx)
	var targets, all []string
	for _, uri := range f.ResourceSubscriptions {
		target, scopes, _ := d.features.scopesOf(uri)
		if len(scopes) == 0 || p != nil && d.auth != nil && len(d.auth.missing(p, scopes)) == 0 {
			continue // the target names only what the caller lacks
		}
		targets = append(targets, target)
		for _, sc := range scopes {
			if !slices.Contains(all, sc) {
				all = append(all, sc)
			}
		}
	}
	switch {
	case len(targets) == 0:
		return "", nil, nil
	case len(targets) > 3:
		return fmt.Sprintf("%s and %d more resources", strings.Join(targets[:3], ", "), len(targets)-3), all, nil
	}
	return strings.Join(targets, ", "), all, nil
}

// authorize checks a request against its method's rule (with
// Options.Auth): the JSON-RPC error of a principal that lacks the
// target's scopes, or of a request the rule cannot read; nil otherwise
// (also when unauthenticated, over stdio).
func (d *dispatcher) authorize(ctx context.Context, m *methodRow, msg *message) *Error {
	target, scopes, e := m.auth(d, ctx, msg)
	if e != nil {
		return e
	}
	return d.scopeError(ctx, target, scopes)
}

// checkScopes validates the scope tokens a tool, prompt or resource
// declares.
func checkScopes(kind, name string, scopes []string) error {
	for _, sc := range scopes {
		if !validScopeToken(sc) {
			return fmt.Errorf("%s %q: scope %q is not a valid scope token (RFC 6749 section 3.3)", kind, name, sc)
		}
	}
	return nil
}

// missing returns the scopes of need that p's scopes do not grant.
func (a *authState) missing(p *Principal, need []string) []string {
	var out []string
	for _, n := range need {
		if !a.grants(p, n) {
			out = append(out, n)
		}
	}
	return out
}

// grants reports whether p holds scope, directly or through Implies.
func (a *authState) grants(p *Principal, scope string) bool {
	for _, g := range p.Scopes {
		if g == scope || (a.cfg.Implies != nil && a.cfg.Implies(g, scope)) {
			return true
		}
	}
	return false
}

// scopesSupported is Auth.ScopesSupported, or the server-wide scopes plus
// every scope a tool, prompt or resource declares, in order of first
// appearance.
func (s *Server) scopesSupported() []string {
	if s.auth.cfg.ScopesSupported != nil {
		return s.auth.cfg.ScopesSupported
	}
	return s.features.scopes(s.auth.cfg.Scopes)
}

// refuseMissingScopes is the transport's check of one POST's requests: the
// first request whose target needs scopes the principal lacks makes the
// whole POST a 403 with a challenge naming them. It reports whether it
// refused.
func (s *Server) refuseMissingScopes(w http.ResponseWriter, r *http.Request, msgs []*message) bool {
	if s.auth == nil {
		return false
	}
	p := PrincipalFromContext(r.Context())
	if p == nil {
		return false
	}
	for _, m := range msgs {
		row := s.d.row(m.Method)
		if row == nil || !m.isRequest() {
			continue
		}
		target, scopes, _ := row.auth(s.d, r.Context(), m) // a rule's error is the method's answer
		if need := s.auth.missing(p, scopes); len(need) > 0 {
			s.refuseScope(w, m.ID, p, need, target+" requires scope "+strings.Join(need, " "))
			return true
		}
	}
	return false
}

// scopeError is the method-level check: the JSON-RPC error for a call whose
// principal lacks the target's scopes, or nil (also when unauthenticated).
func (d *dispatcher) scopeError(ctx context.Context, target string, scopes []string) *Error {
	p := PrincipalFromContext(ctx)
	if d.auth == nil || p == nil {
		return nil
	}
	if need := d.auth.missing(p, scopes); len(need) > 0 {
		return NewError(CodeInvalidRequest, "insufficient_scope: %s requires scope %s", target, strings.Join(need, " "))
	}
	return nil
}

// listFilter is what Auth.FilterLists lets a list show its principal: an
// entry whose scopes the token grants; nil when lists are not filtered.
func (d *dispatcher) listFilter(ctx context.Context) func(scopes []string) bool {
	p := PrincipalFromContext(ctx)
	if p == nil || d.auth == nil || !d.auth.cfg.FilterLists {
		return nil
	}
	return func(scopes []string) bool { return len(d.auth.missing(p, scopes)) == 0 }
}
