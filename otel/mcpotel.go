package mcpotel

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"sync"
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

	sets setCache // metric attribute sets by group
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
		k := groupOf(req)
		active := t.sets.get(setKey{method: k.method, tool: k.tool, active: true}, k.activeAttrs)
		opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(spanAttrs(req)...)}
		if len(links) > 0 {
			opts = append(opts, trace.WithLinks(links...))
		}
		ctx, span := t.tracer.Start(parent, active.name, opts...)
		t.activeRequests.Add(ctx, 1, active.add...)
		resp := next(ctx, req)
		t.activeRequests.Add(ctx, -1, active.add...)

		k.errType, k.status = outcomeOf(span, resp)
		span.End()
		t.serverDuration.Record(ctx, time.Since(start).Seconds(), t.sets.get(k, k.attrs).record...)
		return resp
	}
}

// setKey is what a metric data point of a request is grouped by; tool is
// set only for a registered tool, so clients cannot grow it.
type setKey struct {
	method, tool, version string
	http, active          bool
	errType, status       string
}

func groupOf(req *runtime.IncomingRequest) setKey {
	k := setKey{method: req.Method, version: req.ProtocolVersion, http: req.HTTP != nil}
	if req.Method == "tools/call" && req.ToolRegistered() {
		k.tool = req.Name
	}
	return k
}

func (k setKey) activeAttrs() []attribute.KeyValue {
	if k.tool != "" {
		return []attribute.KeyValue{keyMethod.String(k.method), keyToolName.String(k.tool)}
	}
	return []attribute.KeyValue{keyMethod.String(k.method)}
}

// attrs are the attributes of the duration metric (and the span).
func (k setKey) attrs() []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 8)
	a = append(a, keyMethod.String(k.method))
	if k.tool != "" {
		a = append(a, keyToolName.String(k.tool), keyOperationName.String("execute_tool"))
	}
	if k.version != "" {
		a = append(a, keyProtocolVersion.String(k.version))
	}
	if k.http {
		a = append(a, keyNetTransport.String("tcp"), keyNetProtoName.String("http"))
	} else {
		a = append(a, keyNetTransport.String("pipe"))
	}
	if k.errType != "" {
		a = append(a, keyErrorType.String(k.errType))
	}
	if k.status != "" {
		a = append(a, keyStatusCode.String(k.status))
	}
	return a
}

// maxSets bounds the cache of attribute sets; past it, sets are built per
// request.
const maxSets = 4096

// setCache keeps the metric attribute sets of the groups seen, so that a
// request records without building one.
type setCache struct {
	mu sync.RWMutex
	m  map[setKey]*group
}

// group is one setKey's span name and measurement options.
type group struct {
	name   string
	add    []metric.AddOption
	record []metric.RecordOption
}

func (c *setCache) get(k setKey, build func() []attribute.KeyValue) *group {
	c.mu.RLock()
	o, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return o
	}
	set := metric.WithAttributeSet(attribute.NewSet(build()...))
	o = &group{name: k.method, add: []metric.AddOption{set}, record: []metric.RecordOption{set}}
	if k.tool != "" {
		o.name = k.method + " " + k.tool
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[setKey]*group{}
	}
	if len(c.m) < maxSets {
		c.m[k] = o
	}
	c.mu.Unlock()
	return o
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

// spanAttrs are the request's span attributes.
func spanAttrs(req *runtime.IncomingRequest) []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 12)
	a = append(a, keyMethod.String(req.Method))
	if req.Method == "tools/call" && req.Name != "" {
		a = append(a, keyToolName.String(req.Name), keyOperationName.String("execute_tool"))
	}
	if req.ProtocolVersion != "" {
		a = append(a, keyProtocolVersion.String(req.ProtocolVersion))
	}
	if id := requestID(req.ID); id != "" {
		a = append(a, keyRequestID.String(id))
	}
	if req.SessionID != "" && !req.Stateless() {
		a = append(a, keySessionID.String(req.SessionID))
	}
	r := req.HTTP
	if r == nil {
		return append(a, keyNetTransport.String("pipe"))
	}
	a = append(a, keyNetTransport.String("tcp"), keyNetProtoName.String("http"), keyNetProtoVersion.String(protoVersion(r.ProtoMajor, r.ProtoMinor)))
	if host, port, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		a = append(a, keyClientAddress.String(host))
		if p, err := strconv.Atoi(port); err == nil {
			a = append(a, keyClientPort.Int(p))
		}
	}
	return a
}

// protoVersion is network.protocol.version of an HTTP request.
func protoVersion(major, minor int) string {
	switch {
	case major == 1 && minor == 1:
		return "1.1"
	case major == 2:
		return "2"
	case major == 3:
		return "3"
	}
	return strconv.Itoa(major) + "." + strconv.Itoa(minor)
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

// outcomeOf sets the span's status and outcome attributes from resp and
// returns its error.type and rpc.response.status_code ("" when none), which
// the duration metric carries too.
func outcomeOf(span trace.Span, resp *runtime.Response) (errType, status string) {
	switch {
	case resp == nil:
	case resp.Error != nil:
		status = strconv.Itoa(resp.Error.Code)
		if !callerMistakes[resp.Error.Code] {
			errType = status
			span.SetStatus(codes.Error, resp.Error.Message)
		}
	case resp.IsError:
		errType = "tool_error"
		span.SetStatus(codes.Error, "the tool returned an isError result")
	case resp.NoResponse:
		errType = "cancelled"
		span.SetStatus(codes.Error, "the client cancelled the request")
	case resp.InputRequired:
		span.SetAttributes(keyResultType.String("input_required"))
	}
	if errType != "" {
		span.SetAttributes(keyErrorType.String(errType))
	}
	if status != "" {
		span.SetAttributes(keyStatusCode.String(status))
	}
	return errType, status
}

func (t *telemetry) outgoing(next runtime.OutgoingFunc) runtime.OutgoingFunc {
	return func(ctx context.Context, req *runtime.OutgoingRequest) (json.RawMessage, error) {
		start := time.Now()
		attrs := []attribute.KeyValue{keyMethod.String(req.Method)}
		if p := req.Parent; p != nil && p.Method == "tools/call" && p.Name != "" {
			attrs = append(attrs, keyToolName.String(p.Name))
		}
		kind := trace.WithSpanKind(trace.SpanKindClient)
		key := trace.WithAttributes(keyInputKey.String(req.Key))
		stateless := req.Parent != nil && req.Parent.Stateless()
		var span trace.Span
		if !stateless {
			// A live request: the span covers the wait for the answer, and the
			// client's own handling of the question continues it.
			ctx, span = t.tracer.Start(ctx, req.Method, kind, trace.WithAttributes(attrs...), key)
			meta := propagation.MapCarrier{}
			t.prop.Inject(ctx, meta)
			req.Meta = meta
		}
		res, err := next(ctx, req)
		end := time.Now()
		if stateless {
			// 2026-07-28: the answer came with this retry; the user's time
			// began when the round that asked ended.
			if req.Waited > 0 {
				start = end.Add(-req.Waited)
			}
			_, span = t.tracer.Start(ctx, req.Method, kind, trace.WithAttributes(attrs...), key, trace.WithTimestamp(start))
		}
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
		span.End(trace.WithTimestamp(end))
		t.clientDuration.Record(ctx, end.Sub(start).Seconds(), metric.WithAttributes(attrs...))
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
