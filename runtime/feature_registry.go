package runtime

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/mcpgen/mcpgen/internal/resourceuri"
)

// featureRegistry holds what a server offers: its tools, prompts, resources
// and resource templates, each kind in registration order (lists are
// deterministic) and by key, and the encoded pages of their lists
// (feature_lists.go). Registration compiles a feature (tool.go, prompt.go,
// resource.go); the registry files it.
type featureRegistry struct {
	pageSize int // Options.PageSize

	mu        sync.RWMutex
	tools     featureSet[registeredTool]     // by name
	prompts   featureSet[registeredPrompt]   // by name
	resources featureSet[registeredResource] // by normalized URI
	templates featureSet[registeredTemplate] // by URI template, as registered
	completes bool                           // some prompt or template has a completion handler
	cached    map[pageKey][][]byte           // encoded pages of the fixed lists, built lazily
	listCache map[listKind]*cacheHint        // cache hints set with SetListCache

	// changed, when set, is told of every feature added (Host.OnChange),
	// after the registry's lock is released.
	changed func()
}

// added tells changed that a feature was added.
func (f *featureRegistry) added() {
	if f.changed != nil {
		f.changed()
	}
}

// featureSet is one kind of feature, in registration order and by key.
type featureSet[T any] struct {
	items []*T
	byKey map[string]*T
}

// add files it under key, unless the key is taken.
func (s *featureSet[T]) add(key string, it *T) bool {
	if s.byKey[key] != nil {
		return false
	}
	if s.byKey == nil {
		s.byKey = map[string]*T{}
	}
	s.items = append(s.items, it)
	s.byKey[key] = it
	return true
}

func newFeatureRegistry(pageSize int) *featureRegistry {
	return &featureRegistry{pageSize: pageSize}
}

func (f *featureRegistry) addTool(t *registeredTool) error {
	f.mu.Lock()
	if !f.tools.add(t.Name, t) {
		f.mu.Unlock()
		return fmt.Errorf("tool %q is already registered", t.Name)
	}
	f.forgetLocked(listTools)
	f.mu.Unlock()
	f.added()
	return nil
}

func (f *featureRegistry) addPrompt(p *registeredPrompt) error {
	f.mu.Lock()
	if !f.prompts.add(p.Name, p) {
		f.mu.Unlock()
		return fmt.Errorf("prompt %q is already registered", p.Name)
	}
	f.completes = f.completes || len(p.Complete) > 0
	f.forgetLocked(listPrompts)
	f.mu.Unlock()
	f.added()
	return nil
}

func (f *featureRegistry) addResource(r *registeredResource) error {
	f.mu.Lock()
	key := resourceuri.Normalize(r.URI)
	if have := f.resources.byKey[key]; have != nil {
		f.mu.Unlock()
		if have.URI != r.URI {
			return fmt.Errorf("resource %q is already registered, as %q (the same URI, spelled differently)", r.URI, have.URI)
		}
		return fmt.Errorf("resource %q is already registered", r.URI)
	}
	f.resources.add(key, r)
	f.mu.Unlock()
	f.added()
	return nil
}

func (f *featureRegistry) addTemplate(t *registeredTemplate) error {
	f.mu.Lock()
	if !f.templates.add(t.URITemplate, t) {
		f.mu.Unlock()
		return fmt.Errorf("resource template %q is already registered", t.URITemplate)
	}
	f.completes = f.completes || len(t.Complete) > 0
	f.forgetLocked(listTemplates)
	f.mu.Unlock()
	f.added()
	return nil
}

// tool is the tool named name, or nil.
func (f *featureRegistry) tool(name string) *registeredTool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.tools.byKey[name]
}

// toolNamed is tool for a name held as bytes (params.name): the lookup
// allocates nothing.
func (f *featureRegistry) toolNamed(name []byte) *registeredTool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.tools.byKey[string(name)]
}

func (f *featureRegistry) prompt(name string) *registeredPrompt {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.prompts.byKey[name]
}

// template is the template registered as uriTemplate, and else the fixed
// resource with that URI (completion refs name either).
func (f *featureRegistry) template(uriTemplate string) (*registeredTemplate, *registeredResource) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.templates.byKey[uriTemplate], f.resources.byKey[resourceuri.Normalize(uriTemplate)]
}

// offered is what the server has registered, by kind: it decides what
// the capabilities and a listen acknowledgement show.
type offered struct {
	tools, prompts, resources, completions bool // resources: fixed ones or templates
}

// offers reports what the server has registered.
func (f *featureRegistry) offers() offered {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return offered{tools: len(f.tools.items) > 0, prompts: len(f.prompts.items) > 0,
		resources: len(f.resources.items)+len(f.templates.items) > 0, completions: f.completes}
}

func (f *featureRegistry) hasPrompts() bool     { return f.offers().prompts }
func (f *featureRegistry) hasResources() bool   { return f.offers().resources }
func (f *featureRegistry) hasCompletions() bool { return f.offers().completions }

// findResource returns the fixed resource with this URI or else the first
// template, in registration order, that matches it and whose variables are
// safe (internal/resourceuri), with its variables. uri is normalized first,
// so that every spelling of a URI finds one resource.
func (f *featureRegistry) findResource(uri string) (*registeredResource, *registeredTemplate, URIVars) {
	uri = resourceuri.Normalize(uri)
	f.mu.RLock()
	defer f.mu.RUnlock()
	if r := f.resources.byKey[uri]; r != nil {
		return r, nil, nil
	}
	for _, t := range f.templates.items {
		if vars, ok := t.tmpl.Match(uri); ok && (t.AllowAnyValue || t.tmpl.Safe(vars)) {
			return nil, t, vars
		}
	}
	return nil, nil, nil
}

// scopesOf names the resource uri (the fixed one, else of the template
// that matches it) and its scopes; nothing for a URI no resource has.
func (f *featureRegistry) scopesOf(uri string) (string, []string, *Error) {
	fixed, tmpl, _ := f.findResource(uri)
	switch {
	case fixed != nil:
		return "resource " + strconv.Quote(resourceuri.Normalize(uri)), fixed.Scopes, nil
	case tmpl != nil:
		return "resource " + strconv.Quote(resourceuri.Normalize(uri)), tmpl.Scopes, nil
	}
	return "", nil, nil
}

// scopes are every scope a tool, prompt, resource or template declares, in
// order of first appearance, after those given.
func (f *featureRegistry) scopes(first []string) []string {
	out := slices.Clone(first)
	add := func(scopes []string) {
		for _, sc := range scopes {
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, t := range f.tools.items {
		add(t.Scopes)
	}
	for _, p := range f.prompts.items {
		add(p.Scopes)
	}
	for _, r := range f.resources.items {
		add(r.Scopes)
	}
	for _, t := range f.templates.items {
		add(t.Scopes)
	}
	return out
}

// notSupported is the -32601 of a feature the server has nothing
// registered for (and so does not advertise).
func notSupported(feature string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: feature + " not supported",
		Data: map[string]string{"reason": "the server does not support the " + feature + " capability"}}
}
