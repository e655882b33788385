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
// Tool, Prompt, Resource and ResourceTemplate. They are checked twice before
// a handler runs: by the HTTP transport, which answers a request that lacks
// them with 403 and an insufficient_scope challenge (the client can step up),
// and by the method itself (a JSON-RPC error), so no path reaches a handler
// without them.
//
// scopeRules maps a method to the target it names and the scopes that
// target requires. A new method that runs a handler on behalf of a caller
// adds its row here; the transport check and the 403 challenge then cover it
// unchanged.
var scopeRules = map[string]func(s *Server, p *requestParams) (target string, scopes []string){
	"tools/call": func(s *Server, p *requestParams) (string, []string) {
		if p.Name == nil {
			return "", nil
		}
		s.mu.RLock()
		t := s.byName[string(p.Name)]
		s.mu.RUnlock()
		if t == nil {
			return "", nil
		}
		return "tool " + strconv.Quote(t.Name), t.Scopes
	},
	"prompts/get": func(s *Server, p *requestParams) (string, []string) {
		if p.Name == nil {
			return "", nil
		}
		rp := s.features.prompt(string(p.Name))
		if rp == nil {
			return "", nil
		}
		return "prompt " + strconv.Quote(rp.Name), rp.Scopes
	},
	"resources/read":      resourceRule,
	"resources/subscribe": resourceRule,
	// Completing a prompt's argument or a template's variable may reveal
	// what they hold: it needs the same scopes.
	"completion/complete": func(s *Server, p *requestParams) (string, []string) {
		var ref struct{ Type, Name, URI string }
		if json.Unmarshal(p.Ref, &ref) != nil {
			return "", nil
		}
		switch ref.Type {
		case "ref/prompt":
			if rp := s.features.prompt(ref.Name); rp != nil {
				return "prompt " + strconv.Quote(rp.Name), rp.Scopes
			}
		case "ref/resource":
			f := &s.features
			f.mu.RLock()
			defer f.mu.RUnlock()
			if t := f.templateBy[ref.URI]; t != nil {
				return "resource template " + strconv.Quote(ref.URI), t.Scopes
			}
		}
		return "", nil
	},
}

// resourceRule is the rule of the methods that name a resource by URI.
func resourceRule(s *Server, p *requestParams) (string, []string) {
	if p.URI == nil {
		return "", nil
	}
	fixed, tmpl, _ := s.features.findResource(*p.URI)
	return resourceScopes(*p.URI, fixed, tmpl)
}

// resourceScopes names the resource uri (fixed, or of template tmpl) and
// its scopes.
func resourceScopes(uri string, fixed *registeredResource, tmpl *registeredTemplate) (string, []string) {
	switch {
	case fixed != nil:
		return "resource " + strconv.Quote(uri), fixed.Scopes
	case tmpl != nil:
		return "resource " + strconv.Quote(uri), tmpl.Scopes
	}
	return "", nil
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
	out := slices.Clone(s.auth.cfg.Scopes)
	add := func(scopes []string) {
		for _, sc := range scopes {
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	s.mu.RLock()
	for _, t := range s.tools {
		add(t.Scopes)
	}
	s.mu.RUnlock()
	f := &s.features
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, p := range f.prompts {
		add(p.Scopes)
	}
	for _, r := range f.resources {
		add(r.Scopes)
	}
	for _, t := range f.templates {
		add(t.Scopes)
	}
	return out
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
		rule := scopeRules[m.Method]
		if rule == nil || !m.isRequest() {
			continue
		}
		target, scopes := rule(s, m.params())
		if need := s.auth.missing(p, scopes); len(need) > 0 {
			s.refuseScope(w, m.ID, p, need, target+" requires scope "+strings.Join(need, " "))
			return true
		}
	}
	return false
}

// scopeError is the method-level check: the JSON-RPC error for a call whose
// principal lacks the target's scopes, or nil (also when unauthenticated).
func (s *Server) scopeError(ctx context.Context, target string, scopes []string) *Error {
	p := PrincipalFromContext(ctx)
	if s.auth == nil || p == nil {
		return nil
	}
	if need := s.auth.missing(p, scopes); len(need) > 0 {
		return NewError(CodeInvalidRequest, "insufficient_scope: %s requires scope %s", target, strings.Join(need, " "))
	}
	return nil
}

// filteredToolPages are the pages of tools/list for a principal when
// Auth.FilterLists is set: only the tools its scopes allow, each as the
// request's era shows it.
func (s *Server) filteredToolPages(p *Principal, definition func(*registeredTool) json.RawMessage) [][]byte {
	s.mu.RLock()
	var allowed [][]byte
	for _, t := range s.tools {
		if len(s.auth.missing(p, t.Scopes)) == 0 {
			allowed = append(allowed, definition(t))
		}
	}
	s.mu.RUnlock()
	return encodePages("tools", allowed, s.opts.PageSize)
}

// listFilter is what Auth.FilterLists lets a list show its principal: an
// entry whose scopes the token grants; nil when lists are not filtered.
func (s *Server) listFilter(ctx context.Context) func(scopes []string) bool {
	p := PrincipalFromContext(ctx)
	if p == nil || s.auth == nil || !s.auth.cfg.FilterLists {
		return nil
	}
	return func(scopes []string) bool { return len(s.auth.missing(p, scopes)) == 0 }
}

var privateListCache = cacheHint{ttlMs: listCacheTTL.Milliseconds(), scope: "private"}
