package mcptest

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// Run runs body once per era (Legacy, then Modern, unless Eras pins
// them), each as a subtest named by its protocol version. Each subtest gets
// a server of its own from newServer, so that one era's effects do not
// leak into the other's assertions, and a client connected to it in-process
// over HTTP (OverStdio: over stdio). Run closes the client and then the
// server when the subtest ends.
//
// When a 2026-07-28 subtest fails and a handler ran more than once in it
// (once per input_required round), the subtest's log says which call ran
// how often and after which question: work a handler does before its
// question happens again on each run.
func Run(t *testing.T, newServer func(t *testing.T) *runtime.Server, body func(t *testing.T, c *Client), opts ...Option) {
	t.Helper()
	cfg := newConfig(opts)
	for _, era := range cfg.eras {
		t.Run(string(era), func(t *testing.T) {
			t.Helper()
			srv := newServer(t)
			t.Cleanup(func() { _ = srv.Close() }) // after the client's cleanup: cleanups run last first
			var target Target = HTTP(srv)
			if cfg.stdio {
				target = Stdio(srv)
			}
			body(t, Connect(t, target, era, opts...))
		})
	}
}

// RunTarget is Run against one target for every era: a server at a URL, a
// command serving stdio (a new process per era), or an in-process server
// shared by the eras.
func RunTarget(t *testing.T, target Target, body func(t *testing.T, c *Client), opts ...Option) {
	t.Helper()
	cfg := newConfig(opts)
	for _, era := range cfg.eras {
		t.Run(string(era), func(t *testing.T) {
			body(t, Connect(t, target, era, opts...))
		})
	}
}
