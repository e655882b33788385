package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestInitOTelEndToEnd: `init --otel` scaffolds a project that builds
// offline against this checkout's otel module, and whose server, run with
// -otel and OTEL_EXPORTER_OTLP_ENDPOINT, exports its spans to an OTLP/HTTP
// receiver on loopback.
func TestInitOTelEndToEnd(t *testing.T) {
	e2eEnv(t, "otel")

	dir := filepath.Join(t.TempDir(), "traced-server")
	code, stdout, stderr := run(t, "init", "--otel", dir)
	if code != 0 {
		t.Fatalf("init --otel: exit %d\n%s%s", code, stdout, stderr)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(gomod, []byte("replace "+otelModule+" => ")) {
		t.Errorf("go.mod does not point the otel module at the checkout:\n%s", gomod)
	}
	if _, err := os.Stat(filepath.Join(dir, "telemetry.go")); err != nil {
		t.Fatal(err)
	}
	mustGo(t, dir, "generate", "./...")
	mustGo(t, dir, "vet", "./...")
	bin := filepath.Join(t.TempDir(), "traced-server")
	mustGo(t, dir, "build", "-o", bin, ".")

	var mu sync.Mutex
	paths := map[string]int{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		paths[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "-stdio", "-otel")
	srv.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+collector.URL, "OTEL_SERVICE_NAME=traced")
	srv.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}` + "\n")
	var out, logs bytes.Buffer
	srv.Stdout, srv.Stderr = &out, &logs
	if err := srv.Run(); err != nil {
		t.Fatalf("the server: %v\n%s", err, logs.String())
	}
	if !strings.Contains(out.String(), `"id":2`) {
		t.Errorf("no tools/list response:\n%s", out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if paths["/v1/traces"] == 0 || paths["/v1/metrics"] == 0 {
		t.Errorf("exports received: %v\nserver log:\n%s", paths, logs.String())
	}
}
