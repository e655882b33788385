package tasks

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// Store holds the tasks of tools that run as tasks (execution.taskSupport
// optional or required): their status, outstanding questions, the answers
// not yet taken by the handler, and the result. The replica that runs a
// task's handler writes its progress here and renews the task's lease; any
// replica answers tasks/get, tasks/update, tasks/cancel and tasks/result from
// it. Replicas that serve one client share one store; nil in Options means
// MemoryStore (one process).
//
// Every method is safe for concurrent use. A task whose ExpiresAt has passed
// is gone: GetTask and UpdateTask return ErrNotFound for it.
type Store interface {
	// CreateTask stores a new task; once it returns, GetTask finds it on
	// every replica (the task is durable before the client hears of it).
	CreateTask(ctx context.Context, t *Record) error
	// GetTask returns a copy of the task.
	GetTask(ctx context.Context, id string) (*Record, error)
	// UpdateTask applies fn to the task atomically (fn may run more than
	// once, on fresh copies, when the store retries a conflict) and returns
	// the stored result. An error from fn leaves the task unchanged and is
	// returned.
	UpdateTask(ctx context.Context, id string, fn func(*Record) error) (*Record, error)
	// ListTasks returns up to limit tasks of owner in creation order,
	// starting after cursor ("" for the first page), and the cursor of the
	// next page ("" when there is none). A cursor this store did not issue
	// is ErrInvalidCursor.
	ListTasks(ctx context.Context, owner, cursor string, limit int) ([]*Record, string, error)
	// TaskChanged returns a channel that is closed at the task's next
	// change (on any replica). Take it before reading the task, so that a
	// change between the read and the wait is not missed. done releases
	// the channel.
	TaskChanged(ctx context.Context, id string) (ch <-chan struct{}, done func())
}

// A Store's errors reach the client only through storeFailed: a store
// that cannot reach its database returns an error for which
// errors.Is(err, runtime.ErrStoreUnavailable) holds (redisstore's
// UnavailableError), and the client reads a stable message; what failed,
// with the driver's words, goes to the server's log.

// ErrNotFound: no task has this ID (it never existed, or expired).
var ErrNotFound = errors.New("mcpgen: task not found")

// ErrInvalidCursor: a tasks/list cursor this store did not issue.
var ErrInvalidCursor = errors.New("mcpgen: invalid tasks/list cursor")

// Task statuses.
const (
	Working       = "working"
	InputRequired = "input_required"
	Completed     = "completed"
	Failed        = "failed"
	Cancelled     = "cancelled"
)

