package impl_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/bench/driver"
	"github.com/mcpgen/mcpgen/bench/impl"
)

// serve starts name's handler on a loopback test server and returns its URL.
func serve(t testing.TB, name string) (impl.Impl, string) {
	t.Helper()
	im, err := impl.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	h, err := im.New()
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return im, srv.URL + "/mcp"
}

// TestWorkloads checks that every implementation completes each workload it
// claims to support, through the same client code the load driver uses.
func TestWorkloads(t *testing.T) {
	for _, name := range impl.Names() {
		t.Run(name, func(t *testing.T) {
			im, url := serve(t, name)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := driver.NewClient(url, 4)
			defer c.Close()

			s, err := c.Initialize(ctx, im.Elicit)
			if err != nil {
				t.Fatal(err)
			}
			for i := range int64(3) {
				if err := s.CallAdd(ctx, i); err != nil {
					t.Fatalf("W1 add: %v", err)
				}
			}
			if im.Modern {
				m := c.Stateless()
				for i := range int64(3) {
					if err := m.CallAdd(ctx, i); err != nil {
						t.Fatalf("W2 stateless add: %v", err)
					}
				}
			}
			if im.Elicit {
				for range 3 {
					if err := s.Confirm(ctx); err != nil {
						t.Fatalf("W3 confirm: %v", err)
					}
				}
			}
		})
	}
}

// TestWrongSumFails makes sure the driver's check can fail: a result whose sum
// is off is reported.
func TestWrongSumFails(t *testing.T) {
	if err := driver.CheckSum([]byte(`{"content":[],"structuredContent":{"sum":4}}`), 5); err == nil {
		t.Fatal("CheckSum accepted sum 4 for 5")
	}
	if err := driver.CheckSum([]byte(`{"content":[],"structuredContent":{"sum":5}}`), 5); err != nil {
		t.Fatal(err)
	}
}

// TestSessionStreamsAndDelete drives what workload R does to a session
// (against mcpgen in memory): a GET stream read to its priming event, its
// keep-alive pings answered, DELETE, and a request after it refused.
func TestSessionStreamsAndDelete(t *testing.T) {
	h, done, err := impl.NewMCPGen(impl.MCPGenOptions{KeepAlive: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := driver.NewClient(srv.URL+"/mcp", 4)
	defer c.Close()
	s, err := c.Initialize(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.OpenGET(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		req, err := g.NextRequest()
		if err != nil || req.Method != "ping" {
			t.Fatalf("GET stream: %+v, %v", req, err)
		}
		if err := s.AnswerEmpty(ctx, req.ID); err != nil {
			t.Fatalf("answering the ping: %v", err)
		}
	}
	g.Close()
	if err := s.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.CallAdd(ctx, 1); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("a call after DELETE: %v (want HTTP 404)", err)
	}
}
