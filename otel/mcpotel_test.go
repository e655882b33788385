package mcpotel

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"
)

const (
	clientTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan   = "00f067aa0ba902b7"
	headerTrace  = "0af7651916cd43dd8448eb211c80319c"
	headerSpan   = "b7ad6b7169203331"
	traceparent  = "00-" + clientTrace + "-" + clientSpan + "-01"
	headerParent = "00-" + headerTrace + "-" + headerSpan + "-01"
)

// rig is a server instrumented with in-memory exporters.
type rig struct {
	srv    *runtime.Server
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func newRig(t *testing.T, opts runtime.Options, tools ...runtime.Tool) *rig {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	r := &rig{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	ic, err := New(Options{TracerProvider: tp, MeterProvider: mp,
		Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})})
	if err != nil {
		t.Fatal(err)
	}
	opts.Interceptors = append([]runtime.Interceptor{ic}, opts.Interceptors...)
	r.srv = runtime.NewServer(opts)
	for _, tool := range tools {
		if err := r.srv.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { r.srv.Close() })
	return r
}

func tool(name string, h runtime.ToolHandler, forms ...*runtime.Elicitation) runtime.Tool {
	def := fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, name)
	return runtime.Tool{Name: name, Definition: json.RawMessage(def), Handler: h, Elicitations: forms}
}

var confirm = &runtime.Elicitation{Name: "confirm", Mode: "form", Message: "Sure?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}

// twice elicits confirm twice.
func twice() runtime.Tool {
	return tool("twice", func(ctx context.Context, c *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
		var a struct{ OK bool }
		for range 2 {
			if err := c.Elicit(ctx, confirm, "", &a); err != nil {
				return nil, err
			}
		}
		return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("done")}}, nil
	}, confirm)
}

func echo() runtime.Tool {
	return tool("echo", func(context.Context, *runtime.Call, json.RawMessage) (*runtime.ToolResult, error) {
		return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("hi")}}, nil
	})
}

func broken() runtime.Tool {
	return tool("broken", func(context.Context, *runtime.Call, json.RawMessage) (*runtime.ToolResult, error) {
		return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: "the store is down"}
	})
}

// stdioPeer drives ServeStdio over pipes.
type stdioPeer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func startStdio(t *testing.T, s *runtime.Server) *stdioPeer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		p.done <- s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return after EOF")
		}
	})
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *runtime.Error  `json:"error"`
}

func (p *stdioPeer) recv() message {
	p.t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		p.t.Fatal(err)
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		p.t.Fatalf("%q: %v", line, err)
	}
	return m
}

func attrs(kv []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, a := range kv {
		m[string(a.Key)] = a.Value.Emit()
	}
	return m
}

func wantAttrs(t *testing.T, what string, got []attribute.KeyValue, want map[string]string) {
	t.Helper()
	g := attrs(got)
	for k, v := range want {
		if v == "" {
			if _, has := g[k]; has {
				t.Errorf("%s: has %s=%q, want none", what, k, g[k])
			}
		} else if g[k] != v {
			t.Errorf("%s: %s=%q, want %q", what, k, g[k], v)
		}
	}
}

