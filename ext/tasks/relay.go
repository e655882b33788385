package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// relay is how a task's handler talks to its client once tools/call has
// answered (runtime.Relay). A question it asks (Elicit, CreateMessage,
// ListRoots) is parked in the task under its key, the task moves to
// input_required, and the handler waits, bounded by
// runtime.Options.RequestTimeout and the task's own end, for the answer to
// arrive in the store: from tasks/update (2026-07-28), or from the client's
// answer on a tasks/result stream that delivered the question (2025-11-25).
// The answer resumes the same handler where it waits; nothing is replayed.
//
// Notifications (progress, logs) ride the stream of a tasks/result that
// waits for the task in this process (2025-11-25); 2026-07-28 has no
// notifications for tasks, so they are dropped.
type relay struct {
	e      *engine
	id     string
	modern bool
	lt     *liveTask
}

func (r *relay) Notify(ctx context.Context, method string, params any) error {
	if r.modern {
		return nil
	}
	r.lt.mu.Lock()
	l := r.lt.listen
	r.lt.mu.Unlock()
	if l == nil {
		return nil
	}
	return l.Notify(ctx, method, params)
}

// answerRefused marks an answer slot of a question the client answered
// with a JSON-RPC error (2025-11-25 tasks/result delivery).
var answerRefused = json.RawMessage(`null`)

func (r *relay) Request(ctx context.Context, key, method string, params json.RawMessage) (json.RawMessage, error) {
	if !r.modern {
		params = withMetaKey(params, metaRelatedTask, relatedTask(r.id))
	}
	st := r.e.store
	bg := context.WithoutCancel(ctx)
	if _, err := st.UpdateTask(ctx, r.id, func(t *Record) error {
		if t.Terminal() {
			return errTaskEnded
		}
		if t.Inputs == nil {
			t.Inputs = map[string]Input{}
		}
		t.Inputs[key] = Input{Method: method, Params: params}
		t.Status, t.UpdatedAt = InputRequired, time.Now().UTC()
		return nil
	}); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", runtime.ErrExpired, method, err)
	}
	var timeout <-chan time.Time
	if d := r.e.host.RequestTimeout(); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	for {
		ch, done := st.TaskChanged(ctx, r.id)
		t, err := st.GetTask(ctx, r.id)
		if err == nil {
			if ans, ok := t.Answers[key]; ok {
				done()
				_, _ = st.UpdateTask(bg, r.id, func(t *Record) error { delete(t.Answers, key); return nil })
				if bytes.Equal(ans, answerRefused) {
					return nil, fmt.Errorf("the client answered %s with an error", method)
				}
				return ans, nil
			}
			if t.Terminal() {
				err = errTaskEnded
			}
		}
		if err != nil {
			done()
			return nil, fmt.Errorf("%w: %s: %w", runtime.ErrExpired, method, err)
		}
		var cause error
		select {
		case <-ch:
		case <-ctx.Done():
			cause = context.Cause(ctx)
		case <-timeout:
			cause = context.DeadlineExceeded
		}
		done()
		if cause != nil {
			// Withdraw the question; the task works on (or has ended).
			_, _ = st.UpdateTask(bg, r.id, func(t *Record) error {
				delete(t.Inputs, key)
				if len(t.Inputs) == 0 && t.Status == InputRequired {
					t.Status, t.UpdatedAt = Working, time.Now().UTC()
				}
				return nil
			})
			return nil, fmt.Errorf("%w: %s: %w", runtime.ErrExpired, method, cause)
		}
	}
}

// answerTask records answers to outstanding questions of task id: each key
// must be outstanding (others are ignored) and leaves Inputs; the task is
// working again once none is left. It returns the keys taken.
func (e *engine) answerTask(ctx context.Context, id string, answers map[string]json.RawMessage) ([]string, error) {
	var taken []string
	_, err := e.store.UpdateTask(ctx, id, func(r *Record) error {
		taken = taken[:0]
		if r.Terminal() {
			return errTaskEnded
		}
		for k, v := range answers {
			if _, open := r.Inputs[k]; !open {
				continue
			}
			if r.Answers == nil {
				r.Answers = map[string]json.RawMessage{}
			}
			r.Answers[k] = v
			delete(r.Inputs, k)
			taken = append(taken, k)
		}
		if len(taken) > 0 {
			r.UpdatedAt = time.Now().UTC()
			if len(r.Inputs) == 0 && r.Status == InputRequired {
				r.Status = Working
			}
		}
		return nil
	})
	return taken, err
}

func relatedTask(id string) json.RawMessage {
	b, _ := json.Marshal(struct {
		TaskID string `json:"taskId"`
	}{id})
	return b
}

// withMetaKey returns the JSON object obj with _meta[key] = v added (to its
// _meta, when it has one).
func withMetaKey(obj json.RawMessage, key string, v json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil || m == nil {
		return obj
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := m["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	meta[key] = v
	m["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(m)
	if err != nil {
		return obj
	}
	return b
}
