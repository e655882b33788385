package runtime

import (
	"context"
	"encoding/json"
	"fmt"
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
