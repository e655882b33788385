package runtime

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"sync"
)

// A server-wide bound (tasks kept, task result bytes, open streams, calls
// running) protects the process; a caller's share of it protects the other
// callers. Without shares one client could take a whole bound (10,000 tasks
// in a second) and every other client would be refused until its tasks
// expired. Each caller may hold at most Options.CallerShare of each bound,
// so a hostile or runaway client runs into its own limit while the others
// keep being served.
//
// A caller is the principal of the request's token (Options.Auth); without
// one, the client's network address over HTTP (http_client_address.go), for
// a legacy session the address its initialize came from, and the
// connection over stdio (callerOf in era.go's implementations). A client
// opening sessions gains nothing: they share its share.

// CodeLimitExceeded answers a request refused because a bound of the
// server was reached (the whole bound, or the caller's share of it); the
// message names the bound and data carries it. 2026-07-28 sends it with
// HTTP 429.
const CodeLimitExceeded = -32004

// callerShare is one bounded resource of the server and each caller's part
// of it.
type callerShare struct {
	bound string // the Options field, e.g. "MaxTasks"
	unit  string // "tasks", "bytes", ...
	total int64  // <= 0: no bound
	each  int64  // a caller's share

	mu   sync.Mutex
	used int64
	by   map[string]int64
}

// newCallerShare bounds total units, fraction of them for each caller (at
// least one unit).
func newCallerShare(bound, unit string, total int64, fraction float64) *callerShare {
	each := int64(math.Ceil(float64(total) * fraction))
	return &callerShare{bound: bound, unit: unit, total: total, each: max(each, 1), by: map[string]int64{}}
}

// take gives caller n more units, or the error that names the bound it
// would pass. caller "" is charged to the whole bound only.
func (c *callerShare) take(caller string, n int64) *Error {
	if c.total <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.used+n > c.total {
		return limitExceeded(c.bound, c.total, fmt.Sprintf("the server holds %d of its %d %s (Options.%s); try again later",
			c.used, c.total, c.unit, c.bound))
	}
	if caller != "" && c.by[caller]+n > c.each {
		return limitExceeded(c.bound, c.each, fmt.Sprintf("this caller holds %d %s, its share of the server's %d (Options.%s × Options.CallerShare); wait until some are released",
			c.by[caller], c.unit, c.total, c.bound))
	}
	c.used += n
	if caller != "" {
		c.by[caller] += n
	}
	return nil
}

// give returns n units of caller's.
func (c *callerShare) give(caller string, n int64) {
	if c.total <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.used -= n
	if caller == "" {
		return
	}
	if c.by[caller] -= n; c.by[caller] <= 0 {
		delete(c.by, caller) // a caller holding nothing costs nothing
	}
}

// limitExceeded is the CodeLimitExceeded error of bound (limit units).
func limitExceeded(bound string, limit int64, msg string) *Error {
	return &Error{Code: CodeLimitExceeded, Message: msg, Data: struct {
		Bound string `json:"bound"`
		Limit int64  `json:"limit"`
	}{"Options." + bound, limit}}
}

// limitStatus is the HTTP status of a refusal for a bound: 429, which says
// "come back later" to clients and proxies.
const limitStatus = http.StatusTooManyRequests

// callerOf is the caller of a request: its principal, else who its era
// knows (a legacy session; a 2026-07-28 client's address or connection).
func callerOf(ctx context.Context, x era) string {
	if k := principalKeyOf(ctx); k != "" {
		return "p:" + k
	}
	return x.caller()
}

// parseTrustedProxies parses Options.TrustedProxies: addresses or CIDR
// prefixes.
func parseTrustedProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("Options.TrustedProxies: %q is neither an IP address nor a CIDR prefix (like 10.0.0.0/8)", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
