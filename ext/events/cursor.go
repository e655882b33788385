package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
)

// A cursor is a position in one event type's log, opaque to the client and
// tamper-evident: "c1." + base64url(epoch, sequence) + "." + a MAC over the
// type's name, the epoch and the sequence, keyed by Options.CursorKey. A
// cursor the server did not issue, or issued for another event type, is
// refused with InvalidParams; a genuine cursor of a log that no longer
// exists (another epoch: the store was emptied, or a process without a
// shared store restarted) resumes from now with truncated. The sequence is
// a position, never a grant: what a poll or stream returns from it is
// decided by that request's own arguments and principal.

const cursorPrefix = "c1."

// maxCursorLen bounds a cursor the engine reads (a genuine one is ~60
// bytes).
const maxCursorLen = 256

// position is where a subscription stands in a type's log.
type position struct {
	epoch string // the log's identity; 16 hex digits
	seq   uint64 // the last event seen (0: before the first)
}

var errForgedCursor = errors.New("the cursor is not one this server issued for this event type; resume with a cursor from an earlier response, or null to start from now")

type cursorCodec struct{ key []byte }

func (c cursorCodec) mac(name string, raw []byte) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte("mcpgen events cursor v1\x00"))
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write(raw)
	return m.Sum(nil)[:16]
}

func (c cursorCodec) encode(name string, p position) *string {
	raw := make([]byte, 0, len(p.epoch)+binary.MaxVarintLen64)
	raw = binary.AppendUvarint(raw, p.seq)
	raw = append(raw, p.epoch...)
	s := cursorPrefix + base64.RawURLEncoding.EncodeToString(raw) + "." + base64.RawURLEncoding.EncodeToString(c.mac(name, raw))
	return &s
}

func (c cursorCodec) decode(name, s string) (position, error) {
	if len(s) > maxCursorLen || !strings.HasPrefix(s, cursorPrefix) {
		return position{}, errForgedCursor
	}
	body, tag, ok := strings.Cut(s[len(cursorPrefix):], ".")
	if !ok {
		return position{}, errForgedCursor
	}
	raw, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(tag)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, c.mac(name, raw)) {
		return position{}, errForgedCursor
	}
	seq, n := binary.Uvarint(raw)
	if n <= 0 {
		return position{}, errForgedCursor
	}
	return position{seq: seq, epoch: string(raw[n:])}, nil
}
