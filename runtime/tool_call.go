package runtime

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// legacyCallParams are the params of tools/call that the legacy era reads.
type legacyCallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// scan reads the params (valid JSON, from a decoded message) without
// reflection; the tool name is returned as bytes so that looking it up does
// not allocate. ok is false when encoding/json must decide (escapes, a
// name that is not a string).
func (p *legacyCallParams) scan(params []byte) (name []byte, ok bool) {
	if len(params) == 0 {
		return nil, true
	}
	ok = eachMember(params, func(k, v []byte) bool {
		switch string(k) {
		case "name":
			end, esc := scanString(v, 0)
			if end != len(v) || esc {
				return false
			}
			name = v[1 : len(v)-1]
		case "arguments":
			p.Arguments = v
		case "_meta":
			if v[0] == '{' {
				return eachMember(v, func(k, v []byte) bool {
					if string(k) == "progressToken" {
						p.Meta.ProgressToken = v
					}
					return true
				})
			}
		}
		return true
	})
	return name, ok
}

// callTool runs tools/call in a legacy session: arguments are validated
// against the tool's compiled inputSchema before the handler runs (a failure
// is an isError result the model can read), handler panics are recovered.
func (s *Server) callTool(ctx context.Context, sess *session, msg *message, snd *requestScopedSender) (any, *Error) {
	var p legacyCallParams
	name, ok := p.scan(msg.Params)
	if !ok {
		if err := json.Unmarshal(orEmpty(msg.Params), &p); err != nil {
			return nil, &Error{Code: CodeInvalidParams, Message: "tools/call: " + err.Error()}
		}
		name = []byte(p.Name)
	}
	s.mu.RLock()
	tool := s.byName[string(name)]
	s.mu.RUnlock()
	if tool == nil {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("tools/call: unknown tool %q", name)}
	}
	args, verr := tool.checkArguments(p.Arguments)
	if verr != nil {
		return nil, verr
	}
	if res := tool.validate(args); res != nil {
		return res, nil
	}
	_, caps := sess.snapshot()
	peer := &legacyPeer{sess: sess, sender: snd, parent: msg.ID, caps: caps, progress: p.Meta.ProgressToken}
	call := newCall(peer, nil, newElicitationID)
	res, err := s.runHandler(ctx, tool, call, args)
	return s.toolOutcome(tool.Name, res, err)
}

// checkArguments returns the arguments object ({} when absent); anything but
// an object is invalid params.
func (t *registeredTool) checkArguments(raw json.RawMessage) (json.RawMessage, *Error) {
	raw = trimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] != '{' {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("tools/call: arguments of %q must be an object", t.Name)}
	}
	return raw, nil
}

// validate checks args against the compiled inputSchema and returns the
// isError result that tells the model what was wrong, or nil.
func (t *registeredTool) validate(args json.RawMessage) *ToolResult {
	if t.flat != nil && t.flat.accepts(args) {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return toolErrorResult(fmt.Errorf("invalid arguments for tool %q: %v", t.Name, err))
	}
	err := t.input.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return toolErrorResult(fmt.Errorf("invalid arguments for tool %q: %v", t.Name, err))
	}
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := e.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			lines = append(lines, loc+": "+e.Message)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return toolErrorResult(fmt.Errorf("invalid arguments for tool %q: %s", t.Name, strings.Join(lines, "; ")))
}

// runHandler calls the tool's handler, turning a panic into an error.
func (s *Server) runHandler(ctx context.Context, t *registeredTool, call *Call, args json.RawMessage) (res *ToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.logger.Error("tool handler panicked", slog.String("tool", t.Name),
				slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
			res, err = nil, errHandlerPanic
		}
	}()
	return t.Handler(ctx, call, args)
}

var errHandlerPanic = &Error{Code: CodeInternalError, Message: "internal error: the tool handler panicked"}

// toolOutcome maps a handler's return to the tools/call response.
func (s *Server) toolOutcome(name string, res *ToolResult, err error) (any, *Error) {
	if err == nil {
		if res == nil {
			res = &ToolResult{}
		}
		return res, nil
	}
	var rpcErr *Error
	switch {
	case errors.As(err, &rpcErr):
		return nil, rpcErr
	case errors.Is(err, ErrCapabilityMissing):
		return nil, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("tool %q: %v", name, err)}
	case errors.Is(err, ErrInputRequired):
		return nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("tool %q: input_required is not available before 2026-07-28", name)}
	}
	return toolErrorResult(err), nil
}

// newElicitationID returns a random elicitationId for URL-mode elicitations.
func newElicitationID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
