package runtime

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// Without a principal a caller is its client's address, so the sessions it
// opens (and throws away) and its 2026-07-28 requests share one share of
// every server-wide bound. The tests tell two clients apart on loopback the
// way a deployment behind a proxy does: the server trusts 127.0.0.1 as its
// proxy, and the other client's requests name their address (from a range
// reserved for documentation) in X-Forwarded-For.

// throwawaySession opens a new 2025-11-25 session of the client at
// forwardedFor ("": the peer itself), for one request.
func throwawaySession(t *testing.T, ts *httptest.Server, forwardedFor string) eraClient {
	return eraClientsVia(t, ts, "", forwardedFor)[0]
}

// endSession deletes c's session.
func endSession(t *testing.T, c eraClient) {
	t.Helper()
	resp := c.legacy.do(c.legacy.request(http.MethodDelete, ""))
	resp.Body.Close()
}

// TestThrowawaySessionsShareOneShareOfTasks: a client that opens a session
// per task and deletes it gets its address's share of MaxTasks and no more
// (before, each session was a caller of its own and 11 sessions took the
// whole bound); its 2026-07-28 requests count against the same share;
// another client is served.
func TestThrowawaySessionsShareOneShareOfTasks(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{MaxTasks: 20, TrustedProxies: []string{"127.0.0.1"}}) // a share is 2 tasks
	if err := s.AddTool(quickTask()); err != nil {
		t.Fatal(err)
	}
	ts := authedServer(t, s)
	for i := range 3 {
		c := throwawaySession(t, ts, "")
		_, m := c.do(t, "tools/call", taskParams(c, "quick"))
		if i < 2 && m.Error != nil {
			t.Fatalf("task %d of the client's share: %+v", i+1, m.Error)
		}
		if i == 2 && !limited(m, "MaxTasks") {
			t.Errorf("a third task from a third session of one address: %s %+v, want the MaxTasks share refused", m.Result, m.Error)
		}
		endSession(t, c)
	}
	modern := eraClientsVia(t, ts, "", "")[1]
	if st, m := modern.do(t, "tools/call", taskParams(modern, "quick")); st != http.StatusTooManyRequests || !limited(m, "MaxTasks") {
		t.Errorf("a 2026-07-28 task from the same address: HTTP %d %s %+v, want 429 naming MaxTasks", st, m.Result, m.Error)
	}
	for _, other := range eraClientsVia(t, ts, "", "203.0.113.7") {
		if _, m := other.do(t, "tools/call", taskParams(other, "quick")); m.Error != nil {
			t.Errorf("%s: another client is refused a task: %+v", other.name, m.Error)
		}
	}
}

// TestThrowawaySessionsShareOneShareOfCalls: slow calls from a session
// each take the address's share of MaxConcurrentCalls together, in both
// eras; another client's call is served meanwhile.
func TestThrowawaySessionsShareOneShareOfCalls(t *testing.T) {
	noLeaks(t)
	var running atomic.Int64
	var over atomic.Bool
	release := make(chan struct{})
	s := NewServer(Options{MaxConcurrentCalls: 20, TrustedProxies: []string{"127.0.0.1"}}) // a share is 2 calls
	for _, tool := range []Tool{slowTool(100, &running, &over, release), whoTool("plain")} {
		if err := s.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	ts := authedServer(t, s)
	var wg sync.WaitGroup
	for range 2 {
		c := throwawaySession(t, ts, "")
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.do(t, "tools/call", map[string]any{"name": "slow"})
		}()
	}
	defer wg.Wait()
	defer close(release)
	waitRunning(t, &running, 2)
	for _, c := range []eraClient{throwawaySession(t, ts, ""), eraClientsVia(t, ts, "", "")[1]} {
		if _, m := c.do(t, "tools/call", map[string]any{"name": "plain"}); !limited(m, "MaxConcurrentCalls") {
			t.Errorf("%s: a third call from the same address: %s %+v, want its MaxConcurrentCalls share refused", c.name, m.Result, m.Error)
		}
	}
	for _, other := range eraClientsVia(t, ts, "", "203.0.113.7") {
		if _, m := other.do(t, "tools/call", map[string]any{"name": "plain"}); m.Error != nil {
			t.Errorf("%s: another client's call is refused: %+v", other.name, m.Error)
		}
	}
}

