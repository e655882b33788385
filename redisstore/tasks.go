package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/ext/tasks"
	"github.com/redis/go-redis/v9"
)

// TaskStore is a tasks.Store (package github.com/mcpgen/mcpgen/ext/tasks)
// on Redis: a task created on one
// replica is polled, answered, cancelled and read through any other. Each
// task is one JSON value under prefix "t:{id}" that Redis expires at the
// task's ExpiresAt (an expired task is gone everywhere); updates are
// optimistic transactions (WATCH) and announce themselves on the store's
// signal channel, so a replica waiting for a change (a handler waiting for
// its answer, a tasks/result waiting for the end) wakes at once. A waiter
// also wakes every TaskRecheck (1s) without a signal, so a pub/sub message
// lost in a reconnect delays it by at most that. The tasks of a legacy
// session are indexed in a sorted set by creation time, for tasks/list.
type TaskStore struct {
	s    *Store
	stop func()

	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
}

// TaskRecheck bounds how long a task waiter sleeps without a change signal.
const TaskRecheck = time.Second

// maxTaskRetries bounds the optimistic retries of one UpdateTask under
// contention.
const maxTaskRetries = 32

// taskSignal is the signal kind that announces a task change; the
// signal's session field carries the task ID.
const taskSignal = "mcpgen.task"

// Tasks returns the store's TaskStore, for tasks.Options.Store:
//
//	tasks.Add(srv, tasks.Options{Store: st.Tasks()})
//
// Close it with the Store (or on its own).
func (s *Store) Tasks() *TaskStore {
	ts := &TaskStore{s: s, waiters: map[string]map[chan struct{}]struct{}{}}
	ts.stop = s.OnSignal(func(id, kind string, _ []byte) {
		if kind == taskSignal {
			ts.wake(id)
		}
	})
	return ts
}

// Close stops waking this store's waiters.
func (ts *TaskStore) Close() { ts.stop() }

func (ts *TaskStore) key(id string) string { return ts.s.opts.Prefix + "t:{" + id + "}" }
func (ts *TaskStore) ownerKey(owner string) string {
	return ts.s.opts.Prefix + "to:{" + owner + "}"
}

// CreateTask stores t; it fails if the ID exists.
func (ts *TaskStore) CreateTask(ctx context.Context, t *tasks.Record) error {
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("redisstore: encoding task %s: %w", t.ID, err)
	}
	ctx, cancel := ts.s.op(ctx)
	defer cancel()
	ok, err := ts.s.rdb.SetNX(ctx, ts.key(t.ID), b, time.Until(t.ExpiresAt)).Result()
	switch {
	case err != nil:
		return ts.s.unavailable("creating a task", err)
	case !ok:
		return fmt.Errorf("redisstore: task %s already exists", t.ID)
	}
	if t.Owner != "" {
		k := ts.ownerKey(t.Owner)
		_, err := ts.s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.ZAdd(ctx, k, redis.Z{Score: float64(t.CreatedAt.UnixNano()), Member: t.ID})
			p.PExpireAt(ctx, k, t.ExpiresAt)
			return nil
		})
		if err != nil {
			return ts.s.unavailable("indexing a task", err)
		}
	}
	return nil
}

func decodeTask(id string, raw []byte) (*tasks.Record, error) {
	var t tasks.Record
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("redisstore: task %s: %w", id, err)
	}
	if time.Now().After(t.ExpiresAt) {
		return nil, tasks.ErrNotFound
	}
	return &t, nil
}

// GetTask reads the task.
func (ts *TaskStore) GetTask(ctx context.Context, id string) (*tasks.Record, error) {
	ctx, cancel := ts.s.op(ctx)
	defer cancel()
	raw, err := ts.s.rdb.Get(ctx, ts.key(id)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, tasks.ErrNotFound
	case err != nil:
		return nil, ts.s.unavailable("reading a task", err)
	}
	return decodeTask(id, raw)
}

