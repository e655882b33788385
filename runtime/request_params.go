package runtime

import "encoding/json"

// requestParams is the params object of one client request, decoded once
// (message.params caches it) for everyone who reads it: era routing, the
// 2026-07-28 header and _meta checks, and the method. Members the runtime
// does not read are skipped. Keys match exactly, as JSON Schema validation
// sees them (encoding/json would also take "Name" for "name").
type requestParams struct {
	// Members of the methods the runtime serves; nil when absent.
	Name           *string             // tools/call, prompts/get
	URI            *string             // resources/read
	TaskID         *string             // tasks/*
	Cursor         *string             // */list
	Level          *string             // logging/setLevel
	RequestState   *string             // 2026-07-28 retries
	Arguments      json.RawMessage     // tools/call, prompts/get
	InputResponses json.RawMessage     // 2026-07-28 retries
	Notifications  *subscriptionFilter // subscriptions/listen
	RequestID      json.RawMessage     // notifications/cancelled
	// initialize.
	ProtocolVersion *string
	Capabilities    json.RawMessage
	ClientInfo      json.RawMessage

	// Meta holds the members of params._meta, raw; nil when _meta is absent
	// or not an object.
	Meta rawMeta
	// ProgressToken is _meta.progressToken when it is a valid token.
	ProgressToken json.RawMessage

	// err is the first member of the wrong type (-32602). The members before
	// and after it are still decoded, so that the era is known and a
	// 2026-07-28 request reports its header and _meta problems first.
	err *Error
}

// rawMeta is the params._meta object, each value kept raw.
type rawMeta map[string]json.RawMessage

// params returns the message's params, decoded on first use.
func (m *message) params() *requestParams {
	if m.decoded == nil {
		m.decoded = decodeParams(m.Params)
	}
	return m.decoded
}

// decodeParams decodes a params object (valid JSON from a decoded message;
// absent or null params are an empty object).
func decodeParams(raw json.RawMessage) *requestParams {
	p := &requestParams{}
	raw = trimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return p
	}
	if raw[0] != '{' {
		p.err = NewError(CodeInvalidParams, "params must be an object")
		return p
	}
	str := func(dst **string, key []byte, v []byte) {
		s, ok := jsonString(v)
		if !ok {
			p.fail(key, "a string")
			return
		}
		*dst = &s
	}
	eachMemberExact(raw, func(key, v []byte) {
		switch string(key) {
		case "name":
			str(&p.Name, key, v)
		case "uri":
			str(&p.URI, key, v)
		case "taskId":
			str(&p.TaskID, key, v)
		case "cursor":
			str(&p.Cursor, key, v)
		case "level":
			str(&p.Level, key, v)
		case "requestState":
			str(&p.RequestState, key, v)
		case "protocolVersion":
			str(&p.ProtocolVersion, key, v)
		case "arguments":
			p.Arguments = v
		case "inputResponses":
			p.InputResponses = v
		case "requestId":
			p.RequestID = v
		case "capabilities":
			p.Capabilities = v
		case "clientInfo":
			p.ClientInfo = v
		case "notifications":
			var f subscriptionFilter
			if v[0] != '{' || json.Unmarshal(v, &f) != nil {
				p.fail(key, "an object of booleans and a resourceSubscriptions array of strings")
				return
			}
			p.Notifications = &f
		case "_meta":
			if v[0] != '{' {
				return
			}
			p.Meta = rawMeta{}
			eachMemberExact(v, func(key, v []byte) { p.Meta[string(key)] = v })
			if tok, ok := p.Meta["progressToken"]; ok && validID(tok) {
				p.ProgressToken = tok
			}
		}
	})
	return p
}

func (p *requestParams) fail(key []byte, want string) {
	if p.err == nil {
		p.err = NewError(CodeInvalidParams, "params.%s must be %s", key, want)
	}
}

// mcpName is the body value that the 2026-07-28 Mcp-Name header must
// carry: params.name for tools/call and prompts/get, params.uri for
// resources/read, params.taskId for the tasks methods.
func (p *requestParams) mcpName(method string) (string, bool) {
	var v *string
	switch method {
	case "tools/call", "prompts/get":
		v = p.Name
	case "resources/read":
		v = p.URI
	case "tasks/get", "tasks/update", "tasks/cancel":
		v = p.TaskID
	}
	if v == nil {
		return "", false
	}
	return *v, true
}

// modern reports whether params._meta carries any of the
// io.modelcontextprotocol/ request keys that only 2026-07-28 clients send.
func (p *requestParams) modern() bool {
	for _, k := range [...]string{metaProtocolVersion, metaClientCapabilities, metaClientInfo, metaLogLevel} {
		if _, ok := p.Meta[k]; ok {
			return true
		}
	}
	return false
}

// eachMemberExact calls fn with each member of the JSON object raw (valid
// JSON), its key unescaped. A repeated key is passed each time, so the last
// one wins, as in encoding/json and in JSON Schema validation.
func eachMemberExact(raw []byte, fn func(key, value []byte)) {
	i := skipWS(raw, 0) + 1 // past '{'
	for {
		i = skipWS(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return
		}
		if raw[i] == ',' {
			i = skipWS(raw, i+1)
		}
		end, esc := scanString(raw, i)
		if end < 0 {
			return
		}
		key := raw[i+1 : end-1]
		if esc {
			s, _ := jsonString(raw[i:end])
			key = []byte(s)
		}
		i = skipWS(raw, end) + 1 // past ':'
		i = skipWS(raw, i)
		vEnd := skipValue(raw, i)
		if vEnd < 0 {
			return
		}
		fn(key, raw[i:vEnd])
		i = vEnd
	}
}

// jsonString decodes a JSON string value; ok is false for any other value.
func jsonString(v []byte) (string, bool) {
	end, esc := scanString(v, 0)
	if end != len(v) {
		return "", false
	}
	if !esc {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}
