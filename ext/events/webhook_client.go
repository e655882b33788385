package events

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// The callback client is the only way the engine reaches a client's URL.
// It refuses, at subscribe time and again on every dial, any address that
// is not publicly routable: it resolves the host itself, checks every
// address, connects to a checked one (TLS still verifies and sends the
// URL's host name), and checks the connected address once more in the
// dialer's Control, so a DNS answer that changed since the subscribe does
// not get through. It uses no proxy, follows no redirect, reads at most
// MaxResponseBytes of an answer, and bounds each exchange by the
// attempt's timeout.

// maxCallbackURL bounds a callback URL.
const maxCallbackURL = 2048

type callbackClient struct {
	o      *WebhookOptions
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	tr     *http.Transport
	http   *http.Client
}

// errBlockedAddress: the callback's host is (or resolves to) an address
// that is not publicly routable.
var errBlockedAddress = errors.New("the callback host resolves to an address that is not publicly routable")

func newCallbackClient(o *WebhookOptions) *callbackClient {
	c := &callbackClient{o: o, lookup: o.LookupHost}
	if c.lookup == nil {
		c.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	c.tr = &http.Transport{
		Proxy:                  nil,
		DialContext:            c.dial,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    o.Timeout,
		ResponseHeaderTimeout:  o.Timeout,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    8,
		MaxConnsPerHost:        16,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 16 << 10,
	}
	c.http = &http.Client{
		Transport:     c.tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

func (c *callbackClient) close() { c.tr.CloseIdleConnections() }

// allowed reports whether the engine may connect to a.
func (c *callbackClient) allowed(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() {
		return c.o.AllowLoopbackCallbacks
	}
	return publiclyRoutable(a)
}

// blockedPrefixes are the IANA special-purpose ranges that netip's
// predicates do not cover, and those that embed another (possibly private)
// IPv4 address.
var blockedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24",
		"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
		"64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20", "5f00::/16",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

func publiclyRoutable(a netip.Addr) bool {
	if !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() ||
		a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() || !a.IsGlobalUnicast() {
		return false
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// checkURL checks a callback URL as events/subscribe must: https (http
// only to loopback with AllowLoopbackCallbacks), no credentials, a host
// whose every address is allowed. The error is for the client: it says
// what is wrong without naming an address.
func (c *callbackClient) checkURL(ctx context.Context, raw string) (*url.URL, error) {
	if len(raw) > maxCallbackURL {
		return nil, fmt.Errorf("delivery.url is longer than %d bytes", maxCallbackURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return nil, errors.New("delivery.url must be an absolute https URL")
	}
	if u.User != nil {
		return nil, errors.New("delivery.url must not carry credentials")
	}
	if u.Fragment != "" {
		return nil, errors.New("delivery.url must not have a fragment")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !c.o.AllowLoopbackCallbacks {
			return nil, errors.New("delivery.url must use https")
		}
	default:
		return nil, errors.New("delivery.url must use https")
	}
	addrs, err := c.resolve(ctx, u.Hostname())
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if !c.allowed(a) {
			return nil, errBlockedAddress
		}
		if u.Scheme == "http" && !a.Unmap().IsLoopback() {
			return nil, errors.New("delivery.url must use https (plain http is accepted for loopback callbacks only)")
		}
	}
	return u, nil
}

func (c *callbackClient) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a}, nil
	}
	rctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	addrs, err := c.lookup(rctx, host)
	if err != nil || len(addrs) == 0 {
		return nil, errors.New("the callback host does not resolve")
	}
	return addrs, nil
}

// dial connects to the first allowed address of the host: the check of
// delivery time, made on every new connection.
func (c *callbackClient) dial(ctx context.Context, network, hostport string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	addrs, err := c.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !c.allowed(ap.Addr()) {
			return errBlockedAddress
		}
		return nil
	}}
	var lastErr error = errBlockedAddress
	for _, a := range addrs {
		if !c.allowed(a) {
			continue
		}
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// response is what one POST learned: the status and the first
// MaxResponseBytes of the body, or the failure's category.
type response struct {
	status  int
	body    []byte
	failure Failure
	err     error // for the server's log only
}

// post makes one POST within timeout.
func (c *callbackClient) post(ctx context.Context, target string, header http.Header, body []byte) response {
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return response{failure: FailureConnectionRefused, err: err}
	}
	req.Header = header
	resp, err := c.http.Do(req)
	if err != nil {
		return response{failure: classify(err), err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.o.MaxResponseBytes))
	r := response{status: resp.StatusCode, body: b}
	switch {
	case err != nil:
		r.failure, r.err = classify(err), err
	case resp.StatusCode >= 500:
		r.failure = FailureHTTP5xx
	case resp.StatusCode >= 300:
		// A redirect is not followed: to the engine it is the endpoint's
		// refusal, like a 4xx.
		r.failure = FailureHTTP4xx
	case resp.StatusCode < 200:
		r.failure = FailureHTTP4xx
	}
	return r
}

// classify maps a transport error to its category.
func classify(err error) Failure {
	var ne net.Error
	var cert *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var alert tls.AlertError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return FailureTimeout
	case errors.As(err, &cert), errors.As(err, &rec), errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &alert),
		strings.Contains(err.Error(), "tls:"):
		return FailureTLS
	}
	return FailureConnectionRefused
}
