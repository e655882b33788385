package devissuer

import "time"

// bounded is a map of at most limit entries, each with an expiry (zero:
// none). Its owner holds Issuer.mu around every call.
type bounded[V any] struct {
	limit   int
	entries map[string]entry[V]
	order   []string // keys in insertion order, for evicting the oldest
}

type entry[V any] struct {
	v       V
	expires time.Time
}

func newBounded[V any](limit int) *bounded[V] {
	return &bounded[V]{limit: limit, entries: map[string]entry[V]{}}
}

// get returns the value of key unless it is missing or expired at now.
func (b *bounded[V]) get(key string, now time.Time) (V, bool) {
	e, ok := b.entries[key]
	if !ok || (!e.expires.IsZero() && !now.Before(e.expires)) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// take is get, and the entry is removed (single-use codes and tokens).
func (b *bounded[V]) take(key string, now time.Time) (V, bool) {
	v, ok := b.get(key, now)
	delete(b.entries, key)
	return v, ok
}

func (b *bounded[V]) delete(key string) { delete(b.entries, key) }

// put stores v under key. When the map is full it first drops expired
// entries, then, if evict, the oldest; without evict it reports false and
// stores nothing.
func (b *bounded[V]) put(key string, v V, expires time.Time, evict ...bool) bool {
	if _, ok := b.entries[key]; ok {
		b.entries[key] = entry[V]{v: v, expires: expires}
		return true
	}
	if len(b.entries) >= b.limit {
		b.compact(time.Now())
		if len(b.entries) >= b.limit {
			if len(evict) == 0 || !evict[0] {
				return false
			}
			for len(b.entries) >= b.limit && len(b.order) > 0 {
				delete(b.entries, b.order[0])
				b.order = b.order[1:]
			}
		}
	}
	b.entries[key] = entry[V]{v: v, expires: expires}
	b.order = append(b.order, key)
	if len(b.order) > 2*b.limit {
		b.compact(time.Now())
	}
	return true
}

// compact drops expired entries, and from the order the keys no longer held.
func (b *bounded[V]) compact(now time.Time) {
	kept := make([]string, 0, len(b.entries))
	for _, k := range b.order {
		e, ok := b.entries[k]
		switch {
		case !ok:
		case !e.expires.IsZero() && !now.Before(e.expires):
			delete(b.entries, k)
		default:
			kept = append(kept, k)
		}
	}
	b.order = kept
}
