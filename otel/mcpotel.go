package mcpotel

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/mcpgen/mcpgen/otel"

// Attribute keys of the OpenTelemetry MCP conventions, and mcpgen's own.
const (
	keyMethod          = attribute.Key("mcp.method.name")
	keySessionID       = attribute.Key("mcp.session.id")
	keyProtocolVersion = attribute.Key("mcp.protocol.version")
	keyToolName        = attribute.Key("gen_ai.tool.name")
	keyOperationName   = attribute.Key("gen_ai.operation.name")
	keyRequestID       = attribute.Key("jsonrpc.request.id")
	keyStatusCode      = attribute.Key("rpc.response.status_code")
	keyErrorType       = attribute.Key("error.type")
	keyNetTransport    = attribute.Key("network.transport")
	keyNetProtoName    = attribute.Key("network.protocol.name")
	keyNetProtoVersion = attribute.Key("network.protocol.version")
	keyClientAddress   = attribute.Key("client.address")
	keyClientPort      = attribute.Key("client.port")

	keyOutcome    = attribute.Key("mcpgen.answer.outcome")
	keyInputKey   = attribute.Key("mcpgen.input_request.key")
	keyResultType = attribute.Key("mcpgen.result_type")
	keyStreamKind = attribute.Key("mcpgen.stream.kind")
)

// durationBuckets are the conventions' bucket boundaries for MCP durations.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Options choose the providers; nil fields use the global ones (otel.SetTracerProvider, ...).
type Options struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Propagator reads trace context from _meta and HTTP headers; nil means
	// otel.GetTextMapPropagator() (set it to a composite of TraceContext and
	// Baggage, as Setup does).
	Propagator propagation.TextMapPropagator
}

// telemetry is one instrumented server's tracer, meter instruments and
// propagator.
type telemetry struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator

	serverDuration  metric.Float64Histogram
	clientDuration  metric.Float64Histogram
	sessionDuration metric.Float64Histogram
	backpressure    metric.Float64Histogram
	activeRequests  metric.Int64UpDownCounter
	activeSessions  metric.Int64UpDownCounter
	activeStreams   metric.Int64UpDownCounter
	clientRequests  metric.Int64Counter
}

// New returns the interceptor that traces and measures a server: put it
// first in Options.Interceptors so that its spans cover the others.
func New(o Options) (runtime.Interceptor, error) {
	tp, mp, prop := o.TracerProvider, o.MeterProvider, o.Propagator
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if prop == nil {
		prop = otel.GetTextMapPropagator()
	}
	m := mp.Meter(ScopeName)
	t := &telemetry{tracer: tp.Tracer(ScopeName), prop: prop}
	var err error // every instrument's error, joined
	hist := func(name, desc string) metric.Float64Histogram {
		h, e := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		err = errors.Join(err, e)
		return h
	}
	updown := func(name, unit, desc string) metric.Int64UpDownCounter {
		c, e := m.Int64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		err = errors.Join(err, e)
		return c
	}
	t.serverDuration = hist("mcp.server.operation.duration", "MCP request duration as observed on the receiver from the time it was received until the result is sent.")
	t.clientDuration = hist("mcp.client.operation.duration", "Duration of a server-to-client MCP request from the time it was sent until the response is received.")
	t.sessionDuration = hist("mcp.server.session.duration", "The duration of the MCP session as observed on the MCP server.")
	t.backpressure = hist("mcpgen.server.backpressure.duration", "How long a sender waited for room in a full stream buffer.")
	t.activeRequests = updown("mcpgen.server.active_requests", "{request}", "Requests being served.")
	t.activeSessions = updown("mcpgen.server.active_sessions", "{session}", "Open legacy sessions.")
	t.activeStreams = updown("mcpgen.server.active_streams", "{stream}", "Open event streams.")
	var e error
	t.clientRequests, e = m.Int64Counter("mcpgen.server.client_requests", metric.WithUnit("{request}"),
		metric.WithDescription("Server-to-client requests by outcome."))
	err = errors.Join(err, e)
	if err != nil {
		return runtime.Interceptor{}, err
	}
	return runtime.Interceptor{Incoming: t.incoming, Outgoing: t.outgoing, Observe: t.observe}, nil
}

