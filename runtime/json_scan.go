package runtime

import "encoding/json"

// This file is the reflection-free JSON scanner that the envelope, the
// params and the flat-schema fast path read valid JSON with: it slices
// values out of the bytes instead of decoding them.

// eachMember calls fn with each member of the JSON object raw (valid JSON),
// its key unescaped, so keys match exactly (encoding/json would also take
// "Name" for "name"). A repeated key is passed each time: the last one wins,
// as in encoding/json and in JSON Schema validation. It returns false when
// fn did, having stopped, or when raw is no object.
func eachMember(raw []byte, fn func(key, value []byte) bool) bool {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	for i++; ; {
		i = skipWS(raw, i)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case '}':
			return true
		case ',':
			i = skipWS(raw, i+1)
		}
		end, esc := scanString(raw, i)
		if end < 0 {
			return false
		}
		key := raw[i+1 : end-1]
		if esc {
			s, _ := jsonString(raw[i:end])
			key = []byte(s)
		}
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipWS(raw, i+1)
		vEnd := skipValue(raw, i)
		if vEnd < 0 || !fn(key, raw[i:vEnd]) {
			return false
		}
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

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the string starting at b[i] and
// whether it holds escapes; -1 when b[i] starts no string.
func scanString(b []byte, i int) (int, bool) {
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

// skipValue returns the index after the JSON value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := scanString(b, j)
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
