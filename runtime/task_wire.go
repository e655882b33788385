package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
)

// How tasks look on the wire: their IDs, the task object of each era, the
// params and errors of the tasks methods.

func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// declaresTasks reports whether 2026-07-28 client capabilities declare the
// tasks extension.
func declaresTasks(c ClientCapabilities) bool {
	_, ok := c.extension(extTasks)
	return ok
}

// errTasksExtension is -32021 for a 2026-07-28 request that needs the
// tasks extension and did not declare it.
func errTasksExtension(what string) *Error {
	return &Error{
		Code:    CodeMissingCapability,
		Message: "Missing required client capability: " + what + " needs the extension " + extTasks,
		Data: struct {
			RequiredCapabilities any `json:"requiredCapabilities"`
		}{map[string]any{"extensions": map[string]any{extTasks: struct{}{}}}},
	}
}

// taskID returns params.taskId, required by every tasks method.
func taskID(rq *request) (string, *Error) {
	if rq.params.TaskID == nil || *rq.params.TaskID == "" {
		return "", NewError(CodeInvalidParams, "%s: params.taskId is required", rq.method)
	}
	return *rq.params.TaskID, nil
}

// gateTasks checks that a tasks method may run for rq (taskEra.allowed).
func gateTasks(rq *request) *Error { return rq.era.tasks().allowed(rq) }

// taskObject encodes the task as its era spells it: 2025-11-25 ttl and
// pollInterval, 2026-07-28 ttlMs and pollIntervalMs. detailed adds the
// 2026-07-28 DetailedTask members of its status (inputRequests, result,
// error).
func taskObject(r *TaskRecord, modern, detailed bool) json.RawMessage {
	type wire struct {
		TaskID         string                     `json:"taskId"`
		Status         string                     `json:"status"`
		StatusMessage  string                     `json:"statusMessage,omitempty"`
		CreatedAt      string                     `json:"createdAt"`
		LastUpdatedAt  string                     `json:"lastUpdatedAt"`
		TTL            *int64                     `json:"ttl,omitempty"`
		PollInterval   *int64                     `json:"pollInterval,omitempty"`
		TTLMs          *int64                     `json:"ttlMs,omitempty"`
		PollIntervalMs *int64                     `json:"pollIntervalMs,omitempty"`
		InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
		Result         json.RawMessage            `json:"result,omitempty"`
		Error          *Error                     `json:"error,omitempty"`
	}
	ttl, poll := r.TTL.Milliseconds(), r.PollInterval.Milliseconds()
	w := wire{TaskID: r.ID, Status: r.Status, StatusMessage: r.StatusMessage,
		CreatedAt: r.CreatedAt.UTC().Format(taskTime), LastUpdatedAt: r.UpdatedAt.UTC().Format(taskTime)}
	if modern {
		w.TTLMs, w.PollIntervalMs = &ttl, &poll
	} else {
		w.TTL, w.PollInterval = &ttl, &poll
	}
	if detailed {
		switch r.Status {
		case TaskInputRequired:
			w.InputRequests = map[string]json.RawMessage{}
			for k, in := range r.Inputs {
				b, _ := json.Marshal(in)
				w.InputRequests[k] = b
			}
		case TaskCompleted:
			w.Result = r.Result
		case TaskFailed:
			w.Error = r.Error
			if w.Error == nil {
				w.Error = &Error{Code: CodeInternalError, Message: r.StatusMessage}
			}
		}
	}
	b, _ := json.Marshal(w)
	return b
}

// taskTime is the ISO 8601 form of task timestamps.
const taskTime = "2006-01-02T15:04:05.000Z07:00"

func isToolError(result any) bool {
	r, ok := result.(*ToolResult)
	return ok && r.IsError
}
