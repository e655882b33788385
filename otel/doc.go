// Package mcpotel instruments an mcpgen runtime.Server with OpenTelemetry
// traces and metrics. It is a module of its own, so the runtime module keeps
// no OpenTelemetry dependency; it uses only the OpenTelemetry API, and the
// application chooses the SDK and exporters.
//
//	ic, err := mcpotel.New(mcpotel.Options{}) // the global providers and propagator
//	srv := runtime.NewServer(runtime.Options{Interceptors: []runtime.Interceptor{ic}})
//
// # Conventions
//
// Names follow the OpenTelemetry semantic conventions for MCP (status
// Development), which moved from open-telemetry/semantic-conventions
// (docs/gen-ai/mcp.md, model/mcp, core releases v1.39.0 to v1.41.1) to
// open-telemetry/semantic-conventions-genai (model/mcp/*.yaml,
// docs/gen-ai/mcp.md). The keys are declared here rather than imported
// from a semconv package, since the newest Go semconv packages have
// dropped them.
//
// Spans:
//
//   - Every client request gets a SERVER span named "{mcp.method.name}
//     {gen_ai.tool.name}" for tools/call and "{mcp.method.name}" otherwise,
//     with mcp.method.name, jsonrpc.request.id, mcp.protocol.version,
//     mcp.session.id (legacy sessions only: the conventions forbid it for
//     2026-07-28), gen_ai.tool.name and gen_ai.operation.name=execute_tool
//     (tools/call), network.transport (tcp over HTTP, pipe over stdio),
//     network.protocol.name/version and client.address/port (HTTP).
//   - Every request the server sends the client (elicitation/create,
//     sampling/createMessage, roots/list) gets a CLIENT span, a child of the
//     request's span: in a legacy session it lasts until the client
//     answers, so its duration is the time the user took. It carries
//     mcp.method.name and mcpgen.answer.outcome (answered, declined,
//     cancelled, expired, input_required, failed) and
//     mcpgen.input_request.key. In 2026-07-28 a question ends its round:
//     its span ends at once with outcome input_required, and the retry
//     that carries the answer has a span with that answer; the user's time
//     passes between the two rounds, on the client.
//   - Status and errors: a JSON-RPC error sets rpc.response.status_code to
//     its code. The codes the conventions count as the caller's mistake
//     (-32700, -32600, -32601, -32602, -32002) leave the status unset; any
//     other code sets error.type to the code and the status to Error with
//     the error's message. A tools/call result with isError sets
//     error.type=tool_error and status Error. A request the client
//     cancelled (no response) sets error.type=cancelled. An expired or
//     failed question sets error.type to its outcome on its span; a declined
//     or cancelled one is an answer, not an error (the tool's own span
//     reports what the tool made of it). A 2026-07-28 round that ends with
//     questions carries mcpgen.result_type=input_required.
//
// Trace context: the parent of a request's span is taken, as the
// conventions and MCP 2026-07-28 (SEP-414) say, from params._meta
// ("traceparent", "tracestate", "baggage"); when _meta carries none, from
// the HTTP request's headers. The other context (the headers when _meta
// won, and the ambient span of the context, such as an HTTP server span)
// becomes a span link.
//
// Metrics (histograms in seconds with the conventions' bucket boundaries
// 0.01 ... 300):
//
//   - mcp.server.operation.duration: per request, with mcp.method.name,
//     gen_ai.tool.name, gen_ai.operation.name, mcp.protocol.version,
//     network.transport, network.protocol.name, error.type and
//     rpc.response.status_code.
//   - mcp.client.operation.duration: per server-to-client request (the
//     server is the client here), with mcp.method.name, gen_ai.tool.name of
//     the asking tool, mcpgen.answer.outcome and error.type. For
//     elicitation/create in a legacy session this is the user's waiting
//     time.
//   - mcp.server.session.duration: per legacy session that ended, with
//     mcp.protocol.version and network.transport.
//
// and, outside the conventions, under the mcpgen. prefix:
//
//   - mcpgen.server.active_requests (UpDownCounter): requests being served,
//     by mcp.method.name and gen_ai.tool.name;
//   - mcpgen.server.active_sessions (UpDownCounter): open legacy sessions,
//     by mcp.protocol.version and network.transport;
//   - mcpgen.server.active_streams (UpDownCounter): open streams, by
//     mcpgen.stream.kind (sse, listen);
//   - mcpgen.server.client_requests (Counter): server-to-client requests by
//     mcp.method.name and mcpgen.answer.outcome;
//   - mcpgen.server.backpressure.duration (Histogram, s): how long senders
//     waited for room in a full stream buffer.
package mcpotel
