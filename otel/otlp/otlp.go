// Package otlp sets up OpenTelemetry for an mcpgen server from the standard
// environment variables and returns its interceptor: spans and metrics go
// to an OTLP/HTTP endpoint when OTEL_EXPORTER_OTLP_ENDPOINT (or the
// per-signal OTEL_EXPORTER_OTLP_TRACES_ENDPOINT /
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) is set; the exporters read the other
// OTEL_EXPORTER_OTLP_* variables (headers, timeout, compression, TLS)
// themselves. Without an endpoint nothing is exported, but trace context is
// still propagated. OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the
// resource. Only the http/protobuf protocol is built in (the gRPC exporters
// would add gRPC to every binary); OTEL_EXPORTER_OTLP_PROTOCOL=grpc is an
// error that says so.
//
// It lives in its own package so that importing the interceptor alone
// (package mcpotel) links no exporter.
package otlp

import (
	"context"
	"errors"
	"fmt"
	"os"

	mcpotel "github.com/mcpgen/mcpgen/otel"
	"github.com/mcpgen/mcpgen/runtime"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Exporting reports whether the environment names an OTLP endpoint for
// traces and for metrics.
func Exporting() (traces, metrics bool) {
	all := os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	return all || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "",
		all || os.Getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
}

// Setup installs the global tracer and meter providers and the W3C trace
// context and baggage propagator, and returns the server's interceptor and
// the shutdown that flushes what is buffered (call it before exiting).
// service is the service.name unless OTEL_SERVICE_NAME sets one.
func Setup(ctx context.Context, service string) (runtime.Interceptor, func(context.Context) error, error) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := os.Getenv(v); p != "" && p != "http/protobuf" {
			return runtime.Interceptor{}, nil, fmt.Errorf("%s=%q: only http/protobuf is built in", v, p)
		}
	}
	var attrs []attribute.KeyValue
	if os.Getenv("OTEL_SERVICE_NAME") == "" {
		attrs = append(attrs, attribute.String("service.name", service))
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attrs...))
	if err != nil {
		return runtime.Interceptor{}, nil, fmt.Errorf("the OpenTelemetry resource: %w", err)
	}
	traces, metrics := Exporting()
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return runtime.Interceptor{}, nil, fmt.Errorf("the OTLP trace exporter: %w", err)
		}
		topts = append(topts, sdktrace.WithBatcher(exp))
	}
	mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return runtime.Interceptor{}, nil, fmt.Errorf("the OTLP metric exporter: %w", err)
		}
		mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	tp := sdktrace.NewTracerProvider(topts...)
	mp := sdkmetric.NewMeterProvider(mopts...)
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(prop)
	shutdown := func(ctx context.Context) error {
		return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx))
	}
	ic, err := mcpotel.New(mcpotel.Options{TracerProvider: tp, MeterProvider: mp, Propagator: prop})
	if err != nil {
		_ = shutdown(ctx)
		return runtime.Interceptor{}, nil, err
	}
	return ic, shutdown, nil
}