// TestForwardedForIsIgnoredFromUntrustedPeers: without TrustedProxies a
// client cannot mint callers by naming addresses in X-Forwarded-For.
func TestForwardedForIsIgnoredFromUntrustedPeers(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{MaxTasks: 20})
	if err := s.AddTool(quickTask()); err != nil {
		t.Fatal(err)
	}
	ts := authedServer(t, s)
	for i, addr := range []string{"198.51.100.1", "198.51.100.2", "198.51.100.3"} {
		c := throwawaySession(t, ts, addr)
		_, m := c.do(t, "tools/call", taskParams(c, "quick"))
		if i == 2 && !limited(m, "MaxTasks") {
			t.Errorf("a third task claiming a third forwarded address: %s %+v, want the peer's share refused", m.Result, m.Error)
		}
	}
}

func TestClientAddresses(t *testing.T) {
	trusted, err := parseTrustedProxies([]string{"10.0.0.0/8", "192.0.2.1", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	c := clientAddresses{trusted: trusted}
	for _, tc := range []struct {
		remote, xff, want string
	}{
		{"203.0.113.5:4000", "", "a:203.0.113.5"},
		{"203.0.113.5:4000", "198.51.100.1", "a:203.0.113.5"},                // an untrusted peer's header is ignored
		{"10.1.2.3:80", "198.51.100.1", "a:198.51.100.1"},                    // a trusted proxy's is believed
		{"10.1.2.3:80", "6.6.6.6, 198.51.100.1, 10.9.9.9", "a:198.51.100.1"}, // right-most untrusted: the client cannot choose it
		{"10.1.2.3:80", "10.0.0.7, 10.0.0.8", "a:10.0.0.7"},                  // every hop trusted: the left-most
		{"10.1.2.3:80", "198.51.100.1, garbage", "a:10.1.2.3"},               // a malformed nearest entry: the proxy itself
		{"10.1.2.3:80", "garbage, 198.51.100.1", "a:198.51.100.1"},           // a malformed entry beyond the client does not matter
		{"[2001:db8:1:2:aaaa::1]:443", "", "a:2001:db8:1:2::/64"},            // an IPv6 host is its /64
		{"[2001:db8:1:2:bbbb::9]:443", "", "a:2001:db8:1:2::/64"},            // ... so its other addresses are the same caller
		{"[::ffff:203.0.113.5]:1", "", "a:203.0.113.5"},                      // an IPv4-mapped address is the IPv4 one
		{"[::1]:1", "2001:db8:5:6::1", "a:2001:db8:5:6::/64"},                // a trusted IPv6 proxy
		{"192.0.2.1:1", "203.0.113.9", "a:203.0.113.9"},                      // a single trusted address
		{"192.0.2.2:1", "203.0.113.9", "a:192.0.2.2"},                        // ... and not its neighbour
		{"not-an-address", "203.0.113.9", "a:not-an-address"},                // a RemoteAddr no listener gives: kept as it is
		{"10.1.2.3:80", "", "a:10.1.2.3"},                                    // a proxy's own request
		{"10.1.2.3:80", "[2001:db8::1]:99", "a:10.1.2.3"},                    // a port in the entry is malformed
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.RemoteAddr = tc.remote
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := c.callerOf(r); got != tc.want {
			t.Errorf("RemoteAddr %s, X-Forwarded-For %q: caller %q, want %q", tc.remote, tc.xff, got, tc.want)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "example.com", ""} {
		if _, err := parseTrustedProxies([]string{bad}); err == nil {
			t.Errorf("TrustedProxies %q accepted", bad)
		}
	}
	if err := (Options{TrustedProxies: []string{"nope"}}).Validate(); err == nil {
		t.Error("Validate accepted a malformed TrustedProxies entry")
	}
}
