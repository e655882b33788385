package servercard

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// serveCards mounts the cards of src on a mux of their own, beside a
// stand-in for the MCP endpoint, on a loopback HTTP server.
func serveCards(t *testing.T, src Source, opts Options) (*httptest.Server, *Cards) {
	t.Helper()
	cards, err := New(src, opts, "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "the MCP endpoint", http.StatusMethodNotAllowed)
	}))
	for pattern, h := range cards.Routes() {
		mux.Handle(pattern, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, cards
}

// get sends method to url with headers (name, value pairs) and returns the
// response with its body read.
func get(t *testing.T, method, url string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestServeTheCard(t *testing.T) {
	srv, _ := serveCards(t, weatherServer(), weatherOptions())
	resp, body := get(t, "GET", srv.URL+"/mcp/server-card", "Accept", MediaType)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	mustBeValidCard(t, body)
	want := map[string]string{
		"Content-Type":                  MediaType,
		"Cache-Control":                 "public, max-age=3600",
		"Access-Control-Allow-Origin":   "*",
		"Access-Control-Expose-Headers": "ETag",
		"X-Content-Type-Options":        "nosniff",
		"Content-Length":                fmt.Sprint(len(body)),
	}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	sum := sha256.Sum256(body)
	if etag := resp.Header.Get("ETag"); etag != `"`+hex.EncodeToString(sum[:16])+`"` {
		t.Errorf("ETag %s is not the digest of the bytes", etag)
	}
	if v := resp.Header.Values("Vary"); len(v) != 0 {
		t.Errorf("Vary: %v; the card is the same for every Origin, Accept and encoding", v)
	}
	var card Card
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatal(err)
	}
	if card.Remotes[0].URL != srv.URL+"/mcp" || card.Name != "io.github.example/weather" || card.Version != "1.4.0" {
		t.Errorf("card: %+v", card)
	}

	// The same bytes for any Origin and with no Accept at all (a bare GET
	// from a scraper).
	_, other := get(t, "GET", srv.URL+"/mcp/server-card", "Origin", "https://elsewhere.example")
	if string(other) != string(body) {
		t.Errorf("the card differs by Origin:\n%s\n%s", body, other)
	}
	// The June 2026 revision's location: the same card, as application/json.
	resp, same := get(t, "GET", srv.URL+WellKnownCardPath)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || string(same) != string(body) {
		t.Errorf("%s: %d %s %s", WellKnownCardPath, resp.StatusCode, resp.Header.Get("Content-Type"), same)
	}
}

func TestConditionalRequests(t *testing.T) {
	srv, _ := serveCards(t, weatherServer(), weatherOptions())
	url := srv.URL + "/mcp/server-card"
	first, _ := get(t, "GET", url)
	etag := first.Header.Get("ETag")
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		resp, body := get(t, "GET", url, "If-None-Match", inm)
		if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Errorf("If-None-Match %s: %d, %d bytes", inm, resp.StatusCode, len(body))
		}
		if resp.Header.Get("ETag") != etag || resp.Header.Get("Cache-Control") == "" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("a 304 lacks its validators or CORS: %v", resp.Header)
		}
		if resp.Header.Get("Content-Type") != "" {
			t.Errorf("a 304 has a Content-Type")
		}
	}
	if resp, body := get(t, "GET", url, "If-None-Match", `"stale"`); resp.StatusCode != 200 || len(body) == 0 {
		t.Errorf("a stale ETag: %d", resp.StatusCode)
	}
	// If-None-Match may come on several field lines.
	if resp, _ := get(t, "GET", url, "If-None-Match", `"a"`, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("the ETag on a second If-None-Match line: %d", resp.StatusCode)
	}
	if resp, _ := get(t, "HEAD", url, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("HEAD with the ETag: %d", resp.StatusCode)
	}
}

