package impl_test

import (
	"context"
	"net/http"
	"net/http/httptest"
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
