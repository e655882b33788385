package runtime

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
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
	s          *Server
	sealer     *stateSealer
	listen     *listenHub
	serverInfo json.RawMessage // serverInfoJSON, for every result's _meta
}

func newModernCore(s *Server) *modernCore {
	sealer, err := newStateSealer(s.opts.StateKey)
	if err != nil {
		// crypto/rand does not fail on supported platforms; a server that
		// cannot seal state must not run with a guessable key.
		panic(err)
	}
	return &modernCore{s: s, sealer: sealer, listen: newListenHub(), serverInfo: serverInfoJSON(s.opts)}
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
	params *modernParams
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

// serverInfoJSON is the Implementation object that identifies this server,
// encoded once.
func serverInfoJSON(opts Options) json.RawMessage {
	name, version := opts.Name, opts.Version
	if name == "" {
		name = "mcpgen"
	}
	if version == "" {
		version = "0.0.0"
	}
	b, _ := json.Marshal(struct {
		Name    string `json:"name"`
		Title   string `json:"title,omitempty"`
		Version string `json:"version"`
	}{name, opts.Title, version})
	return b
}

// complete encodes v as a complete result.
func (m *modernCore) complete(v any) modernReply { return m.result("complete", v, nil) }

// result encodes v (a JSON object without _meta) with resultType and a _meta
// holding extra plus the serverInfo that every 2026-07-28 result carries. It
// appends to v's encoding instead of decoding and re-encoding it.
func (m *modernCore) result(resultType string, v any, extra map[string]json.RawMessage) modernReply {
	b, err := json.Marshal(v)
	if err != nil || len(b) < 2 || b[0] != '{' {
		return replyError(0, NewError(CodeInternalError, "encoding the result: %v", err))
	}
	buf := make([]byte, 0, len(b)+len(m.serverInfo)+96)
	buf = append(buf, b[:len(b)-1]...)
	if len(b) > 2 {
		buf = append(buf, ',')
	}
	buf = append(buf, `"resultType":`...)
	buf = strconv.AppendQuote(buf, resultType)
	buf = append(buf, `,"_meta":{`...)
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		buf = strconv.AppendQuote(buf, k)
		buf = append(buf, ':')
		buf = append(buf, extra[k]...)
		buf = append(buf, ',')
	}
	buf = strconv.AppendQuote(buf, metaServerInfo)
	buf = append(buf, ':')
	buf = append(buf, m.serverInfo...)
	buf = append(buf, "}}"...)
	return modernReply{result: buf}
}

// tool returns the registered tool called name, or nil.
func (m *modernCore) tool(name string) *registeredTool {
	m.s.mu.RLock()
	defer m.s.mu.RUnlock()
	return m.s.byName[name]
}
