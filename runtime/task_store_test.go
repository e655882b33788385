package runtime

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestMemoryTaskStore: create, read, update atomically, wake waiters, page
// a session's tasks, refuse a foreign cursor, expire, and stay bounded.
func TestMemoryTaskStore(t *testing.T) {
	ctx := context.Background()
	st := &MemoryTaskStore{Limit: 5}
	now := time.Now().UTC()
	rec := func(id, owner string, ttl time.Duration) *TaskRecord {
		return &TaskRecord{ID: id, Owner: owner, Status: TaskWorking, CreatedAt: now, UpdatedAt: now, TTL: ttl, ExpiresAt: now.Add(ttl)}
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
	got, err := st.UpdateTask(ctx, "t1", func(r *TaskRecord) error { r.Status = TaskCompleted; return nil })
	if err != nil || got.Status != TaskCompleted {
		t.Fatal(got, err)
	}
	select {
	case <-ch:
	default:
		t.Fatal("the waiter was not woken by the update")
	}
	done()
	if _, err := st.UpdateTask(ctx, "t1", func(*TaskRecord) error { return errTaskEnded }); !errors.Is(err, errTaskEnded) {
		t.Fatal(err)
	}
	if r, _ := st.GetTask(ctx, "t1"); r.Status != TaskCompleted {
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
	if _, _, err := st.ListTasks(ctx, "s1", "not-a-cursor", 3); !errors.Is(err, ErrInvalidTaskCursor) {
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
	if _, err := st.GetTask(ctx, "old"); !errors.Is(err, ErrTaskNotFound) {
		t.Fatal(err)
	}
	if err := st.CreateTask(ctx, rec("t4", "s1", time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateTask(ctx, rec("t5", "s1", time.Hour)); err == nil {
		t.Fatal("the store went past its limit")
	}
}
