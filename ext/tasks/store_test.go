package tasks

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestMemoryStore: create, read, update atomically, wake waiters, page
// a session's tasks, refuse a foreign cursor, expire, and stay bounded.
func TestMemoryStore(t *testing.T) {
	ctx := context.Background()
	st := &MemoryStore{Limit: 5}
	now := time.Now().UTC()
	rec := func(id, owner string, ttl time.Duration) *Record {
		return &Record{ID: id, Owner: owner, Status: Working, CreatedAt: now, UpdatedAt: now, TTL: ttl, ExpiresAt: now.Add(ttl)}
	}
	for i := range 4 {
		if err := st.CreateTask(ctx, rec(fmt.Sprintf("t%d", i), "s1", time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CreateTask(ctx, rec("t0", "s1", time.Hour)); err == nil {
		t.Fatal("a duplicate ID was stored")
	}
	ch, done := st.TaskChanged(ctx, "t1")
	got, err := st.UpdateTask(ctx, "t1", func(r *Record) error { r.Status = Completed; return nil })
	if err != nil || got.Status != Completed {
		t.Fatal(got, err)
	}
	select {
	case <-ch:
	default:
		t.Fatal("the waiter was not woken by the update")
	}
	done()
	if _, err := st.UpdateTask(ctx, "t1", func(*Record) error { return errTaskEnded }); !errors.Is(err, errTaskEnded) {
		t.Fatal(err)
	}
	if r, _ := st.GetTask(ctx, "t1"); r.Status != Completed {
		t.Fatalf("a refused update changed the task: %v", r.Status)
	}
	var seen []string
	cursor := ""
	for {
		page, next, err := st.ListTasks(ctx, "s1", cursor, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page {
			seen = append(seen, r.ID)
		}
		if cursor = next; cursor == "" {
			break
		}
	}
	if fmt.Sprint(seen) != "[t0 t1 t2 t3]" {
		t.Fatalf("pages: %v", seen)
	}
	if _, _, err := st.ListTasks(ctx, "s1", "not-a-cursor", 3); !errors.Is(err, ErrInvalidCursor) {
		t.Fatal(err)
	}
	if page, _, _ := st.ListTasks(ctx, "s2", "", 3); len(page) != 0 {
		t.Fatalf("another owner's list: %v", page)
	}
	// An expired task is gone, and makes room at the bound.
	if err := st.CreateTask(ctx, rec("old", "s1", time.Nanosecond)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond) // let its TTL pass
	if _, err := st.GetTask(ctx, "old"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if err := st.CreateTask(ctx, rec("t4", "s1", time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateTask(ctx, rec("t5", "s1", time.Hour)); err == nil {
		t.Fatal("the store went past its limit")
	}
}
