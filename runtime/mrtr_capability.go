package runtime

import (
	"errors"
	"net/http"
)

// missingCapabilityReply turns an ErrCapabilityMissing into -32021 (HTTP
// 400) whose data names the capability as a ClientCapabilities object, e.g.
// {"requiredCapabilities":{"sampling":{}}}.
func missingCapabilityReply(err error) modernReply {
	required := map[string]any{}
	var ce *CapabilityError
	if errors.As(err, &ce) {
		switch ce.Capability {
		case "elicitation.form":
			required["elicitation"] = map[string]any{"form": struct{}{}}
		case "elicitation.url":
			required["elicitation"] = map[string]any{"url": struct{}{}}
		case "":
		default:
			required[ce.Capability] = struct{}{}
		}
	}
	return replyError(http.StatusBadRequest, &Error{
		Code:    CodeMissingCapability,
		Message: "the client did not declare a capability this request needs: " + err.Error(),
		Data: struct {
			RequiredCapabilities map[string]any `json:"requiredCapabilities"`
		}{required},
	})
}
