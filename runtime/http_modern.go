package runtime

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is the seam between the legacy transport and the 2026-07-28
// stateless core. The legacy ServeHTTP asks isModernHTTP for every POST and
// hands modern requests to serveModernHTTP; GET and DELETE without a session
// go to serveModernNoSession.

// isModernHTTP reports whether a POST belongs to the 2026-07-28 era: no
// session ID, and modern _meta or an MCP-Protocol-Version header, unless the
// only sign is a header naming a legacy version. So an `initialize` (which
// carries neither) and every request of a legacy session stay legacy.
func (t *httpTransport) isModernHTTP(r *http.Request, msg *message) bool {
	if _, ok := modernHeader(r.Header, headerSessionID); ok {
		return false
	}
	if version, ok := modernHeader(r.Header, headerProtocolVersion); ok && !isLegacyVersion(version) {
		return true
	}
	return msg.params().modern()
}

// serveModernHTTP serves one 2026-07-28 POST. The checks run in the order
// the conformance fixture uses: required headers present (-32020), _meta
// well formed (-32602), headers equal to the body (-32020), version
// supported (-32022), a tool's Mcp-Param-* headers equal to its arguments
// (-32020); all are HTTP 400. Then the era serves the method.
func (t *httpTransport) serveModernHTTP(w http.ResponseWriter, r *http.Request, msg *message) {
	out := newModernHTTPStream(w, r)
	refuse := func(id json.RawMessage, e *Error) { out.finish(encodeError(id, e), http.StatusBadRequest) }
	switch {
	case msg.isNotification():
		// 2026-07-28 has no client notification that means anything over
		// HTTP (cancellation is closing the response stream).
		w.WriteHeader(http.StatusAccepted)
		return
	case !msg.isRequest():
		refuse(nil, NewError(CodeInvalidRequest, "protocol %s accepts only requests and notifications on POST", Version20260728))
		return
	case !validID(msg.ID):
		refuse(nil, NewError(CodeInvalidRequest, "the request id must be a string or an integer"))
		return
	}
	var nameParam paramSet
	if m := t.d.row(msg.Method); m != nil {
		nameParam = m.nameParam
	}
	sh, e := readStandardHeaders(r.Header, msg, nameParam)
	if e != nil {
		refuse(msg.ID, e)
		return
	}
	meta, e := parseRequestMeta(msg.params().Meta)
	if e != nil {
		refuse(msg.ID, e)
		return
	}
	if e := sh.match(msg, meta); e != nil {
		refuse(msg.ID, e)
		return
	}
	if e := t.d.versions.checkModern(meta.ProtocolVersion); e != nil {
		refuse(msg.ID, e)
		return
	}
	if e := t.checkToolHeaders(r.Header, msg); e != nil {
		refuse(msg.ID, e)
		return
	}
	out.finish(t.modern.serve(r.Context(), msg, meta, out, t.clients.callerOf(r)))
}

// isModernNoSession reports whether a GET or DELETE without Mcp-Session-Id
// is the 2026-07-28 era's business: it is unless its MCP-Protocol-Version
// header names a legacy version.
func (t *httpTransport) isModernNoSession(r *http.Request) bool {
	v, ok := modernHeader(r.Header, headerProtocolVersion)
	return !ok || !isLegacyVersion(v)
}

// serveModernNoSession answers GET and DELETE in the 2026-07-28 era: there is
// no standalone stream and no session to end (subscriptions/listen replaces
// the GET stream), so 405 with Allow: POST.
func (t *httpTransport) serveModernNoSession(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", http.MethodPost)
	http.Error(w, "protocol "+Version20260728+" serves POST only; open a subscriptions/listen stream for notifications", http.StatusMethodNotAllowed)
}

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

// checkToolHeaders checks the Mcp-Param-* headers of a tools/call against
// the arguments of the tool it names. An unknown tool is the method's to
// report.
func (t *httpTransport) checkToolHeaders(h http.Header, msg *message) *Error {
	p := msg.params()
	if msg.Method != methodToolsCall || p.Name == nil {
		return nil
	}
	tool := t.d.features.toolNamed(p.Name)
	if tool == nil {
		return nil
	}
	return checkHeaderParams(h, tool.headerParams, p.Arguments)
}

// checkHeaderParams compares each Mcp-Param-* header with the argument it
// mirrors. A value in the body needs its header; null or absent values need
// none. Integers compare numerically. The error is -32020.
func checkHeaderParams(h http.Header, params []headerParam, args json.RawMessage) *Error {
	if len(params) == 0 {
		return nil
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if len(args) > 0 && dec.Decode(&root) != nil {
		return nil // the arguments are invalid; input validation reports it
	}
	for _, p := range params {
		v, ok := lookupArgPath(root, p.Path)
		if !ok || v == nil {
			continue
		}
		name := headerParamPrefix + p.Header
		raw, sent := modernHeader(h, name)
		if !sent {
			return headerMismatch(name, "the %s header is required: arguments.%s has a value", name, strings.Join(p.Path, "."))
		}
		hv, err := decodeHeaderValue(raw)
		if err != nil {
			return headerMismatch(name, "%s: %v", name, err)
		}
		if !headerParamEqual(p.Type, hv, v) {
			return headerMismatch(name, "the %s header does not match arguments.%s", name, strings.Join(p.Path, "."))
		}
	}
	return nil
}

// headerParamEqual compares a decoded header with the body value v.
func headerParamEqual(typ, header string, v any) bool {
	switch typ {
	case "string":
		s, ok := v.(string)
		return ok && s == header
	case "boolean":
		b, ok := v.(bool)
		return ok && strconv.FormatBool(b) == header
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		bv, err1 := strconv.ParseFloat(n.String(), 64)
		hv, err2 := strconv.ParseFloat(header, 64)
		return err1 == nil && err2 == nil && bv == hv
	}
	return false
}

func lookupArgPath(v any, path []string) (any, bool) {
	for _, k := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return v, true
}
