package impl_test

import (
	"net/http"
	"testing"

	"github.com/mcpgen/mcpgen/bench/driver"
	"github.com/mcpgen/mcpgen/bench/mcpgentools"
	mcpotel "github.com/mcpgen/mcpgen/otel"
	"github.com/mcpgen/mcpgen/runtime"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// BenchmarkTracing is W1 (legacy session) and W2 (2026-07-28) for mcpgen
// with tracing off (no interceptor: the runtime's default), with the
// mcpotel interceptor on no-op providers (instrumented, nothing recorded),
// and with the OpenTelemetry SDK recording every span and metric (spans are
// sampled and ended, then dropped: no exporter, so the cost is the
// instrumentation's, not an exporter's).
func BenchmarkTracing(b *testing.B) {
	modes := []struct {
		name string
		ic   func(b *testing.B) []runtime.Interceptor
	}{
		{"off", func(*testing.B) []runtime.Interceptor { return nil }},
		{"noop", func(b *testing.B) []runtime.Interceptor {
			return otelInterceptor(b, mcpotel.Options{TracerProvider: tracenoop.NewTracerProvider(),
				MeterProvider: metricnoop.NewMeterProvider(), Propagator: propagation.TraceContext{}})
		}},
		{"sdk", func(b *testing.B) []runtime.Interceptor {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			b.Cleanup(func() { _ = tp.Shutdown(b.Context()); _ = mp.Shutdown(b.Context()) })
			return otelInterceptor(b, mcpotel.Options{TracerProvider: tp, MeterProvider: mp, Propagator: propagation.TraceContext{}})
		}},
	}
	for _, w := range []string{"W1", "W2"} {
		for _, m := range modes {
			b.Run(w+"/tracing="+m.name, func(b *testing.B) {
				srv := runtime.NewServer(runtime.Options{Name: "bench-mcpgen", Version: "0.1.0", Interceptors: m.ic(b)})
				b.Cleanup(func() { srv.Close() })
				if err := mcpgentools.Register(srv, mcpgentools.Tools{}); err != nil {
					b.Fatal(err)
				}
				var set func(http.Header)
				var body []byte
				if w == "W1" {
					set, body = initialize(b, srv, false), driver.AddCallBody(1, 40, false)
				} else {
					set = func(h http.Header) {
						h.Set("Mcp-Protocol-Version", driver.ModernVersion)
						h.Set("Mcp-Method", "tools/call")
						h.Set("Mcp-Name", "add")
					}
					body = driver.AddCallBody(1, 40, true)
				}
				checkAdd(b, post(srv, body, set), 1, 42)
				b.ReportAllocs()
				for b.Loop() {
					if rec := post(srv, body, set); rec.Code != http.StatusOK {
						b.Fatalf("HTTP %d", rec.Code)
					}
				}
			})
		}
	}
}

func otelInterceptor(b *testing.B, o mcpotel.Options) []runtime.Interceptor {
	ic, err := mcpotel.New(o)
	if err != nil {
		b.Fatal(err)
	}
	return []runtime.Interceptor{ic}
}
