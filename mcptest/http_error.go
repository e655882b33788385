package mcptest

import (
	"fmt"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime"
)

// HTTPError is an HTTP response that refused a request with a status other
// than 2xx, for the tests that care how it was refused: a server with
// Options.Auth answers a token without a target's scopes with 403 and an
// insufficient_scope challenge in WWW-Authenticate, where a method's own
// check would answer a JSON-RPC error with 200. The JSON-RPC error of its
// body, when it has one, is reachable with errors.As (*runtime.Error).
type HTTPError struct {
	StatusCode int
	Header     http.Header
	// RPC is the JSON-RPC error of the body; nil when the body held none.
	RPC *runtime.Error
	// Body is the start of a body that held no JSON-RPC error.
	Body string
}

func (e *HTTPError) Error() string {
	status := fmt.Sprintf("HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.RPC != nil {
		return status + ": " + e.RPC.Error()
	}
	return status + ": " + e.Body
}

// Unwrap returns the JSON-RPC error of the body, if any.
func (e *HTTPError) Unwrap() error {
	if e.RPC == nil {
		return nil
	}
	return e.RPC
}
