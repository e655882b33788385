package runtime

import (
	"bytes"
	"encoding/json"
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