func (t *telemetry) incoming(next runtime.IncomingFunc) runtime.IncomingFunc {
	return func(ctx context.Context, req *runtime.IncomingRequest) *runtime.Response {
		start := time.Now()
		parent, links := t.parentOf(ctx, req)
		common := commonAttrs(req)
		spanAttrs := append(spanOnlyAttrs(req), common...)
		name := req.Method
		if req.Method == "tools/call" && req.Name != "" {
			name += " " + req.Name
		}
		ctx, span := t.tracer.Start(parent, name, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(spanAttrs...), trace.WithLinks(links...), trace.WithTimestamp(start))
		active := metric.WithAttributes(activeAttrs(req)...)
		t.activeRequests.Add(ctx, 1, active)
		resp := next(ctx, req)
		t.activeRequests.Add(ctx, -1, active)

		result := outcomeAttrs(span, resp)
		span.End()
		t.serverDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(append(common, result...)...))
		return resp
	}
}

// parentOf returns the context whose span is the parent of req's span, and
// the links: _meta first, then the HTTP headers, then the ambient span;
// whichever of them is not the parent is linked.
func (t *telemetry) parentOf(ctx context.Context, req *runtime.IncomingRequest) (context.Context, []trace.Link) {
	ambient := trace.SpanContextFromContext(ctx)
	parent := ctx
	var candidates []context.Context
	if len(req.Meta) > 0 {
		candidates = append(candidates, t.prop.Extract(ctx, metaCarrier(req.Meta)))
	}
	if req.HTTP != nil {
		candidates = append(candidates, t.prop.Extract(ctx, propagation.HeaderCarrier(req.HTTP.Header)))
	}
	chosen := false
	var links []trace.Link
	for _, c := range candidates {
		sc := trace.SpanContextFromContext(c)
		if !sc.IsValid() || sc.Equal(ambient) {
			continue
		}
		if !chosen {
			parent, chosen = c, true
			continue
		}
		if !sc.Equal(trace.SpanContextFromContext(parent)) {
			links = append(links, trace.Link{SpanContext: sc})
		}
	}
	if chosen && ambient.IsValid() {
		links = append(links, trace.Link{SpanContext: ambient})
	}
	return parent, links
}

// commonAttrs are the attributes of both the span and the duration metric.
func commonAttrs(req *runtime.IncomingRequest) []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 12)
	a = append(a, keyMethod.String(req.Method))
	if req.Method == "tools/call" && req.Name != "" {
		a = append(a, keyToolName.String(req.Name), keyOperationName.String("execute_tool"))
	}
	if req.ProtocolVersion != "" {
		a = append(a, keyProtocolVersion.String(req.ProtocolVersion))
	}
	if req.HTTP != nil {
		a = append(a, keyNetTransport.String("tcp"), keyNetProtoName.String("http"))
	} else {
		a = append(a, keyNetTransport.String("pipe"))
	}
	return a
}

// spanOnlyAttrs are the high-cardinality attributes that only spans carry.
func spanOnlyAttrs(req *runtime.IncomingRequest) []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 12)
	if id := requestID(req.ID); id != "" {
		a = append(a, keyRequestID.String(id))
	}
	if req.SessionID != "" && !req.Stateless() {
		a = append(a, keySessionID.String(req.SessionID))
	}
	if r := req.HTTP; r != nil {
		a = append(a, keyNetProtoVersion.String(strconv.Itoa(r.ProtoMajor)+"."+strconv.Itoa(r.ProtoMinor)))
		if host, port, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			a = append(a, keyClientAddress.String(host))
			if p, err := strconv.Atoi(port); err == nil {
				a = append(a, keyClientPort.Int(p))
			}
		}
	}
	return a
}

func activeAttrs(req *runtime.IncomingRequest) []attribute.KeyValue {
	if req.Method == "tools/call" && req.Name != "" {
		return []attribute.KeyValue{keyMethod.String(req.Method), keyToolName.String(req.Name)}
	}
	return []attribute.KeyValue{keyMethod.String(req.Method)}
}

