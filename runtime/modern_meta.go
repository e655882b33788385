package runtime

import (
	"bytes"
	"encoding/json"
	"slices"
)

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

// requestMeta is what the server acts on of a 2026-07-28 request's
// params._meta (clientInfo is only checked to be an object). There is no
// session: every request carries all of it.
type requestMeta struct {
	ProtocolVersion string
	Capabilities    ClientCapabilities
	LogLevel        LogLevel // "" when absent: send no notifications/message
}

// parseRequestMeta validates params._meta of a 2026-07-28 request. Its error
// is -32602 (HTTP 400): protocolVersion and clientCapabilities are required,
// clientInfo is not.
func parseRequestMeta(meta rawMeta) (*requestMeta, *Error) {
	if meta == nil {
		return nil, NewError(CodeInvalidParams, "params._meta is required in protocol %s: it must carry %s and %s",
			Version20260728, metaProtocolVersion, metaClientCapabilities)
	}
	m := &requestMeta{}
	raw, ok := meta[metaProtocolVersion]
	if !ok || json.Unmarshal(raw, &m.ProtocolVersion) != nil || m.ProtocolVersion == "" {
		return nil, NewError(CodeInvalidParams, "params._meta[%q] is required and must be a non-empty string", metaProtocolVersion)
	}
	raw, ok = meta[metaClientCapabilities]
	if !ok || !isObjectJSON(raw) || json.Unmarshal(raw, &m.Capabilities) != nil {
		return nil, NewError(CodeInvalidParams, "params._meta[%q] is required and must be an object ({} declares none)", metaClientCapabilities)
	}
	m.Capabilities.Raw = append(json.RawMessage(nil), raw...)
	if raw, ok := meta[metaClientInfo]; ok && !isObjectJSON(raw) {
		return nil, NewError(CodeInvalidParams, "params._meta[%q] must be an object", metaClientInfo)
	}
	if raw, ok := meta[metaLogLevel]; ok {
		if json.Unmarshal(raw, &m.LogLevel) != nil || !validLogLevel(m.LogLevel) {
			return nil, NewError(CodeInvalidParams, "params._meta[%q] must be one of debug, info, notice, warning, error, critical, alert, emergency", metaLogLevel)
		}
	}
	return m, nil
}

// isLegacyVersion reports whether v is a session-based protocol version.
func isLegacyVersion(v string) bool { return slices.Contains(legacyVersions, v) }

func isObjectJSON(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
