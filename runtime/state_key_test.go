package runtime

import (
	"errors"
	"strings"
	"testing"
)

// testStateKey is the StateKey of the tests whose servers share sessions.
var testStateKey = []byte("test key of the replicas, 32 bytes")

// TestSharedSessionsNeedAStateKey: a server whose sessions are shared and
// that offers 2026-07-28 refuses to start without a StateKey of at least
// MinStateKeyBytes, saying how to make one; alone, or without 2026-07-28,
// it needs none.
func TestSharedSessionsNeedAStateKey(t *testing.T) {
	shared := func(key string, versions ...string) Options {
		return Options{Sessions: &MemorySessionStore{}, Bus: &memBus{}, StateKey: []byte(key), SupportedProtocolVersions: versions}
	}
	for _, tc := range []struct {
		name string
		opts Options
		want string // "" when valid
	}{
		{"shared, no key", shared(""), "it is empty"},
		{"shared, short key", shared("0123456789abcdef0123456789abcde"), "it has 31 bytes"},
		{"shared, bus only", Options{Bus: &memBus{}}, "it is empty"},
		{"shared, 32 bytes", shared("0123456789abcdef0123456789abcdef"), ""},
		{"shared, no 2026-07-28", shared("", Version20251125), ""},
		{"one process, no key", Options{}, ""},
		{"one process, short key", Options{StateKey: []byte("short")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				NewServer(tc.opts).Close()
				return
			}
			if !errors.Is(err, ErrStateKey) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "openssl rand -base64 32") {
				t.Fatalf("Validate: %v; want ErrStateKey saying %q and how to make a key", err, tc.want)
			}
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(error).Error(), tc.want) {
					t.Errorf("NewServer did not refuse the options: %v", r)
				}
			}()
			NewServer(tc.opts).Close()
		})
	}
}
