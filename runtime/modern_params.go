package runtime

import (
	"bytes"
	"encoding/json"
)

// modernParams is the params object of a 2026-07-28 request, decoded once
// and shared by the header checks, the _meta checks and the method.
type modernParams struct {
	Meta           rawMeta             `json:"_meta"`
	Name           *string             `json:"name"`   // tools/call, prompts/get
	URI            *string             `json:"uri"`    // resources/read
	TaskID         *string             `json:"taskId"` // tasks/*
	Arguments      json.RawMessage     `json:"arguments"`
	InputResponses json.RawMessage     `json:"inputResponses"`
	RequestState   *string             `json:"requestState"`
	Cursor         *string             `json:"cursor"`
	Notifications  *subscriptionFilter `json:"notifications"`
}

// decodeModernParams decodes params; absent params are an empty object. The
// error is -32602: params must be an object whose known members have their
// types.
func decodeModernParams(raw json.RawMessage) (*modernParams, *Error) {
	p := &modernParams{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return p, nil
	}
	if !isObjectJSON(raw) {
		return &modernParams{}, NewError(CodeInvalidParams, "params must be an object")
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return &modernParams{}, NewError(CodeInvalidParams, "params: %v", err)
	}
	return p, nil
}

// mcpName is the body value Mcp-Name must carry: params.name for tools/call
// and prompts/get, params.uri for resources/read, params.taskId for the tasks
// methods.
func (p *modernParams) mcpName(method string) (string, bool) {
	var v *string
	switch method {
	case "tools/call", "prompts/get":
		v = p.Name
	case "resources/read":
		v = p.URI
	case "tasks/get", "tasks/update", "tasks/cancel":
		v = p.TaskID
	}
	if v == nil {
		return "", false
	}
	return *v, true
}