// requestID is the JSON-RPC id as a string ("" for null or absent).
func requestID(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// callerMistakes are the JSON-RPC codes the conventions do not count as the
// server's errors.
var callerMistakes = map[int]bool{-32700: true, -32600: true, -32601: true, -32602: true, -32002: true}

// outcomeAttrs sets the span's status from resp and returns the outcome
// attributes, which the duration metric carries too.
func outcomeAttrs(span trace.Span, resp *runtime.Response) []attribute.KeyValue {
	var a []attribute.KeyValue
	switch {
	case resp == nil:
	case resp.Error != nil:
		code := strconv.Itoa(resp.Error.Code)
		a = append(a, keyStatusCode.String(code))
		if !callerMistakes[resp.Error.Code] {
			a = append(a, keyErrorType.String(code))
			span.SetStatus(codes.Error, resp.Error.Message)
		}
	case resp.IsError:
		a = append(a, keyErrorType.String("tool_error"))
		span.SetStatus(codes.Error, "the tool returned an isError result")
	case resp.NoResponse:
		a = append(a, keyErrorType.String("cancelled"))
		span.SetStatus(codes.Error, "the client cancelled the request")
	case resp.InputRequired:
		span.SetAttributes(keyResultType.String("input_required"))
	}
	span.SetAttributes(a...)
	return a
}

func (t *telemetry) outgoing(next runtime.OutgoingFunc) runtime.OutgoingFunc {
	return func(ctx context.Context, req *runtime.OutgoingRequest) (json.RawMessage, error) {
		start := time.Now()
		attrs := []attribute.KeyValue{keyMethod.String(req.Method)}
		if p := req.Parent; p != nil && p.Method == "tools/call" && p.Name != "" {
			attrs = append(attrs, keyToolName.String(p.Name))
		}
		ctx, span := t.tracer.Start(ctx, req.Method, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attrs...), trace.WithAttributes(keyInputKey.String(req.Key)), trace.WithTimestamp(start))
		res, err := next(ctx, req)
		out := runtime.AnswerOutcomeOf(req.Method, res, err)
		attrs = append(attrs, keyOutcome.String(string(out)))
		switch out {
		case runtime.AnswerExpired, runtime.AnswerFailed:
			attrs = append(attrs, keyErrorType.String(string(out)))
			msg := string(out)
			if err != nil {
				msg = err.Error()
			}
			span.SetStatus(codes.Error, msg)
		}
		span.SetAttributes(attrs...)
		span.End()
		t.clientDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
		t.clientRequests.Add(ctx, 1, metric.WithAttributes(keyMethod.String(req.Method), keyOutcome.String(string(out))))
		return res, err
	}
}

func (t *telemetry) observe(ctx context.Context, e runtime.Event) {
	transport := keyNetTransport.String("tcp")
	if e.Transport == "stdio" {
		transport = keyNetTransport.String("pipe")
	}
	session := metric.WithAttributes(keyProtocolVersion.String(e.ProtocolVersion), transport)
	switch e.Kind {
	case runtime.SessionOpened:
		t.activeSessions.Add(ctx, 1, session)
	case runtime.SessionClosed:
		t.activeSessions.Add(ctx, -1, session)
		t.sessionDuration.Record(ctx, e.Duration.Seconds(), session)
	case runtime.StreamOpened:
		t.activeStreams.Add(ctx, 1, metric.WithAttributes(keyStreamKind.String(e.Stream), transport))
	case runtime.StreamClosed:
		t.activeStreams.Add(ctx, -1, metric.WithAttributes(keyStreamKind.String(e.Stream), transport))
	case runtime.BackpressureWaited:
		t.backpressure.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(transport))
	}
}

// metaCarrier reads trace context from params._meta, whose values are raw
// JSON: "traceparent", "tracestate" and "baggage" are strings there.
type metaCarrier map[string]json.RawMessage

func (m metaCarrier) Get(key string) string {
	raw, ok := m[key]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// Set does nothing: the request's _meta is read-only.
func (m metaCarrier) Set(string, string) {}

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
