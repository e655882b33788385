// Package jsonscan is the reflection-free JSON scanner that the runtime's
// envelope, params and flat-schema fast path read valid JSON with: it
// slices values out of the bytes instead of decoding them.
package jsonscan

import "encoding/json"

// EachMember calls fn with each member of the JSON object raw (valid JSON),
// its key unescaped, so keys match exactly (encoding/json would also take
// "Name" for "name"). A repeated key is passed each time: the last one wins,
// as in encoding/json and in JSON Schema validation. It returns false when
// fn did, having stopped, or when raw is no object.
func EachMember(raw []byte, fn func(key, value []byte) bool) bool {
	i := SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	for i++; ; {
		i = SkipWS(raw, i)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case '}':
			return true
		case ',':
			i = SkipWS(raw, i+1)
		}
		end, esc := ScanString(raw, i)
		if end < 0 {
			return false
		}
		key := raw[i+1 : end-1]
		if esc {
			s, _ := String(raw[i:end])
			key = []byte(s)
		}
		i = SkipWS(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = SkipWS(raw, i+1)
		vEnd := SkipValue(raw, i)
		if vEnd < 0 || !fn(key, raw[i:vEnd]) {
			return false
		}
		i = vEnd
	}
}

// String decodes a JSON string value; ok is false for any other value.
func String(v []byte) (string, bool) {
	end, esc := ScanString(v, 0)
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

func SkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// ScanString returns the index after the string starting at b[i] and
// whether it holds escapes; -1 when b[i] starts no string.
func ScanString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return -1, false
	}
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, false
}

// SkipValue returns the index after the JSON value starting at b[i], or -1.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := ScanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := ScanString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
