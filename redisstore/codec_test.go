package redisstore

import (
	"bytes"
	"testing"
)

// These run without Redis.

func TestEnvelopeRoundTrip(t *testing.T) {
	for _, c := range [][]string{
		{"s", `"r-1"`, `{"result":{}}`},
		{"", "", ""},
		{"sess\x00ion", "7", "\x00\x01"},
		{},
	} {
		fields := make([][]byte, len(c))
		for i, f := range c {
			fields[i] = []byte(f)
		}
		kind, got, ok := openEnvelope(envelope(kindAnswer, fields...), len(c))
		if !ok || kind != kindAnswer || len(got) != len(c) {
			t.Fatalf("round trip of %q: %c %q %v", c, kind, got, ok)
		}
		for i := range c {
			if !bytes.Equal(got[i], fields[i]) {
				t.Errorf("round trip of %q: field %d is %q", c, i, got[i])
			}
		}
	}
	good := envelope(kindGET, []byte("s"), []byte("msg"))
	for _, bad := range [][]byte{nil, {kindGET}, {kindGET, 0, 0, 0}, {kindGET, 0, 0, 0, 9, 'a'}, good[:len(good)-1], append(good, 'x')} {
		if _, _, ok := openEnvelope(bad, 2); ok {
			t.Errorf("opened a malformed envelope %v", bad)
		}
	}
	if _, _, ok := openEnvelope(good, 3); ok {
		t.Error("opened an envelope of two fields as three")
	}
}

func TestParseEventID(t *testing.T) {
	for id, want := range map[string]struct {
		stream string
		n      uint64
	}{
		"0123456789abcdef.0a1b2c3d.1_7": {"0123456789abcdef.0a1b2c3d.1", 7},
		"a_b_12":                        {"a_b", 12},
		"s_0":                           {"s", 0},
	} {
		stream, n, ok := parseEventID(id)
		if !ok || stream != want.stream || n != want.n {
			t.Errorf("parseEventID(%q) = %q %d %v", id, stream, n, ok)
		}
	}
	for _, bad := range []string{"", "_1", "s_", "s_-1", "s_1-0", "s_a", "s_1x", "s_123456789012345678901", "s_99999999999999999999"} {
		if _, _, ok := parseEventID(bad); ok {
			t.Errorf("parseEventID(%q) accepted", bad)
		}
	}
}

func TestOwnerOfRequestID(t *testing.T) {
	const r = "0123456789abcdef"
	for id, want := range map[string]string{
		`"` + r + `.0a1b2c3d-7"`: r,
		`"` + r + `-7"`:          r,
	} {
		if got, ok := ownerOf(id); !ok || got != want {
			t.Errorf("ownerOf(%s) = %q, %v", id, got, ok)
		}
	}
	for _, id := range []string{`7`, `"7"`, `"r1-1"`, `"0123456789ABCDEF-1"`, `"0123456789abcde-1"`, r + "-1", `"` + r + `x-1"`} {
		if got, ok := ownerOf(id); ok {
			t.Errorf("ownerOf(%s) = %q: a request no replica sends", id, got)
		}
	}
}
