package otlp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"go.uber.org/goleak"
)

// TestSetupExportsOverOTLP: with OTEL_EXPORTER_OTLP_ENDPOINT set, a served
// request reaches a loopback OTLP/HTTP receiver as a trace and metrics
// export when the shutdown flushes.
func TestSetupExportsOverOTLP(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var mu sync.Mutex
	got := map[string]string{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.URL.Path] = r.Header.Get("Content-Type")
		mu.Unlock()
		if len(b) == 0 {
			t.Errorf("%s: empty export", r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SERVICE_NAME", "")

	ctx := context.Background()
	ic, shutdown, err := Setup(ctx, "otlp-test")
	if err != nil {
		t.Fatal(err)
	}
	srv := runtime.NewServer(runtime.Options{Interceptors: []runtime.Interceptor{ic}})
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ts.Client().CloseIdleConnections()

	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range []string{"/v1/traces", "/v1/metrics"} {
		if got[p] != "application/x-protobuf" {
			t.Errorf("%s: got %q (all: %v)", p, got[p], got)
		}
	}
}

// TestSetupRefusesGRPC: the gRPC protocol is not built in, and says so.
func TestSetupRefusesGRPC(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	_, _, err := Setup(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "only http/protobuf") {
		t.Fatalf("err = %v", err)
	}
}
