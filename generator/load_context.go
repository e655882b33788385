package generator

import "sort"

// loadContext is what the loaders of one generation share: the reporter,
// the configuration (its folders and files), and the keys inputs declare
// and refer to across kinds. Kinds never call each other: a tool naming an
// elicitation or a page records a reference here, the kind that owns the
// key declares it, and resolve reports the references nothing declares.
type loadContext struct {
	rep *reporter
	cfg *Config
	// declared are the keys of each namespace ("elicitation", "page") that
	// inputs declare, including those with errors of their own (their
	// errors are reported where they are declared).
	declared map[string]map[string]bool
	refs     []reference
	// unused are what the namespace's owner reports of a key no input
	// refers to.
	unused map[string]func(key string)
}

// A reference is an input naming another by key: a tool naming the
// elicitations it may ask or the page that shows its results.
type reference struct {
	namespace, key string
	// missing reports the reference when no input declares key; known are
	// the keys that are declared, sorted, for the hint.
	missing func(known []string)
}

func newLoadContext(cfg *Config, rep *reporter) *loadContext {
	return &loadContext{rep: rep, cfg: cfg, declared: map[string]map[string]bool{}, unused: map[string]func(string){}}
}

// declare records that an input declares key in namespace.
func (lc *loadContext) declare(namespace, key string) {
	if lc.declared[namespace] == nil {
		lc.declared[namespace] = map[string]bool{}
	}
	lc.declared[namespace][key] = true
}

// refer records a reference; see reference.
func (lc *loadContext) refer(namespace, key string, missing func(known []string)) {
	lc.refs = append(lc.refs, reference{namespace, key, missing})
}

// whenUnused makes resolve call report for each key of namespace that is
// declared and that no input refers to.
func (lc *loadContext) whenUnused(namespace string, report func(key string)) {
	lc.unused[namespace] = report
}

// resolve reports the references to keys no input declares, and the keys
// no input refers to. It runs once every kind finished loading.
func (lc *loadContext) resolve() {
	used := map[string]map[string]bool{}
	for _, r := range lc.refs {
		if used[r.namespace] == nil {
			used[r.namespace] = map[string]bool{}
		}
		used[r.namespace][r.key] = true
		if !lc.declared[r.namespace][r.key] {
			r.missing(lc.known(r.namespace))
		}
	}
	for ns, report := range lc.unused {
		for _, key := range lc.known(ns) {
			if !used[ns][key] {
				report(key)
			}
		}
	}
}

// known are the declared keys of namespace, sorted.
func (lc *loadContext) known(namespace string) []string {
	keys := make([]string, 0, len(lc.declared[namespace]))
	for k := range lc.declared[namespace] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
