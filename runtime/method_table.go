package runtime

import (
	"context"
	"net/http"
)

// methodTable is every MCP method the runtime serves, each implemented by one
// function in a file of its own (method_*.go), and the eras that have it. The
// same function serves legacy sessions over HTTP, 2026-07-28 over HTTP and
// both eras over stdio; what differs by era reaches it through request.era.
var methodTable = map[string]methodEntry{
	"initialize":           {legacyEra, (*Server).initialize},
	"ping":                 {legacyEra, (*Server).ping},
	"logging/setLevel":     {legacyEra, (*Server).setLogLevel},
	"server/discover":      {modernEra, (*Server).discover},
	"subscriptions/listen": {modernEra, (*Server).listen},
	"tools/list":           {everyEra, (*Server).listTools},
	"tools/call":           {everyEra, (*Server).callTool},

	"prompts/list":             {everyEra, (*Server).listPrompts},
	"prompts/get":              {everyEra, (*Server).getPrompt},
	"resources/list":           {everyEra, (*Server).listResources},
	"resources/templates/list": {everyEra, (*Server).listResourceTemplates},
	"resources/read":           {everyEra, (*Server).readResource},
	"resources/subscribe":      {legacyEra, (*Server).subscribeResource},
	"resources/unsubscribe":    {legacyEra, (*Server).unsubscribeResource},
	"completion/complete":      {everyEra, (*Server).complete},

	"tasks/get":    {everyEra, (*Server).getTask},
	"tasks/cancel": {everyEra, (*Server).cancelTask},
	"tasks/result": {legacyEra, (*Server).taskResult},
	"tasks/list":   {legacyEra, (*Server).listTasks},
	"tasks/update": {modernEra, (*Server).updateTask},
}

// methodEntry is one row of the method table.
type methodEntry struct {
	eras  eraKind
	serve func(s *Server, ctx context.Context, rq *request) outcome
}

// serve runs one request: through Options.Interceptors when there are any
// (interceptor_chain.go), which end in serveMethod.
func (s *Server) serve(ctx context.Context, rq *request) outcome {
	if s.icpt != nil {
		return s.intercepted(ctx, rq)
	}
	return s.serveMethod(ctx, rq)
}

// serveMethod runs one request's method. A method the request's era lacks is
// -32601 (which 2026-07-28 sends with HTTP 404). Every request counts for
// graceful shutdown while it runs; once the server is draining, new ones
// are refused.
func (s *Server) serveMethod(ctx context.Context, rq *request) outcome {
	m, ok := methodTable[rq.method]
	switch {
	case !ok:
		return failure(NewError(CodeMethodNotFound, "method not found: %s", rq.method))
	case m.eras&rq.era.kind() == 0 && m.eras == modernEra:
		return failure(NewError(CodeMethodNotFound, "method %q is only available in protocol %s", rq.method, Version20260728))
	case m.eras&rq.era.kind() == 0:
		return failure(NewError(CodeMethodNotFound, "method %q is not available in protocol %s", rq.method, Version20260728))
	case rq.params.err != nil:
		return outcome{err: rq.params.err, status: http.StatusBadRequest}
	}
	if !s.calls.add() {
		return outcome{err: errShuttingDown, status: http.StatusServiceUnavailable}
	}
	defer s.calls.done()
	return m.serve(s, ctx, rq)
}

// errShuttingDown answers requests that arrive once Shutdown has begun.
var errShuttingDown = &Error{Code: CodeInternalError, Message: "the server is shutting down"}
