package redisstore

import (
	"bytes"
	"testing"
)

// These run without Redis.

func TestEnvelopeRoundTrip(t *testing.T) {
	for _, c := range []struct{ session, id, msg string }{
		{"s", `"r-1"`, `{"result":{}}`},
		{"", "", ""},
		{"sess\x00ion", "7", "\x00\x01"},
	} {
		s, id, msg, ok := decodeEnvelope(encodeEnvelope(c.session, c.id, []byte(c.msg)))
		if !ok || s != c.session || id != c.id || !bytes.Equal(msg, []byte(c.msg)) {
			t.Errorf("round trip of %q: %q %q %q %v", c, s, id, msg, ok)
		}
	}
	for _, bad := range [][]byte{nil, {0, 0, 0}, {0, 0, 0, 9, 'a'}, append(encodeEnvelope("s", "", nil)[:5], 0, 0, 0, 5)} {
		if _, _, _, ok := decodeEnvelope(bad); ok {
			t.Errorf("decoded a malformed envelope %v", bad)
		}
	}
}

func TestParseEventID(t *testing.T) {
	for id, want := range map[string][2]string{
		"r1.1_1700000000000-0": {"r1.1", "1700000000000-0"},
		"a_b_12-3":             {"a_b", "12-3"},
	} {
		stream, xid, ok := parseEventID(id)
		if !ok || stream != want[0] || xid != want[1] {
			t.Errorf("parseEventID(%q) = %q %q %v", id, stream, xid, ok)
		}
	}
	for _, bad := range []string{"", "_1-0", "s_", "s_1", "s_-1", "s_1-", "s_a-0", "s_1-0x", "s_123456789012345678901-0"} {
		if _, _, ok := parseEventID(bad); ok {
			t.Errorf("parseEventID(%q) accepted", bad)
		}
	}
}
