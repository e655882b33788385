package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// message is one JSON-RPC 2.0 message as it arrives or leaves: a request (ID
// and Method), a notification (Method, no ID), or a response (ID and Result or
// Error). Params and Result stay raw so that each is decoded once, by the code
// that knows its type.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`

	decoded     requestParams // Params decoded, by params()
	paramsReady bool
}

func (m *message) isRequest() bool      { return m.Method != "" && len(m.ID) > 0 }
func (m *message) isNotification() bool { return m.Method != "" && len(m.ID) == 0 }
func (m *message) isResponse() bool     { return m.Method == "" && len(m.ID) > 0 }

// validID reports whether raw is a JSON-RPC ID MCP allows: a string or an
// integer, never null.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"':
		// Decoded messages hold syntactically valid JSON: a leading quote is a
		// whole string. Anything else is checked in full.
		if len(raw) >= 2 && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
			return true
		}
		var s string
		return json.Unmarshal(raw, &s) == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		digits := raw
		if digits[0] == '-' {
			digits = digits[1:]
		}
		if len(digits) == 0 || len(digits) > 18 {
			var n json.Number
			if json.Unmarshal(raw, &n) != nil {
				return false
			}
			_, err := n.Int64()
			return err == nil
		}
		for _, c := range digits {
			if c < '0' || c > '9' {
				return false
			}
		}
		return digits[0] != '0' || len(digits) == 1
	}
	return false
}

// decodeMessages decodes one HTTP body or stdio line: a single message or a
// batch array. A body that is not JSON is a *Error with CodeParseError, and
// so is one that is not UTF-8 (RFC 8259 section 8.1): nothing the runtime
// echoes (an id, a method name) can then carry bytes that would make its
// reply invalid JSON text. Each
// element is checked on its own: bad[i] is the error for msgs[i] (nil when
// the element is a valid message), so a batch answers every element.
func decodeMessages(body []byte) (msgs []*message, bad []*Error, batch bool, err *Error) {
	body = trimSpace(body)
	if len(body) == 0 {
		return nil, nil, false, &Error{Code: CodeParseError, Message: "empty body"}
	}
	if !utf8.Valid(body) {
		return nil, nil, body[0] == '[', &Error{Code: CodeParseError, Message: "parse error: the message is not valid UTF-8"}
	}
	if body[0] == '[' {
		var raws []json.RawMessage
		if e := json.Unmarshal(body, &raws); e != nil {
			return nil, nil, true, &Error{Code: CodeParseError, Message: "parse error: " + e.Error()}
		}
		if len(raws) == 0 {
			return nil, nil, true, &Error{Code: CodeInvalidRequest, Message: "empty batch"}
		}
		msgs = make([]*message, len(raws))
		bad = make([]*Error, len(raws))
		for i, raw := range raws {
			msgs[i], bad[i] = decodeMessage(raw)
		}
		return msgs, bad, true, nil
	}
	m, e := decodeMessage(body)
	if e != nil && e.Code == CodeParseError {
		return nil, nil, false, e
	}
	return []*message{m}, []*Error{e}, false, nil
}

// decodeMessage decodes and checks one JSON-RPC message. The message is
// returned even when invalid, so that an error can echo its ID.
func decodeMessage(raw []byte) (*message, *Error) {
	m := &message{}
	raw = trimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' && json.Valid(raw) {
		if bad := scanEnvelope(raw, m); bad != "" {
			return m, invalidRequest(m, bad)
		}
		return checkMessage(m)
	}
	if err := json.Unmarshal(raw, m); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return m, &Error{Code: CodeParseError, Message: "parse error: " + err.Error()}
		}
		// Valid JSON of the wrong shape (an array, a string, "id": {}...).
		m = &message{}
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(raw, &probe) == nil && validID(probe.ID) {
			m.ID = probe.ID
		}
		return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: not a JSON-RPC message object"}
	}
	return checkMessage(m)
}

