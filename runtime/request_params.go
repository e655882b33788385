package runtime

import (
	"encoding/json"
	"reflect"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// requestParams is the params object of one client request, decoded once
// (message.params caches it) for everyone who reads it: era routing, the
// 2026-07-28 header and _meta checks, and the method. Members the runtime
// does not read are skipped. Keys match exactly, as JSON Schema validation
// sees them (encoding/json would also take "Name" for "name").
type requestParams struct {
	// Members of the methods the runtime serves; nil when absent.
	Name           []byte              // tools/call, prompts/get: unescaped, not copied (looking a tool up allocates nothing)
	URI            *string             // resources/read
	Cursor         *string             // */list
	Level          *string             // logging/setLevel
	RequestState   *string             // 2026-07-28 retries
	Arguments      json.RawMessage     // tools/call, prompts/get
	InputResponses json.RawMessage     // 2026-07-28 retries
	Notifications  *subscriptionFilter // subscriptions/listen
	NotifyFilter   json.RawMessage     // subscriptions/listen: notifications as sent, for extensions' members
	Ref            json.RawMessage     // completion/complete
	Argument       json.RawMessage     // completion/complete
	Context        json.RawMessage     // completion/complete
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

// paramSet names members of requestParams: a method's row says which it
// reads (method_table.go), and only those are decoded, with _meta always.
type paramSet uint32

const (
	pName paramSet = 1 << iota
	pURI
	pCursor
	pLevel
	pRequestState
	pArguments
	pInputResponses
	pNotifications
	pRef
	pArgument
	pContext
	pRequestID
	pProtocolVersion
	pCapabilities
	pClientInfo
)

// members maps each member's key to its bit.
var members = map[string]paramSet{
	"name": pName, "uri": pURI, "cursor": pCursor, "level": pLevel,
	"requestState": pRequestState, "arguments": pArguments, "inputResponses": pInputResponses,
	"notifications": pNotifications, "ref": pRef, "argument": pArgument, "context": pContext,
	"requestId": pRequestID, "protocolVersion": pProtocolVersion,
	"capabilities": pCapabilities, "clientInfo": pClientInfo,
}

// decodeParams decodes the members want names, and _meta, of a params
// object into p (valid JSON from a decoded message; absent or null params
// are an empty object). Other members are skipped: they are not the
// method's, so they cannot make its request malformed.
func decodeParams(p *requestParams, raw json.RawMessage, want paramSet) {
	raw = trimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	if raw[0] != '{' {
		p.err = NewError(CodeInvalidParams, "params must be an object")
		return
	}
	str := func(dst **string, key []byte, v []byte) {
		s, ok := jsonscan.String(v)
		if !ok {
			p.fail(key, v, "string")
			return
		}
		*dst = &s
	}
	jsonscan.EachMember(raw, func(key, v []byte) bool {
		if members[string(key)]&want == 0 && string(key) != "_meta" {
			return true
		}
		switch string(key) {
		case "name":
			if end, esc := jsonscan.ScanString(v, 0); end == len(v) && !esc {
				p.Name = v[1 : len(v)-1]
			} else if s, ok := jsonscan.String(v); ok {
				p.Name = []byte(s)
			} else {
				p.fail(key, v, "string")
			}
		case "uri":
			str(&p.URI, key, v)
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
		case "ref":
			p.Ref = v
		case "argument":
			p.Argument = v
		case "context":
			p.Context = v
		case "requestId":
			p.RequestID = v
		case "capabilities":
			p.Capabilities = v
		case "clientInfo":
			p.ClientInfo = v
		case "notifications":
			var f subscriptionFilter
			if v[0] == '{' && json.Unmarshal(v, &f) == nil {
				p.Notifications, p.NotifyFilter = &f, v
			} else if e := typeMismatch(v, reflect.TypeFor[subscriptionFilter](), "/notifications"); e != nil {
				p.failWith(e)
			} else {
				p.fail(key, v, "object")
			}
		case "_meta":
			p.Meta = rawMeta{}
			if !jsonscan.EachMember(v, func(key, v []byte) bool { p.Meta[string(key)] = v; return true }) {
				p.Meta = nil // not an object
			}
			if tok, ok := p.Meta["progressToken"]; ok && validID(tok) {
				p.ProgressToken = tok
			}
		}
		return true
	})
}

// fail records that member key holds v, which is not of JSON type want
// (worded as DecodeParams words it for extension methods).
func (p *requestParams) fail(key, v []byte, want string) {
	p.failWith(invalidParams("/"+pointerToken(string(key)), want, jsonKind(v)))
}

func (p *requestParams) failWith(e *Error) {
	if p.err == nil {
		p.err = e
	}
}

// member returns the string member m (pName or pURI) and whether
// it is present: the body value the 2026-07-28 Mcp-Name header repeats.
func (p *requestParams) member(m paramSet) (string, bool) {
	var v *string
	switch m {
	case pName:
		if p.Name == nil {
			return "", false
		}
		return string(p.Name), true
	case pURI:
		v = p.URI
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

// The reserved _meta keys of 2026-07-28 requests and results.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	metaReservedPrefix     = "io.modelcontextprotocol/"
)

// subscriptionFilter is the notifications a subscriptions/listen request
// opts in to. The server honours the kinds it has registered something
// for (tools, prompts, resources) and leaves the others out of its
// acknowledgement.
type subscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}
