package events

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// receiver is a webhook endpoint on loopback for the tests: it answers the
// verification handshake, records every POST, and behaves as its answer
// function says.
type receiver struct {
	t      testing.TB
	srv    *httptest.Server
	mu     sync.Mutex
	posts  []post
	answer func(w http.ResponseWriter, r *http.Request, p post) // nil: 200
	got    chan post
}

type post struct {
	Header http.Header
	Body   []byte
	Kind   string // "verification", "gap", "terminated" or "event"
}

func newReceiver(t testing.TB) *receiver {
	rc := &receiver{t: t, got: make(chan post, 1024)}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) url(path string) string { return rc.srv.URL + path }

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	p := post{Header: r.Header.Clone(), Body: body, Kind: "event"}
	var env struct{ Type, Challenge string }
	if json.Unmarshal(body, &env) == nil && env.Type != "" {
		p.Kind = env.Type
	}
	rc.mu.Lock()
	rc.posts = append(rc.posts, p)
	answer := rc.answer
	rc.mu.Unlock()
	select {
	case rc.got <- p:
	default:
	}
	if answer != nil {
		answer(w, r, p)
		return
	}
	if p.Kind == "verification" {
		json.NewEncoder(w).Encode(map[string]string{"challenge": env.Challenge})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) setAnswer(fn func(w http.ResponseWriter, r *http.Request, p post)) {
	rc.mu.Lock()
	rc.answer = fn
	rc.mu.Unlock()
}

// echo answers a verification as a willing endpoint does.
func echo(w http.ResponseWriter, p post) {
	var env struct{ Challenge string }
	json.Unmarshal(p.Body, &env)
	json.NewEncoder(w).Encode(map[string]string{"challenge": env.Challenge})
}

func (rc *receiver) all(kind string) []post {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []post
	for _, p := range rc.posts {
		if kind == "" || p.Kind == kind {
			out = append(out, p)
		}
	}
	return out
}

// checkSigned asserts a POST carries the headers SEP-3415 and Standard
// Webhooks require, signed with secret.
func checkSigned(t testing.TB, p post, secret, subID string) {
	t.Helper()
	h := p.Header
	if h.Get("Content-Type") != "application/json" || h.Get("webhook-id") == "" || h.Get("webhook-timestamp") == "" {
		t.Fatalf("headers %v", h)
	}
	if h.Get(SubscriptionIDHeader) != subID {
		t.Fatalf("X-MCP-Subscription-Id %q, want %q", h.Get(SubscriptionIDHeader), subID)
	}
	if !VerifySignature(secret, h.Get("webhook-id"), h.Get("webhook-timestamp"), p.Body, h.Get("webhook-signature")) {
		t.Fatalf("the signature %q does not verify", h.Get("webhook-signature"))
	}
}

// newSecret is a whsec_ secret of n random bytes.
func newSecret(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + n)
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

func hasPrefix(s, p string) bool { return strings.HasPrefix(s, p) }
