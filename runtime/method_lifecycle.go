package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
)

// initialize starts a legacy session: it negotiates the protocol version and
// returns the session to establish with the result (the legacy era creates
// it before answering). 2026-07-28 has no handshake.
func (d *dispatcher) initialize(_ context.Context, rq *request) outcome {
	if rq.era.initialized() {
		return failure(NewError(CodeInvalidRequest, "the session is already initialized"))
	}
	p := rq.params
	if p.ProtocolVersion == nil || *p.ProtocolVersion == "" {
		return failure(NewError(CodeInvalidParams, "initialize: protocolVersion is required"))
	}
	if len(p.Capabilities) > 0 && p.Capabilities[0] != '{' {
		return failure(invalidParams("/capabilities", "object", jsonKind(p.Capabilities)))
	}
	if len(p.ClientInfo) > 0 && p.ClientInfo[0] != '{' && p.ClientInfo[0] != 'n' {
		return failure(invalidParams("/clientInfo", "object", jsonKind(p.ClientInfo)))
	}
	version, e := d.versions.negotiate(*p.ProtocolVersion)
	if e != nil {
		return failure(e)
	}
	// Copied: the params are slices of the request body, which a session
	// must not keep alive.
	st := &SessionState{
		ProtocolVersion:    version,
		ClientCapabilities: bytes.Clone(p.Capabilities),
		ClientInfo:         bytes.Clone(p.ClientInfo),
	}
	return outcome{established: st, result: struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    string          `json:"instructions,omitempty"`
	}{st.ProtocolVersion, d.capabilities(st.ProtocolVersion), d.serverInfo, d.instructions}}
}

// ping answers {}. Either side of a legacy session may send it; 2026-07-28
// removed it.
func (d *dispatcher) ping(context.Context, *request) outcome {
	return resultOf(json.RawMessage("{}"))
}

// discover answers server/discover (2026-07-28): the versions this endpoint
// offers (Options.SupportedProtocolVersions), legacy ones included (a client that finds only those initializes a
// session), and the same capabilities a legacy initialize reports.
func (d *dispatcher) discover(_ context.Context, rq *request) outcome {
	return outcome{cache: &publicListCache, result: struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		Instructions      string          `json:"instructions,omitempty"`
	}{d.versions.all, d.capabilities(rq.era.version()), d.instructions}}
}

// setLogLevel answers logging/setLevel: the session's threshold for the
// notifications/message its calls send. 2026-07-28 removed the method; each
// request carries its level in _meta instead.
func (d *dispatcher) setLogLevel(ctx context.Context, rq *request) outcome {
	p := rq.params
	if p.Level == nil || !validLogLevel(LogLevel(*p.Level)) {
		return failure(NewError(CodeInvalidParams, "logging/setLevel: level must be one of debug, info, notice, warning, error, critical, alert, emergency"))
	}
	if err := rq.era.updateSession(ctx, func(st *SessionState) { st.LogLevel = LogLevel(*p.Level) }); err != nil {
		return failure(NewError(CodeInternalError, "saving the session: %v", err))
	}
	return resultOf(json.RawMessage("{}"))
}

// capabilities is the capabilities object of initialize (in a legacy
// session of version) and server/discover. It follows registration: tools,
// prompts and resources appear once one is registered (each with
// listChanged, since the Notify*ListChanged methods reach every client;
// resources also with subscribe), completions once a prompt or template
// has a completion handler; logging is always there (logging/setLevel,
// _meta logLevel). The extensions declared in version follow, in
// capabilities.extensions (and, for an extension with a legacy member of
// its own, that member: Extension.LegacyCapability).
func (d *dispatcher) capabilities(version string) json.RawMessage {
	o := d.features.offers()
	tools, prompts, resources, completions := o.tools, o.prompts, o.resources, o.completions
	exts := d.extensionsNow()
	b := []byte{'{'}
	add := func(key string, value []byte) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, key)
		b = append(b, ':')
		b = append(b, value...)
	}
	if tools {
		add("tools", []byte(`{"listChanged":true}`))
	}
	if prompts {
		add("prompts", []byte(`{"listChanged":true}`))
	}
	if resources {
		add("resources", []byte(`{"subscribe":true,"listChanged":true}`))
	}
	if completions {
		add("completions", []byte(`{}`))
	}
	add("logging", []byte(`{}`))
	var declared []byte
	for _, x := range exts {
		if key, v, ok := d.legacyCapability(x, version); ok {
			add(key, v)
		}
		if !d.declares(x, version) {
			continue
		}
		if len(declared) > 0 {
			declared = append(declared, ',')
		}
		declared = strconv.AppendQuote(declared, x.ID)
		declared = append(declared, ':')
		declared = append(declared, x.settings...)
	}
	if declared != nil {
		add("extensions", append(append([]byte{'{'}, declared...), '}'))
	}
	return append(b, '}')
}