// Record is one task as a Store keeps it. Stores encode it as JSON.
type Record struct {
	ID    string `json:"id"`
	Tool  string `json:"tool"`
	Owner string `json:"owner,omitempty"` // the legacy session that created it; "" in 2026-07-28
	// Principal is the key of the principal whose token created it
	// (runtime.Principal.Key); only that principal may see or change it.
	Principal string `json:"principal,omitempty"`
	// Caller is who the task is charged to (runtime.MethodRequest.Caller).
	Caller string `json:"caller,omitempty"`
	Modern bool   `json:"modern,omitempty"` // created by a 2026-07-28 request (the extension)

	Status        string    `json:"status"`
	StatusMessage string    `json:"statusMessage,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	// TTL is the retention from creation; ExpiresAt = CreatedAt + TTL.
	TTL          time.Duration `json:"ttl"`
	ExpiresAt    time.Time     `json:"expiresAt"`
	PollInterval time.Duration `json:"pollInterval"`

	// Inputs are the handler's questions the client has not answered yet,
	// by key (unique over the task's life); Answers are answers the handler
	// has not taken yet.
	Inputs  map[string]Input           `json:"inputs,omitempty"`
	Answers map[string]json.RawMessage `json:"answers,omitempty"`

	// Result is the tool's result (a CallToolResult) once it ended with one;
	// Error the JSON-RPC error it ended with otherwise.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *runtime.Error  `json:"error,omitempty"`

	// Replica runs the handler and renews LeaseUntil while it does; a
	// non-terminal task whose lease lapsed lost its replica.
	Replica    string    `json:"replica,omitempty"`
	LeaseUntil time.Time `json:"leaseUntil"`
}

// Input is one outstanding question of a task.
type Input struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// Terminal reports whether the task's status can no longer change.
func (t *Record) Terminal() bool {
	return t.Status == Completed || t.Status == Failed || t.Status == Cancelled
}

// Clone returns a deep copy of t.
func (t *Record) Clone() *Record {
	c := *t
	c.Inputs = maps.Clone(t.Inputs)
	c.Answers = maps.Clone(t.Answers)
	if t.Error != nil {
		e := *t.Error
		c.Error = &e
	}
	return &c
}

// MemoryStore is the in-memory Store of one process. Limit bounds
// the tasks it holds (0 means 10,000); expired tasks are dropped to make
// room, and beyond the bound CreateTask fails.
type MemoryStore struct {
	Limit int

	mu    sync.Mutex
	tasks map[string]*memoryTask
}

type memoryTask struct {
	rec     *Record
	changed chan struct{} // closed and replaced at every change
}

func (m *MemoryStore) limit() int {
	if m.Limit <= 0 {
		return 10_000
	}
	return m.Limit
}

// CreateTask stores t.
func (m *MemoryStore) CreateTask(_ context.Context, t *Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tasks == nil {
		m.tasks = map[string]*memoryTask{}
	}
	if _, dup := m.tasks[t.ID]; dup {
		return fmt.Errorf("task %q already exists", t.ID)
	}
	if len(m.tasks) >= m.limit() {
		now := time.Now()
		for id, e := range m.tasks {
			if expired(e.rec, now) {
				m.drop(id, e)
			}
		}
		if len(m.tasks) >= m.limit() {
			return fmt.Errorf("the task store holds %d tasks, its limit", len(m.tasks))
		}
	}
	m.tasks[t.ID] = &memoryTask{rec: t.Clone(), changed: make(chan struct{})}
	return nil
}

func expired(t *Record, now time.Time) bool {
	return !t.ExpiresAt.IsZero() && now.After(t.ExpiresAt)
}

func (m *MemoryStore) drop(id string, e *memoryTask) {
	delete(m.tasks, id)
	close(e.changed)
}

// live returns the unexpired task id, dropping it if it expired; under mu.
func (m *MemoryStore) live(id string) *memoryTask {
	e := m.tasks[id]
	if e != nil && expired(e.rec, time.Now()) {
		m.drop(id, e)
		return nil
	}
	return e
}

// GetTask returns a copy of the task.
func (m *MemoryStore) GetTask(_ context.Context, id string) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(id)
	if e == nil {
		return nil, ErrNotFound
	}
	return e.rec.Clone(), nil
}

// UpdateTask applies fn to a copy of the task and stores it.
func (m *MemoryStore) UpdateTask(_ context.Context, id string, fn func(*Record) error) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(id)
	if e == nil {
		return nil, ErrNotFound
	}
	c := e.rec.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	e.rec = c
	close(e.changed)
	e.changed = make(chan struct{})
	return c.Clone(), nil
}

// ListTasks pages the owner's tasks in creation order.
func (m *MemoryStore) ListTasks(_ context.Context, owner, cursor string, limit int) ([]*Record, string, error) {
	after, afterID, err := DecodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	m.mu.Lock()
	var all []*Record
	now := time.Now()
	for id, e := range m.tasks {
		if expired(e.rec, now) {
			m.drop(id, e)
			continue
		}
		if e.rec.Owner == owner {
			all = append(all, e.rec.Clone())
		}
	}
	m.mu.Unlock()
	slices.SortFunc(all, compareOrder)
	return PageRecords(all, after, afterID, limit)
}

// TaskChanged returns a channel closed at the task's next change; a task
// that does not exist gets a closed channel.
func (m *MemoryStore) TaskChanged(_ context.Context, id string) (<-chan struct{}, func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.live(id); e != nil {
		return e.changed, func() {}
	}
	ch := make(chan struct{})
	close(ch)
	return ch, func() {}
}

func compareOrder(a, b *Record) int {
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// PageRecords returns the page of tasks (sorted by creation time, then ID) that
// follows the position (after, afterID), and the next page's cursor. Stores
// share it to issue the same cursors.
func PageRecords(sorted []*Record, after time.Time, afterID string, limit int) ([]*Record, string, error) {
	if limit <= 0 {
		limit = 100
	}
	start := 0
	if afterID != "" {
		start = len(sorted)
		for i, t := range sorted {
			if c := t.CreatedAt.Compare(after); c > 0 || c == 0 && t.ID > afterID {
				start = i
				break
			}
		}
	}
	page := sorted[start:]
	next := ""
	if len(page) > limit {
		page = page[:limit]
		last := page[len(page)-1]
		next = EncodeCursor(last.CreatedAt, last.ID)
	}
	return page, next, nil
}

// EncodeCursor is the tasks/list cursor of the position after the task
// created at t with id.
func EncodeCursor(t time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(t.UnixNano(), 10) + ":" + id))
}

// DecodeCursor reverses EncodeCursor ("" is the start); a string
// EncodeCursor did not make is ErrInvalidCursor. Stores share the two, so
// that every store issues the same cursors.
func DecodeCursor(c string) (time.Time, string, error) {
	if c == "" {
		return time.Time{}, "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	ns, id, ok := strings.Cut(string(b), ":")
	n, err2 := strconv.ParseInt(ns, 10, 64)
	if err != nil || !ok || err2 != nil || id == "" {
		return time.Time{}, "", ErrInvalidCursor
	}
	return time.Unix(0, n), id, nil
}

// storeFailed is the -32603 a client gets for a Store error of op on task
// id: "task store unavailable; try again later" when the store is
// unreachable, "task store error" otherwise, never the error's own text
// (it may name the store's address, its driver or the server's Go types).
// The whole error is logged.
func (e *engine) storeFailed(ctx context.Context, op, id string, err error) *runtime.Error {
	e.logger.LogAttrs(ctx, slog.LevelError, "tasks: the task store failed",
		slog.String("op", op), slog.String("task", id), slog.String("error", err.Error()))
	if errors.Is(err, runtime.ErrStoreUnavailable) {
		return runtime.NewError(runtime.CodeInternalError, "%s: task store unavailable; try again later", op)
	}
	return runtime.NewError(runtime.CodeInternalError, "%s: task store error", op)
}