// UpdateTask applies fn in an optimistic transaction, retrying on conflict,
// and announces the change.
func (ts *TaskStore) UpdateTask(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	ctx, cancel := ts.s.op(ctx)
	defer cancel()
	key := ts.key(id)
	var out *tasks.Record
	txf := func(tx *redis.Tx) error {
		raw, err := tx.Get(ctx, key).Bytes()
		switch {
		case errors.Is(err, redis.Nil):
			return tasks.ErrNotFound
		case err != nil:
			return err
		}
		t, err := decodeTask(id, raw)
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return fnError{err}
		}
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, b, 0)
			p.PExpireAt(ctx, key, t.ExpiresAt)
			return nil
		})
		out = t
		return err
	}
	for range maxTaskRetries {
		err := ts.s.rdb.Watch(ctx, txf, key)
		if errors.Is(err, redis.TxFailedErr) {
			continue
		}
		var fe fnError
		switch {
		case errors.As(err, &fe):
			return nil, fe.err
		case errors.Is(err, tasks.ErrNotFound):
			return nil, err
		case err != nil:
			return nil, ts.s.unavailable("updating a task", err)
		}
		if err := ts.s.Signal(ctx, id, taskSignal, nil); err != nil {
			ts.s.logger().Warn("redisstore: announcing a task change", "task", id, "error", err.Error())
		}
		return out, nil
	}
	return nil, fmt.Errorf("redisstore: task %s: %d conflicting updates in a row", id, maxTaskRetries)
}

// fnError carries the error of UpdateTask's fn through the transaction,
// to be told apart from Redis's: the caller's errors are returned as they
// are, Redis's as an UnavailableError.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// ListTasks pages the owner's tasks in creation order.
func (ts *TaskStore) ListTasks(ctx context.Context, owner, cursor string, limit int) ([]*tasks.Record, string, error) {
	after, afterID, err := tasks.DecodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := ts.s.op(ctx)
	defer cancel()
	k := ts.ownerKey(owner)
	ids, err := ts.s.rdb.ZRange(ctx, k, 0, -1).Result()
	if err != nil {
		return nil, "", ts.s.unavailable("listing tasks", err)
	}
	var all []*tasks.Record
	if len(ids) > 0 {
		// One GET each in a pipeline, not an MGET: the tasks' keys are in
		// different hash slots, which on a Redis Cluster one command cannot
		// span (CROSSSLOT); the cluster client sends each node its part.
		vals := make([]*redis.StringCmd, len(ids))
		_, err := ts.s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range ids {
				vals[i] = p.Get(ctx, ts.key(id))
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, "", ts.s.unavailable("listing tasks", err)
		}
		var gone []any
		for i, v := range vals {
			str, err := v.Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				return nil, "", ts.s.unavailable("listing tasks", err)
			}
			ok := err == nil
			var t *tasks.Record
			if ok {
				t, err = decodeTask(ids[i], []byte(str))
			}
			if !ok || err != nil {
				gone = append(gone, ids[i])
				continue
			}
			all = append(all, t)
		}
		if len(gone) > 0 {
			ts.s.rdb.ZRem(ctx, k, gone...)
		}
	}
	slices.SortFunc(all, func(a, b *tasks.Record) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	return tasks.PageRecords(all, after, afterID, limit)
}

// TaskChanged returns a channel closed at the task's next change on any
// replica, or after TaskRecheck.
func (ts *TaskStore) TaskChanged(_ context.Context, id string) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	ts.mu.Lock()
	set := ts.waiters[id]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		ts.waiters[id] = set
	}
	set[ch] = struct{}{}
	ts.mu.Unlock()
	t := time.AfterFunc(TaskRecheck, func() { ts.release(id, ch, true) })
	return ch, func() {
		t.Stop()
		ts.release(id, ch, false)
	}
}

// release forgets waiter ch of task id, closing it when wake is set.
func (ts *TaskStore) release(id string, ch chan struct{}, wake bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	set := ts.waiters[id]
	if _, ok := set[ch]; !ok {
		return
	}
	delete(set, ch)
	if len(set) == 0 {
		delete(ts.waiters, id)
	}
	if wake {
		close(ch)
	}
}

// wake closes every waiter of task id.
func (ts *TaskStore) wake(id string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for ch := range ts.waiters[id] {
		close(ch)
	}
	delete(ts.waiters, id)
}

var _ tasks.Store = (*TaskStore)(nil)
