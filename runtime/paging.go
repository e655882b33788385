package runtime

import (
	"encoding/base64"
	"errors"
	"strconv"
)

// Lists in MCP are paged: a request names a cursor (none for the first
// page), a result carries the nextCursor of the page after it (none on the
// last), and a cursor the server did not issue is -32602. The cursors are
// opaque to clients: the runtime's, and Page's, are a position encoded in
// base64url, checked when they come back.

// ErrInvalidCursor: a cursor this server did not issue.
var ErrInvalidCursor = errors.New("mcpgen: invalid cursor")

// EncodeCursor is the cursor of a list position (an offset, an ID, a
// timestamp and an ID: whatever the list resumes from).
func EncodeCursor(position string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(position))
}

// DecodeCursor returns the position of a cursor EncodeCursor made, or
// ErrInvalidCursor. The position is the client's to send: check it before
// use, as Page does.
func DecodeCursor(cursor string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) == 0 {
		return "", ErrInvalidCursor
	}
	return string(b), nil
}

// Page returns the page of items that cursor names (nil: the first), size
// entries at most (Host.PageSize is the server's), and the cursor of the
// next page ("" on the last). A cursor Page did not issue for a list of
// this length and size is a -32602 *Error naming method, which a method
// returns as it is.
func Page[T any](method string, items []T, cursor *string, size int) ([]T, string, error) {
	if size <= 0 {
		size = defaultPageSize
	}
	start, e := pageStart(method, cursor, size)
	if e != nil {
		return nil, "", e
	}
	if start > 0 && start >= len(items) {
		return nil, "", invalidCursor(method)
	}
	end := min(start+size, len(items))
	next := ""
	if end < len(items) {
		next = encodeCursor(end)
	}
	return items[start:end], next, nil
}

// defaultPageSize is Options.PageSize's default.
const defaultPageSize = 100

func encodeCursor(offset int) string { return EncodeCursor(strconv.Itoa(offset)) }

// pageStart decodes an offset cursor into the offset of its page: one a
// list of pages of size issued (a positive multiple of size).
func pageStart(method string, cursor *string, size int) (int, *Error) {
	if cursor == nil {
		return 0, nil
	}
	pos, err := DecodeCursor(*cursor)
	n, err2 := strconv.Atoi(pos)
	if err != nil || err2 != nil || n <= 0 || n%size != 0 {
		return 0, invalidCursor(method)
	}
	return n, nil
}

func invalidCursor(method string) *Error {
	return NewError(CodeInvalidParams, "%s: invalid cursor", method)
}
