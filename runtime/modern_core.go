package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Cache hints of 2026-07-28 list results (ttlMs, cacheScope). The tool list
// does not vary per client, so any cache may share it; a listen stream hears
// of changes sooner than the TTL.
const (
	modernListTTL    = time.Minute
	modernCacheScope = "public"
)

// modernCore is the per-Server state of the 2026-07-28 stateless core: the
// sealer for requestState and the subscriptions/listen streams (the
// x-mcp-header parameters live on each registeredTool, parsed by AddTool). Nothing in it belongs to a client:
// every request carries what the server needs to know about its client.
type modernCore struct {
	s      *Server
	sealer *stateSealer
	listen *listenHub
}

func newModernCore(s *Server) *modernCore {
	sealer, err := newStateSealer(s.opts.StateKey)
	if err != nil {
		// crypto/rand does not fail on supported platforms; a server that
		// cannot seal state must not run with a guessable key.
		panic(err)
	}
	return &modernCore{s: s, sealer: sealer, listen: newListenHub()}
}

// modernStream carries notifications related to one request back to its
// client: on HTTP the request's own response stream, on stdio the output.
type modernStream interface {
	notify(ctx context.Context, method string, params any) error
}

// modernReply is the outcome of one request: a result, or an error with the
// HTTP status it travels with (0 means 200).
type modernReply struct {
	result json.RawMessage
	err    *Error
	status int
}

func replyError(status int, e *Error) modernReply { return modernReply{err: e, status: status} }

// modernRequest is one 2026-07-28 request whose _meta has been validated.
type modernRequest struct {
	msg    *message
	meta   *requestMeta
	header http.Header // nil on stdio (no Mcp-Param-* checks there)
}

// dispatch serves one request of the stateless core. Methods that 2026-07-28
// removed (initialize, ping, logging/setLevel, resources/subscribe, ...) and
// methods this server does not serve are 404 + -32601.
func (m *modernCore) dispatch(ctx context.Context, req *modernRequest, stream modernStream) modernReply {
	switch req.msg.Method {
	case "server/discover":
		return m.discover()
	case "tools/list":
		return m.listTools(req)
	case "tools/call":
		return m.callTool(ctx, req, stream)
	case "subscriptions/listen":
		return m.subscribe(ctx, req, stream)
	}
	return replyError(http.StatusNotFound, NewError(CodeMethodNotFound, "method %q is not available in protocol %s", req.msg.Method, Version20260728))
}

// discover answers server/discover.
func (m *modernCore) discover() modernReply {
	res := struct {
		SupportedVersions []string `json:"supportedVersions"`
		Capabilities      any      `json:"capabilities"`
		Instructions      string   `json:"instructions,omitempty"`
		TTLMs             int64    `json:"ttlMs"`
		CacheScope        string   `json:"cacheScope"`
	}{
		SupportedVersions: modernVersions,
		Capabilities: map[string]any{
			"tools":   map[string]bool{"listChanged": true},
			"logging": struct{}{},
		},
		Instructions: m.s.opts.Instructions,
		TTLMs:        modernListTTL.Milliseconds(),
		CacheScope:   modernCacheScope,
	}
	return m.complete(res)
}

// serverInfo is the Implementation object that identifies this server.
func (m *modernCore) serverInfo() any {
	name, version := m.s.opts.Name, m.s.opts.Version
	if name == "" {
		name = "mcpgen"
	}
	if version == "" {
		version = "0.0.0"
	}
	return struct {
		Name    string `json:"name"`
		Title   string `json:"title,omitempty"`
		Version string `json:"version"`
	}{name, m.s.opts.Title, version}
}

// complete encodes v as a complete result.
func (m *modernCore) complete(v any) modernReply { return m.result("complete", v) }

// result encodes v (a JSON object) with resultType and the serverInfo _meta
// that every 2026-07-28 result carries.
func (m *modernCore) result(resultType string, v any) modernReply {
	b, err := json.Marshal(v)
	if err != nil {
		return replyError(0, NewError(CodeInternalError, "encoding the result: %v", err))
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &obj); err != nil {
		return replyError(0, NewError(CodeInternalError, "encoding the result: not an object"))
	}
	obj["resultType"], _ = json.Marshal(resultType)
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	meta[metaServerInfo], _ = json.Marshal(m.serverInfo())
	obj["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(obj)
	if err != nil {
		return replyError(0, NewError(CodeInternalError, "encoding the result: %v", err))
	}
	return modernReply{result: out}
}

// tool returns the registered tool called name, or nil.
func (m *modernCore) tool(name string) *registeredTool {
	m.s.mu.RLock()
	defer m.s.mu.RUnlock()
	return m.s.byName[name]
}
