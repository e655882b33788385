package mcptest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// An Option changes how clients connect and behave.
type Option func(*config)

type config struct {
	eras         []Era
	stdio        bool // Run serves its servers over in-process stdio instead of HTTP
	capabilities json.RawMessage
	logLevel     runtime.LogLevel
	header       http.Header
	timeout      time.Duration
	maxRounds    int
	roots        []runtime.Root
	hasRoots     bool
}

// Default bounds.
const (
	// DefaultTimeout bounds each request, its questions and retries
	// included, and each wait for a notification, unless the caller's
	// context ends sooner: a server that never answers fails the test with
	// a message instead of hanging it.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxRounds bounds the input_required rounds of one 2026-07-28
	// request (and the retries after a 2025-11-25 URL elicitation).
	DefaultMaxRounds = 10
	// closeTimeout bounds closing a client: ending its session, streams and
	// subprocess.
	closeTimeout = 15 * time.Second
)

func newConfig(opts []Option) config {
	c := config{timeout: DefaultTimeout, maxRounds: DefaultMaxRounds, header: http.Header{}}
	for _, o := range opts {
		o(&c)
	}
	if len(c.eras) == 0 {
		c.eras = defaultEras
	}
	return c
}

// Eras makes Run test in these eras only, in this order (default: Legacy,
// then Modern). Eras(mcptest.Modern) pins one.
func Eras(eras ...Era) Option {
	return func(c *config) { c.eras = append([]Era(nil), eras...) }
}

// OverStdio makes Run connect to each server through ServeStdio on pipes
// instead of its HTTP handler.
func OverStdio() Option { return func(c *config) { c.stdio = true } }

// Capabilities replaces the client capabilities the client declares (by
// default everything its era defines: elicitation in both modes, sampling,
// roots), for example {"sampling":{}} to see how a tool behaves for a client
// without elicitation.
func Capabilities(caps json.RawMessage) Option {
	return func(c *config) { c.capabilities = append(json.RawMessage(nil), caps...) }
}

// Roots makes the client answer roots/list with roots from the start, so
// that a server that asks for them as soon as the session is initialized
// (Call.Roots) gets them; SetRoots and ChangeRoots change them later.
func Roots(roots ...runtime.Root) Option {
	return func(c *config) { c.roots, c.hasRoots = append([]runtime.Root{}, roots...), true }
}

// LogLevel asks for the server's log messages from this level up
// (logging/setLevel in a session, the logLevel of every 2026-07-28 request);
// Logs returns them. By default the client asks for none, like a client that
// never sets a level.
func LogLevel(level runtime.LogLevel) Option {
	return func(c *config) { c.logLevel = level }
}

// Header adds an HTTP header to every request (for example Authorization
// for a server with Options.Auth). It has no effect over stdio.
func Header(name, value string) Option {
	return func(c *config) { c.header.Add(name, value) }
}

// Timeout replaces DefaultTimeout.
func Timeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// MaxRounds replaces DefaultMaxRounds.
func MaxRounds(n int) Option { return func(c *config) { c.maxRounds = n } }
