package tasks

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime"
)

// How tasks look on the wire: a tool's taskSupport, task IDs, the task
// object of each era, the errors of the tasks methods.

// metaRelatedTask ties a 2025-11-25 message to its task.
const metaRelatedTask = "io.modelcontextprotocol/related-task"

// support is a tool's execution.taskSupport: whether tools/call may (or
// must) run it as a task.
type support uint8

const (
	forbidden support = iota
	optional
	required
)

// parseSupport reads execution.taskSupport of a tool definition.
func parseSupport(def json.RawMessage) (support, error) {
	var d struct {
		Execution *struct {
			TaskSupport *string `json:"taskSupport"`
		} `json:"execution"`
	}
	if err := json.Unmarshal(def, &d); err != nil {
		return forbidden, fmt.Errorf("definition: execution: %w", err)
	}
	if d.Execution == nil || d.Execution.TaskSupport == nil {
		return forbidden, nil
	}
	switch *d.Execution.TaskSupport {
	case "forbidden":
		return forbidden, nil
	case "optional":
		return optional, nil
	case "required":
		return required, nil
	}
	return forbidden, fmt.Errorf("definition: execution.taskSupport is %q; want forbidden, optional or required", *d.Execution.TaskSupport)
}

func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// errTasksExtension is -32021 for a 2026-07-28 request that needs the
// tasks extension and did not declare it.
func errTasksExtension(what string) *runtime.Error {
	return &runtime.Error{
		Code:    runtime.CodeMissingCapability,
		Message: "Missing required client capability: " + what + " needs the extension " + ExtensionID,
		Data: struct {
			RequiredCapabilities any `json:"requiredCapabilities"`
		}{map[string]any{"extensions": map[string]any{ExtensionID: struct{}{}}}},
	}
}

// errUnknownTask answers for a task that does not exist, has expired, or
// is another caller's: the same words for all three.
func errUnknownTask(id string) *runtime.Error {
	return runtime.NewError(runtime.CodeInvalidParams, "Failed to retrieve task: Task not found: %s", id)
}

// taskID returns params.taskId, required by every tasks method.
func taskID(req *runtime.MethodRequest) (string, error) {
	var p struct {
		TaskID *string `json:"taskId"`
	}
	if err := runtime.DecodeParams(req.Params, &p); err != nil {
		return "", err
	}
	if p.TaskID == nil || *p.TaskID == "" {
		return "", runtime.NewError(runtime.CodeInvalidParams, "%s: params.taskId is required", req.Method)
	}
	return *p.TaskID, nil
}

// taskObject encodes the task as its era spells it: 2025-11-25 ttl and
// pollInterval, 2026-07-28 ttlMs and pollIntervalMs. detailed adds the
// 2026-07-28 DetailedTask members of its status (inputRequests, result,
// error).
func taskObject(r *Record, modern, detailed bool) json.RawMessage {
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
		Error          *runtime.Error             `json:"error,omitempty"`
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
		case InputRequired:
			w.InputRequests = map[string]json.RawMessage{}
			for k, in := range r.Inputs {
				b, _ := json.Marshal(in)
				w.InputRequests[k] = b
			}
		case Completed:
			w.Result = r.Result
		case Failed:
			w.Error = r.Error
			if w.Error == nil {
				w.Error = &runtime.Error{Code: runtime.CodeInternalError, Message: r.StatusMessage}
			}
		}
	}
	b, _ := json.Marshal(w)
	return b
}

// taskTime is the ISO 8601 form of task timestamps.
const taskTime = "2006-01-02T15:04:05.000Z07:00"

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