func TestHeadOptionsAndOtherMethods(t *testing.T) {
	srv, _ := serveCards(t, weatherServer(), weatherOptions())
	url := srv.URL + "/mcp/server-card"
	getResp, body := get(t, "GET", url)
	head, headBody := get(t, "HEAD", url)
	if head.StatusCode != 200 || len(headBody) != 0 || head.Header.Get("Content-Length") != fmt.Sprint(len(body)) ||
		head.Header.Get("ETag") != getResp.Header.Get("ETag") || head.Header.Get("Content-Type") != MediaType {
		t.Errorf("HEAD: %d, %d bytes, %v", head.StatusCode, len(headBody), head.Header)
	}

	pre, _ := get(t, "OPTIONS", url, "Origin", "https://app.example", "Access-Control-Request-Method", "GET",
		"Access-Control-Request-Headers", "if-none-match")
	if pre.StatusCode != http.StatusNoContent {
		t.Fatalf("preflight: %d", pre.StatusCode)
	}
	for k, v := range map[string]string{
		"Access-Control-Allow-Origin":  "*",
		"Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
		"Access-Control-Allow-Headers": "Content-Type, If-None-Match",
		"Access-Control-Max-Age":       "86400",
	} {
		if got := pre.Header.Get(k); got != v {
			t.Errorf("preflight %s: %q, want %q", k, got, v)
		}
	}

	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		resp, _ := get(t, m, url)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("%s: %d, Allow %q", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

// The enumerating document follows the server's lists: a tool added or
// removed changes it (and its ETag) on the next request, while between
// changes the document is built once.
func TestLegacyDocumentKeptTrue(t *testing.T) {
	src := weatherServer()
	srv, _ := serveCards(t, src, weatherOptions())
	url := srv.URL + WellKnownLegacyJSONPath
	resp, body := get(t, "GET", url)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" ||
		resp.Header.Get("Cache-Control") != "public, max-age=60, must-revalidate" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	mustBeValidCard(t, body)
	if !strings.Contains(string(body), `"name":"forecast"`) {
		t.Fatalf("the tool is missing: %s", body)
	}
	etag := resp.Header.Get("ETag")
	if _, again := get(t, "GET", srv.URL+WellKnownLegacyPath); string(again) != string(body) {
		t.Errorf("the two legacy paths differ")
	}

	before := src.describeCount()
	for range 20 {
		if resp, _ := get(t, "GET", url, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
			t.Fatalf("unchanged: %d", resp.StatusCode)
		}
		get(t, "GET", srv.URL+"/mcp/server-card")
	}
	// One build of the card (the enumerating document was built already).
	if n := src.describeCount() - before; n > 1 {
		t.Errorf("Describe ran %d times for 40 requests between changes", n)
	}

	src.setTools(`{"name":"alerts","inputSchema":{"type":"object"}}`)
	resp, body = get(t, "GET", url, "If-None-Match", etag)
	if resp.StatusCode != 200 {
		t.Fatalf("after the change: %d", resp.StatusCode)
	}
	mustBeValidCard(t, body)
	if !strings.Contains(string(body), `"name":"alerts"`) || strings.Contains(string(body), `"name":"forecast"`) {
		t.Errorf("the document did not follow the lists: %s", body)
	}
	if resp.Header.Get("ETag") == etag {
		t.Error("the ETag did not change with the document")
	}
}

func TestNoLegacy(t *testing.T) {
	opts := weatherOptions()
	opts.NoLegacy = true
	srv, cards := serveCards(t, weatherServer(), opts)
	if len(cards.Routes()) != 1 {
		t.Errorf("routes: %v", cards.Routes())
	}
	for _, p := range []string{WellKnownCardPath, WellKnownLegacyPath, WellKnownLegacyJSONPath} {
		if resp, _ := get(t, "GET", srv.URL+p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", p, resp.StatusCode)
		}
	}
}

// Where the endpoint's URL comes from: Options.URL, else the
// authorization's resource, else the request.
func TestEndpointURL(t *testing.T) {
	remote := func(t *testing.T, url string, headers ...string) string {
		t.Helper()
		_, body := get(t, "GET", url, headers...)
		var card Card
		if err := json.Unmarshal(body, &card); err != nil || len(card.Remotes) != 1 {
			t.Fatalf("%v: %s", err, body)
		}
		return card.Remotes[0].URL
	}
	opts := weatherOptions()
	opts.URL = "https://weather.example.com/mcp"
	srv, _ := serveCards(t, weatherServer(), opts)
	if got := remote(t, srv.URL+"/mcp/server-card"); got != opts.URL {
		t.Errorf("Options.URL: %s", got)
	}

	src := weatherServer()
	src.d.Auth = &Auth{Resource: "https://api.example.com/mcp", AuthorizationServers: []string{"https://id.example.com"}}
	srv, _ = serveCards(t, src, weatherOptions())
	if got := remote(t, srv.URL+"/mcp/server-card"); got != "https://api.example.com/mcp" {
		t.Errorf("Auth.Resource: %s", got)
	}

	// From the request: each Host its own document.
	srv, cards := serveCards(t, weatherServer(), weatherOptions())
	req, _ := http.NewRequest("GET", srv.URL+"/mcp/server-card", nil)
	req.Host = "MCP.Example.test:9000"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var card Card
	err = json.NewDecoder(resp.Body).Decode(&card)
	resp.Body.Close()
	if err != nil || card.Remotes[0].URL != "http://mcp.example.test:9000/mcp" {
		t.Errorf("from the Host: %v %+v", err, card.Remotes)
	}
	if got := remote(t, srv.URL+"/mcp/server-card"); got != srv.URL+"/mcp" {
		t.Errorf("from the Host: %s", got)
	}
	// The cache of per-Host documents is bounded.
	for i := range 3 * maxCachedDocuments {
		req := httptest.NewRequest("GET", "/mcp/server-card", nil)
		req.Host = fmt.Sprintf("h%d.example.test", i)
		cards.Routes()[CardPath("/mcp")].ServeHTTP(httptest.NewRecorder(), req)
	}
	cards.mu.Lock()
	n := len(cards.cache)
	cards.mu.Unlock()
	if n > maxCachedDocuments {
		t.Errorf("%d documents cached, bound %d", n, maxCachedDocuments)
	}
}

// Requests racing changes: every answer is a whole, valid document whose
// ETag is the digest of its bytes, and the last change is what is served
// once the changes stop.
func TestConcurrentRequestsAndChanges(t *testing.T) {
	src := weatherServer()
	srv, _ := serveCards(t, src, weatherOptions())
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			path := []string{"/mcp/server-card", WellKnownLegacyJSONPath}[g%2]
			for range 25 {
				resp, err := http.Get(srv.URL + path)
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				sum := sha256.Sum256(body)
				if err == nil && resp.Header.Get("ETag") != `"`+hex.EncodeToString(sum[:16])+`"` {
					err = fmt.Errorf("%s: ETag %s does not match the bytes", path, resp.Header.Get("ETag"))
				}
				if err == nil {
					err = validateCard(body)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range 50 {
		src.setTools(fmt.Sprintf(`{"name":"tool_%d","inputSchema":{"type":"object"}}`, i))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_, body := get(t, "GET", srv.URL+WellKnownLegacyJSONPath)
	if !strings.Contains(string(body), `"name":"tool_49"`) {
		t.Errorf("the last change is not served: %s", body)
	}
}

// A cached card costs a lookup: this measures a GET answered from the
// cache and one answered with 304, against building the document anew.
func BenchmarkServeCard(b *testing.B) {
	src := weatherServer()
	cards, err := New(src, weatherOptions(), "/mcp")
	if err != nil {
		b.Fatal(err)
	}
	h := cards.Routes()[WellKnownLegacyJSONPath]
	req := httptest.NewRequest("GET", WellKnownLegacyJSONPath, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	etag := rec.Header().Get("ETag")
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
	})
	b.Run("not-modified", func(b *testing.B) {
		cond := httptest.NewRequest("GET", WellKnownLegacyJSONPath, nil)
		cond.Header.Set("If-None-Match", etag)
		for b.Loop() {
			h.ServeHTTP(httptest.NewRecorder(), cond)
		}
	})
	b.Run("rebuilt", func(b *testing.B) {
		for b.Loop() {
			cards.changed()
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
	})
}
