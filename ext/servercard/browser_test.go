package servercard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// A page on one origin reads the card served on another, in headless
// Chromium: the browser, not this package, decides what CORS allows. The
// page reads the card and its ETag, revalidates with If-None-Match (which
// the browser preflights) and gets a 304, reads the legacy document, and
// cannot read a path without CORS headers (the control). Needs Node 22 and
// playwright-core (interop/run.sh installs them and sets SERVERCARD_NODE).
func TestBrowserReadsTheCardCrossOrigin(t *testing.T) {
	node := os.Getenv("SERVERCARD_NODE")
	if node == "" {
		t.Skip("set SERVERCARD_NODE to a Node 22 with interop/node_modules installed (ext/servercard/interop/run.sh does)")
	}
	// The card of a real server, enabled on it: the routes are the
	// runtime's, mounted as Serve mounts them, and /mcp is its MCP
	// endpoint, which sends no CORS headers (the control).
	srv := runtime.NewServer(runtime.Options{Name: "weather", Title: "Weather", Version: "1.4.0"})
	defer srv.Close()
	if err := srv.AddTool(echoTool("forecast")); err != nil {
		t.Fatal(err)
	}
	if err := Enable(srv, weatherOptions()); err != nil {
		t.Fatal(err)
	}
	var preflights atomic.Int32
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv)
	for _, pattern := range srv.Routes() {
		mux.Handle(pattern, srv)
	}
	cardSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			preflights.Add(1)
		}
		mux.ServeHTTP(w, r)
	}))
	defer cardSrv.Close()
	pageSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><title>a client on another origin</title>`))
	}))
	defer pageSrv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "interop/browser.mjs",
		"--page", pageSrv.URL+"/",
		"--card", cardSrv.URL+"/mcp/server-card",
		"--legacy", cardSrv.URL+WellKnownLegacyJSONPath,
		"--closed", cardSrv.URL+"/mcp")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("browser.mjs: %v\n%s", err, out)
	}
	var seen struct {
		First struct {
			Status                                        int
			ContentType, ETag, CacheControl, Name, Remote string
		}
		Again struct {
			Status int
			ETag   string
		}
		Legacy struct {
			Status int
			Tools  []string
		}
		Closed string
	}
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("the page saw: %s", out)
	f := seen.First
	if f.Status != 200 || f.ContentType != MediaType || f.ETag == "" || f.CacheControl != "public, max-age=3600" ||
		f.Name != "io.github.example/weather" || f.Remote != cardSrv.URL+"/mcp" {
		t.Errorf("the card as the page read it: %+v", f)
	}
	if seen.Again.Status != http.StatusNotModified || seen.Again.ETag != f.ETag {
		t.Errorf("revalidation: %+v", seen.Again)
	}
	if preflights.Load() == 0 {
		t.Error("the browser sent no preflight for If-None-Match")
	}
	if seen.Legacy.Status != 200 || len(seen.Legacy.Tools) != 1 || seen.Legacy.Tools[0] != "forecast" {
		t.Errorf("the legacy document: %+v", seen.Legacy)
	}
	if seen.Closed != "blocked" {
		t.Errorf("the control without CORS headers was %s: the browser does not enforce CORS here", seen.Closed)
	}
}