// TestSpanTreeOfACallThatElicitsTwice: in a legacy session over stdio, a
// tools/call carrying the client's traceparent in _meta is one server span
// in the client's trace, with one client span per elicitation, each lasting
// until the user answered; the declined second answer is an answer, and the
// tool's isError result makes the server span an error.
func TestSpanTreeOfACallThatElicitsTwice(t *testing.T) {
	r := newRig(t, runtime.Options{}, twice(), broken())
	p := startStdio(t, r.srv)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":"call-2","method":"tools/call","params":{"name":"twice","arguments":{},"_meta":{"traceparent":"` + traceparent + `","tracestate":"rojo=00f067aa0ba902b7"}}}`)
	el := p.recv()
	const userTime = 30 * time.Millisecond
	time.Sleep(userTime) // the user thinking: the span must show at least this much
	p.send(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,"result":{"action":"accept","content":{"ok":true}}}`)
	el = p.recv()
	p.send(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,"result":{"action":"decline"}}`)
	if m := p.recv(); string(m.ID) != `"call-2"` || !strings.Contains(string(m.Result), `"isError":true`) {
		t.Fatalf("call: %+v %s", m, m.Result)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"broken"}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}`)
	p.recv()

	spans := r.spans.Ended()
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	call := byName["tools/call twice"]
	if len(call) != 1 {
		t.Fatalf("spans: %v", names(spans))
	}
	srv := call[0]
	if srv.SpanKind() != trace.SpanKindServer || srv.Parent().TraceID().String() != clientTrace ||
		srv.Parent().SpanID().String() != clientSpan || !srv.Parent().IsRemote() {
		t.Errorf("server span kind %v parent %v", srv.SpanKind(), srv.Parent())
	}
	if srv.SpanContext().TraceState().String() != "rojo=00f067aa0ba902b7" {
		t.Errorf("tracestate %q", srv.SpanContext().TraceState())
	}
	wantAttrs(t, "server span", srv.Attributes(), map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "twice", "gen_ai.operation.name": "execute_tool",
		"jsonrpc.request.id": "call-2", "mcp.protocol.version": "2025-11-25", "network.transport": "pipe",
		"error.type": "tool_error", "rpc.response.status_code": "",
	})
	if !strings.HasPrefix(attrs(srv.Attributes())["mcp.session.id"], "stdio-") {
		t.Errorf("mcp.session.id = %q", attrs(srv.Attributes())["mcp.session.id"])
	}
	if srv.Status().Code != codes.Error {
		t.Errorf("server span status %v", srv.Status())
	}
	asks := byName["elicitation/create"]
	if len(asks) != 2 {
		t.Fatalf("elicitation spans: %v", names(spans))
	}
	for i, want := range []struct{ key, outcome string }{{"confirm", "answered"}, {"confirm_2", "declined"}} {
		s := asks[i]
		if s.SpanKind() != trace.SpanKindClient || s.Parent().SpanID() != srv.SpanContext().SpanID() ||
			s.SpanContext().TraceID() != srv.SpanContext().TraceID() {
			t.Errorf("elicitation %d: kind %v parent %v", i, s.SpanKind(), s.Parent())
		}
		wantAttrs(t, "elicitation "+want.key, s.Attributes(), map[string]string{
			"mcp.method.name": "elicitation/create", "mcpgen.answer.outcome": want.outcome,
			"mcpgen.input_request.key": want.key, "gen_ai.tool.name": "twice", "error.type": "",
		})
		if s.Status().Code != codes.Unset {
			t.Errorf("elicitation %s status %v", want.key, s.Status())
		}
	}
	if d := asks[0].EndTime().Sub(asks[0].StartTime()); d < userTime {
		t.Errorf("the first elicitation's span lasted %v, less than the user's %v", d, userTime)
	}

	b := byName["tools/call broken"]
	if len(b) != 1 || b[0].Status().Code != codes.Error || b[0].Status().Description != "the store is down" {
		t.Fatalf("broken: %v", b)
	}
	wantAttrs(t, "broken", b[0].Attributes(), map[string]string{"error.type": "-32603", "rpc.response.status_code": "-32603"})
	n := byName["tools/call nope"]
	if len(n) != 1 || n[0].Status().Code != codes.Unset {
		t.Fatalf("unknown tool: %v", n)
	}
	wantAttrs(t, "unknown tool", n[0].Attributes(), map[string]string{"error.type": "", "rpc.response.status_code": "-32602"})
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var n []string
	for _, s := range spans {
		n = append(n, s.Name())
	}
	return n
}

// post sends one 2026-07-28 request over HTTP.
func post(t *testing.T, url string, id int, method string, params map[string]any, header http.Header) message {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
	meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
	params["_meta"] = meta
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m message
	if err := json.Unmarshal([]byte(strings.TrimPrefix(string(b), "data: ")), &m); err != nil {
		t.Fatalf("HTTP %d %q: %v", resp.StatusCode, b, err)
	}
	return m
}

// TestTraceContextFromMetaAndHeaders: over HTTP in 2026-07-28 the span
// continues the trace of params._meta when it has one, linking the
// traceparent header; without one in _meta, the header's trace.
func TestTraceContextFromMetaAndHeaders(t *testing.T) {
	r := newRig(t, runtime.Options{}, echo())
	ts := httptest.NewServer(r.srv)
	t.Cleanup(ts.Close)
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	h := http.Header{"Traceparent": {headerParent}}

	post(t, ts.URL, 1, "tools/call", map[string]any{"name": "echo", "_meta": map[string]any{"traceparent": traceparent}}, h)
	post(t, ts.URL, 2, "tools/call", map[string]any{"name": "echo"}, h)
	post(t, ts.URL, 3, "tools/list", nil, nil)
	spans := r.spans.Ended()
	if len(spans) != 3 {
		t.Fatalf("spans: %v", names(spans))
	}
	meta, header, none := spans[0], spans[1], spans[2]
	if meta.Parent().TraceID().String() != clientTrace || meta.Parent().SpanID().String() != clientSpan {
		t.Errorf("_meta parent: %v", meta.Parent())
	}
	if l := meta.Links(); len(l) != 1 || l[0].SpanContext.TraceID().String() != headerTrace {
		t.Errorf("_meta links: %v", l)
	}
	if header.Parent().TraceID().String() != headerTrace || header.Parent().SpanID().String() != headerSpan || len(header.Links()) != 0 {
		t.Errorf("header parent: %v links %v", header.Parent(), header.Links())
	}
	if none.Parent().IsValid() {
		t.Errorf("tools/list without context has parent %v", none.Parent())
	}
	wantAttrs(t, "2026-07-28 span", meta.Attributes(), map[string]string{
		"mcp.protocol.version": "2026-07-28", "mcp.session.id": "", "network.transport": "tcp",
		"network.protocol.name": "http", "network.protocol.version": "1.1", "client.address": "127.0.0.1",
		"jsonrpc.request.id": "1",
	})
}

// TestMetricsAfterAKnownLoad: the recorded metrics match a known sequence of
// calls over a legacy HTTP session.
func TestMetricsAfterAKnownLoad(t *testing.T) {
	r := newRig(t, runtime.Options{}, echo(), broken())
	ts := httptest.NewServer(r.srv)
	t.Cleanup(ts.Close)
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	session := ""
	send := func(body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	session = resp.Header.Get("Mcp-Session-Id")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := range 3 {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo"}}`, 10+i))
	}
	send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"broken"}}`)
	send(`{"jsonrpc":"2.0","id":21,"method":"tools/list"}`)

	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					got[m.Name+" "+key(p.Attributes)] = int64(p.Count)
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					got[m.Name+" "+key(p.Attributes)] = p.Value
				}
			}
		}
	}
	want := map[string]int64{
		"mcp.server.operation.duration initialize":               1,
		"mcp.server.operation.duration tools/call echo":          3,
		"mcp.server.operation.duration tools/call broken -32603": 1,
		"mcp.server.operation.duration tools/list":               1,
		"mcpgen.server.active_requests initialize":               0,
		"mcpgen.server.active_requests tools/call echo":          0,
		"mcpgen.server.active_requests tools/call broken":        0,
		"mcpgen.server.active_requests tools/list":               0,
		"mcpgen.server.active_sessions ":                         1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("metrics: %v", got)
	}

	req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", session)
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
	}
	rm = metricdata.ResourceMetrics{}
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var sessions, durations int64 = -1, 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case "mcpgen.server.active_sessions":
				sessions = m.Data.(metricdata.Sum[int64]).DataPoints[0].Value
			case "mcp.server.session.duration":
				durations = int64(m.Data.(metricdata.Histogram[float64]).DataPoints[0].Count)
			}
		}
	}
	if sessions != 0 || durations != 1 {
		t.Errorf("after DELETE: %d open sessions, %d session durations", sessions, durations)
	}
}

// key names a data point by its method, tool and error type.
func key(set attribute.Set) string {
	var parts []string
	for _, k := range []attribute.Key{keyMethod, keyToolName, keyErrorType} {
		if v, ok := set.Value(k); ok {
			parts = append(parts, v.Emit())
		}
	}
	return strings.Join(parts, " ")
}
