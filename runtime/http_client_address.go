package runtime

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Without a principal, the caller whose share of each server-wide bound a
// request counts against is the client's network address: a session or a
// 2026-07-28 request is free to mint, an address is not, so all the
// sessions and requests of one client share one share. An IPv6 client is
// its /64, the block one host is usually given whole. Behind a reverse
// proxy every request comes from the proxy's address, so all clients would
// share one share: Options.TrustedProxies names the proxies whose
// X-Forwarded-For the server believes.

// clientAddresses finds the client address of an HTTP request.
type clientAddresses struct {
	trusted []netip.Prefix // Options.TrustedProxies
}

// callerOf is the caller key of r's client ("a:" and its address, or its
// IPv6 /64): the peer's address, or, when the peer is a trusted proxy, the
// address it forwarded (the right-most X-Forwarded-For entry that is not
// itself a trusted proxy, so that a client cannot put an address of its
// choice in front of the proxy's).
func (c clientAddresses) callerOf(r *http.Request) string {
	peer, ok := parseHostAddr(r.RemoteAddr)
	if !ok {
		return "a:" + r.RemoteAddr
	}
	if c.trusts(peer) {
		if fwd, ok := c.forwarded(r.Header.Values("X-Forwarded-For")); ok {
			peer = fwd
		}
	}
	return "a:" + addressKey(peer)
}

// forwarded walks the X-Forwarded-For entries from the right (the nearest
// hop first) past the trusted proxies; the first other address is the
// client. Every entry trusted: the left-most. A malformed entry ends the
// walk, and the proxy that added it stays the caller.
func (c clientAddresses) forwarded(headers []string) (netip.Addr, bool) {
	var hops []string
	for _, h := range headers {
		hops = append(hops, strings.Split(h, ",")...)
	}
	var last netip.Addr
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return last, last.IsValid()
		}
		a = a.Unmap()
		if !c.trusts(a) {
			return a, true
		}
		last = a
	}
	return last, last.IsValid()
}

func (c clientAddresses) trusts(a netip.Addr) bool {
	for _, p := range c.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHostAddr parses the address of "host:port" (RemoteAddr).
func parseHostAddr(hostport string) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// addressKey is a as one caller: an IPv4 address, or the /64 of an IPv6
// one (its zone dropped).
func addressKey(a netip.Addr) string {
	if a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}
