package runtime

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// 2026-07-28 standard request headers (names are case-insensitive; Go
// canonicalises them, values are compared case-sensitively).
const (
	headerProtocolVersion = "MCP-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerParamPrefix     = "Mcp-Param-"
	headerSessionID       = "Mcp-Session-Id"
)

// standardHeaders are the values of the standard headers of one POST.
type standardHeaders struct {
	version, method string
	name            string // Mcp-Name, decoded
	hasName         bool
	bodyName        string // what Mcp-Name must equal
	bodyNamePresent bool
}

// readStandardHeaders checks that the standard headers are present and well
// encoded (the first check of a 2026-07-28 POST, before _meta); nameParam is
// the member of params Mcp-Name repeats (the method row's). Its error is
// -32020 HeaderMismatch.
func readStandardHeaders(h http.Header, msg *message, nameParam paramSet) (*standardHeaders, *Error) {
	sh := &standardHeaders{}
	var ok bool
	if sh.version, ok = modernHeader(h, headerProtocolVersion); !ok {
		return nil, headerMismatch(headerProtocolVersion, "the %s header is required", headerProtocolVersion)
	}
	if sh.method, ok = modernHeader(h, headerMethod); !ok {
		return nil, headerMismatch(headerMethod, "the %s header is required", headerMethod)
	}
	sh.bodyName, sh.bodyNamePresent = msg.params().member(nameParam)
	if raw, ok := modernHeader(h, headerName); ok {
		v, err := decodeHeaderValue(raw)
		if err != nil {
			return nil, headerMismatch(headerName, "%s: %v", headerName, err)
		}
		sh.name, sh.hasName = v, true
	}
	if sh.bodyNamePresent && !sh.hasName {
		return nil, headerMismatch(headerName, "the %s header is required for %s", headerName, msg.Method)
	}
	return sh, nil
}

// match checks the headers against the body once _meta is known to be well
// formed (the third check, after -32602 and before -32022).
func (sh *standardHeaders) match(msg *message, meta *requestMeta) *Error {
	if sh.version != meta.ProtocolVersion {
		return headerMismatch(headerProtocolVersion, "the %s header (%q) does not match params._meta[%q] (%q)",
			headerProtocolVersion, sh.version, metaProtocolVersion, meta.ProtocolVersion)
	}
	if sh.method != msg.Method {
		return headerMismatch(headerMethod, "the %s header (%q) does not match the method %q", headerMethod, sh.method, msg.Method)
	}
	if sh.hasName && sh.bodyNamePresent && sh.name != sh.bodyName {
		return headerMismatch(headerName, "the %s header (%q) does not match the request's %q", headerName, sh.name, sh.bodyName)
	}
	return nil
}

// modernHeader returns the first value of a header and whether it was sent.
func modernHeader(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.TrimSpace(vs[0]), true
}

// decodeHeaderValue decodes the =?base64?...?= form that clients use for
// values that are not plain visible ASCII; anything else is literal. Invalid
// base64 (including missing padding) or invalid UTF-8 is an error.
func decodeHeaderValue(v string) (string, error) {
	const pre, suf = "=?base64?", "?="
	if len(v) >= len(pre)+len(suf) && strings.EqualFold(v[:len(pre)], pre) && strings.HasSuffix(v, suf) {
		b, err := base64.StdEncoding.Strict().DecodeString(v[len(pre) : len(v)-len(suf)])
		if err != nil {
			return "", fmt.Errorf("invalid base64 value: %v", err)
		}
		if !utf8.Valid(b) {
			return "", fmt.Errorf("base64 value is not UTF-8")
		}
		return string(b), nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return "", fmt.Errorf("control character in value")
		}
	}
	return v, nil
}

func headerMismatch(header, format string, args ...any) *Error {
	e := NewError(CodeHeaderMismatch, format, args...)
	e.Data = struct {
		Header string `json:"header"`
	}{header}
	return e
}
