package redisstore

import "encoding/binary"

// An envelope is what crosses a pub/sub channel between replicas: a kind
// byte, then fields, each a 4-byte big-endian length and its bytes.
//
// On a replica's own channel ("<prefix>r:<replica>"):
const (
	kindAnswer = 'a' // a client's answer for a request this replica waits for: session, id, answer JSON, reply-to replica, token
	kindReply  = 'r' // what became of a forwarded answer: token, resolution (one byte)
	kindGET    = 'g' // a message for the GET stream this replica holds: session, message
)

// On the deployment's signal channel ("<prefix>signal"), every replica's:
const kindSignal = 's' // session, signal kind, data

func envelope(kind byte, fields ...[]byte) []byte {
	n := 1
	for _, f := range fields {
		n += 4 + len(f)
	}
	b := make([]byte, 0, n)
	b = append(b, kind)
	for _, f := range fields {
		b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
		b = append(b, f...)
	}
	return b
}

// openEnvelope returns the kind and exactly n fields of an envelope, or
// false when b is not one (the fields alias b).
func openEnvelope(b []byte, n int) (kind byte, fields [][]byte, ok bool) {
	if len(b) < 1 {
		return 0, nil, false
	}
	kind, b = b[0], b[1:]
	fields = make([][]byte, 0, n)
	for range n {
		if len(b) < 4 {
			return 0, nil, false
		}
		l := binary.BigEndian.Uint32(b)
		b = b[4:]
		if uint64(len(b)) < uint64(l) {
			return 0, nil, false
		}
		fields = append(fields, b[:l:l])
		b = b[l:]
	}
	if len(b) != 0 {
		return 0, nil, false
	}
	return kind, fields, true
}