// checkMessage checks a decoded envelope against the JSON-RPC rules MCP uses.
func checkMessage(m *message) (*message, *Error) {
	if m.JSONRPC != "2.0" {
		return m, invalidRequest(m, `"jsonrpc" must be "2.0"`)
	}
	if len(m.ID) > 0 && !validID(m.ID) {
		m.ID = nil
		return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: id must be a string or an integer"}
	}
	if len(m.Params) > 0 && trimSpace(m.Params)[0] != '{' {
		return m, invalidRequest(m, "params must be an object")
	}
	switch {
	case m.Method != "":
		if m.Result != nil || m.Error != nil {
			return m, invalidRequest(m, "a request carries no result or error")
		}
	case len(m.ID) == 0:
		return m, invalidRequest(m, "neither a request, a notification nor a response")
	case (m.Result != nil) == (m.Error != nil):
		return m, invalidRequest(m, "a response carries exactly one of result and error")
	}
	return m, nil
}

func invalidRequest(m *message, why string) *Error {
	if len(m.ID) > 0 && !validID(m.ID) {
		m.ID = nil
	}
	return &Error{Code: CodeInvalidRequest, Message: "invalid request: " + why}
}

// encodeError encodes an error response; a nil id is written as null.
func encodeError(id json.RawMessage, e *Error) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	eb, err := json.Marshal(e)
	if err != nil {
		eb, _ = json.Marshal(&Error{Code: e.Code, Message: e.Message})
	}
	b := make([]byte, 0, len(eb)+len(id)+32)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, eb...)
	return append(b, '}')
}

// encodeRequest encodes a server-to-client request (id set) or a
// notification (id nil).
func encodeRequest(id json.RawMessage, method string, params any) ([]byte, error) {
	var pb []byte
	if params != nil {
		var err error
		if pb, err = json.Marshal(params); err != nil {
			return nil, err
		}
	}
	b := make([]byte, 0, len(pb)+len(method)+48)
	b = append(b, `{"jsonrpc":"2.0",`...)
	if id != nil {
		b = append(b, `"id":`...)
		b = append(b, id...)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = strconv.AppendQuote(b, method)
	if pb != nil {
		b = append(b, `,"params":`...)
		b = append(b, pb...)
	}
	return append(b, '}'), nil
}

func trimSpace(b []byte) []byte { return bytes.TrimSpace(b) }

// scanEnvelope reads the top-level members of a message object (valid JSON)
// without reflection, slicing id, params and result out of raw (which the
// caller owns). Keys match exactly. bad is a shape error.
func scanEnvelope(raw []byte, m *message) (bad string) {
	jsonscan.EachMember(raw, func(key, v []byte) bool {
		switch string(key) {
		case "jsonrpc":
			m.JSONRPC = ""
			if s, ok := jsonscan.String(v); ok && s == "2.0" {
				m.JSONRPC = "2.0"
			} else if !ok {
				bad = `"jsonrpc" must be "2.0"`
			}
		case "id":
			m.ID = v
			if string(v) == "null" {
				m.ID = nil
				bad = "id must be a string or an integer"
			}
		case "method":
			if end, esc := jsonscan.ScanString(v, 0); end == len(v) && !esc {
				m.Method = methodName(v[1 : len(v)-1])
			} else if s, ok := jsonscan.String(v); ok {
				m.Method = s
			} else {
				bad = "method must be a string"
			}
		case "params":
			m.Params = v
			if string(v) == "null" {
				m.Params = nil // as absent
			}
		case "result":
			m.Result = v
		case "error":
			m.Error = nil
			if string(v) != "null" {
				e := &Error{}
				if json.Unmarshal(v, e) != nil {
					bad = "error must be a JSON-RPC error object"
				}
				m.Error = e
			}
		}
		return bad == ""
	})
	return bad
}

// methodName returns the method as a string, without allocating for the
// methods the runtime serves.
func methodName(b []byte) string {
	switch string(b) {
	case methodToolsCall:
		return methodToolsCall
	case methodToolsList:
		return methodToolsList
	case methodPing:
		return methodPing
	case methodInitialize:
		return methodInitialize
	case methodInitialized:
		return methodInitialized
	case methodCancelled:
		return methodCancelled
	case methodSetLevel:
		return methodSetLevel
	}
	return string(b)
}

func isObjectJSON(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
