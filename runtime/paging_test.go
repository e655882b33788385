package runtime

import (
	"errors"
	"fmt"
	"testing"
)

// TestPage: Page walks a list a page at a time with the cursors it issues
// and refuses every other cursor with -32602 naming the method.
func TestPage(t *testing.T) {
	items := []int{0, 1, 2, 3, 4}
	var seen []int
	var cursor *string
	for pages := 0; ; pages++ {
		page, next, err := Page("x/list", items, cursor, 2)
		if err != nil || pages > 3 {
			t.Fatalf("page %d: %v", pages, err)
		}
		seen = append(seen, page...)
		if next == "" {
			break
		}
		cursor = &next
	}
	if fmt.Sprint(seen) != fmt.Sprint(items) {
		t.Fatalf("pages gave %v", seen)
	}
	for _, bad := range []string{"", "x", EncodeCursor("1"), EncodeCursor("6"), EncodeCursor("-2"), EncodeCursor("two")} {
		_, _, err := Page("x/list", items, &bad, 2)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidParams || e.Message != "x/list: invalid cursor" {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
	if page, next, err := Page[int]("x/list", nil, nil, 0); err != nil || len(page) != 0 || next != "" {
		t.Errorf("an empty list: %v %q %v", page, next, err)
	}
	if pos, err := DecodeCursor(EncodeCursor("a:b")); err != nil || pos != "a:b" {
		t.Errorf("a position round trip: %q %v", pos, err)
	}
}
