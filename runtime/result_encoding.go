package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// appendToolResult appends r as JSON. Text blocks without annotations, the
// common case, are written directly; other blocks go through encoding/json.
// The output decodes to what encoding/json would produce for r (byte for
// byte the same but for \b and \f, written \u0008 and \u000c).
func appendToolResult(b []byte, r *ToolResult) ([]byte, error) {
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		if t, ok := c.(*TextContent); ok && t != nil && t.Annotations == nil {
			b = append(b, `{"type":"text","text":`...)
			b = appendJSONString(b, t.Text)
			b = append(b, '}')
			continue
		}
		cb, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		b = append(b, cb...)
	}
	b = append(b, ']')
	if len(r.StructuredContent) > 0 {
		if !json.Valid(r.StructuredContent) {
			return nil, errors.New("structuredContent is not valid JSON")
		}
		b = append(b, `,"structuredContent":`...)
		b = append(b, r.StructuredContent...)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string with encoding/json's escaping
// rules (HTML-safe, U+2028/U+2029 escaped, invalid UTF-8 replaced), except
// that \b and \f are written \u0008 and \u000c.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// legacyResult is res as a 2025-era session gets it: structuredContent
// wrapped as {"result": value}. res itself is not changed.
func legacyResult(res *ToolResult) *ToolResult {
	sc := bytes.TrimSpace(res.StructuredContent)
	if len(sc) == 0 {
		return res
	}
	w := *res
	b := make([]byte, 0, len(sc)+11)
	b = append(b, `{"result":`...)
	b = append(b, sc...)
	w.StructuredContent = append(b, '}')
	return &w
}
