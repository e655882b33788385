package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// taskPeer is the peer of a handler that runs as a task. A question it asks
// (Elicit, CreateMessage, ListRoots) is parked in the task under its key,
// the task moves to input_required, and the handler waits, bounded by
// RequestTimeout and the task's own end, for the answer to arrive in the
// store: from tasks/update (2026-07-28), or from the client's answer on a
// tasks/result stream that delivered the question (2025-11-25). The answer
// resumes the same handler where it waits; nothing is replayed.
//
// Notifications (progress, logs) ride the stream of a tasks/result that
// waits for the task in this process (2025-11-25); 2026-07-28 has no
// notifications for tasks, so they are dropped.
type taskPeer struct {
	e        *taskEngine
	id       string
	modern   bool
	lt       *liveTask
	caps     ClientCapabilities
	level    LogLevel
	progress json.RawMessage
}

func (p *taskPeer) capabilities() ClientCapabilities { return p.caps }
func (p *taskPeer) logLevel() LogLevel               { return p.level }
func (p *taskPeer) progressToken() json.RawMessage   { return p.progress }

// urlMode mints an elicitationId in 2025-11-25; no session hears of a
// task's elicitation completing (the task's own status reports it).
func (p *taskPeer) urlMode() urlMode {
	if p.modern {
		return urlMode{supported: true}
	}
	return urlMode{supported: true, id: newTaskID()[:24]}
}

// requireURL fails the task with -32042, which tasks/result carries.
func (p *taskPeer) requireURL(_ []string, list []urlParams) error { return urlRequiredError(list) }

func (p *taskPeer) notify(ctx context.Context, method string, params any) error {
	if p.modern {
		return nil
	}
	p.lt.mu.Lock()
	l := p.lt.listen
	p.lt.mu.Unlock()
	if l == nil {
		return nil
	}
	return l.notify(ctx, method, params)
}

// answerRefused marks an answer slot of a question the client answered
// with a JSON-RPC error (2025-11-25 tasks/result delivery).
var answerRefused = json.RawMessage(`null`)

func (p *taskPeer) request(ctx context.Context, key, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", method, err)
	}
	if !p.modern {
		raw = withMetaKey(raw, metaRelatedTask, relatedTask(p.id))
	}
	st := p.e.store
	bg := context.WithoutCancel(ctx)
	if _, err := st.UpdateTask(ctx, p.id, func(r *TaskRecord) error {
		if r.Terminal() {
			return errTaskEnded
		}
		if r.Inputs == nil {
			r.Inputs = map[string]TaskInput{}
		}
		r.Inputs[key] = TaskInput{Method: method, Params: raw}
		r.Status, r.UpdatedAt = TaskInputRequired, time.Now().UTC()
		return nil
	}); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrExpired, method, err)
	}
	timeout := time.NewTimer(p.e.opts.RequestTimeout)
	defer timeout.Stop()
	for {
		ch, done := st.TaskChanged(ctx, p.id)
		r, err := st.GetTask(ctx, p.id)
		if err == nil {
			if ans, ok := r.Answers[key]; ok {
				done()
				_, _ = st.UpdateTask(bg, p.id, func(r *TaskRecord) error { delete(r.Answers, key); return nil })
				if bytes.Equal(ans, answerRefused) {
					return nil, fmt.Errorf("the client answered %s with an error", method)
				}
				if err := checkAnswerShape(method, ans); err != nil {
					return nil, fmt.Errorf("%w: %s result: %v", ErrInvalidAnswer, method, err)
				}
				return ans, nil
			}
			if r.Terminal() {
				err = errTaskEnded
			}
		}
		if err != nil {
			done()
			return nil, fmt.Errorf("%w: %s: %w", ErrExpired, method, err)
		}
		var cause error
		select {
		case <-ch:
		case <-ctx.Done():
			cause = context.Cause(ctx)
		case <-timeout.C:
			cause = context.DeadlineExceeded
		}
		done()
		if cause != nil {
			// Withdraw the question; the task works on (or has ended).
			_, _ = st.UpdateTask(bg, p.id, func(r *TaskRecord) error {
				delete(r.Inputs, key)
				if len(r.Inputs) == 0 && r.Status == TaskInputRequired {
					r.Status, r.UpdatedAt = TaskWorking, time.Now().UTC()
				}
				return nil
			})
			return nil, fmt.Errorf("%w: %s: %w", ErrExpired, method, cause)
		}
	}
}

// answerTask records answers to outstanding questions of task id: each key
// must be outstanding (others are ignored) and leaves Inputs; the task is
// working again once none is left. It returns the keys taken.
func (e *taskEngine) answerTask(ctx context.Context, id string, answers map[string]json.RawMessage) ([]string, error) {
	var taken []string
	_, err := e.store.UpdateTask(ctx, id, func(r *TaskRecord) error {
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
			if len(r.Inputs) == 0 && r.Status == TaskInputRequired {
				r.Status = TaskWorking
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

// carriesMeta: a task's question waits in the store, asked as stored.
func (p *taskPeer) carriesMeta() bool { return false }

// waited is 0: a task's question is answered while its handler waits.
func (p *taskPeer) waited(string) time.Duration { return 0 }
