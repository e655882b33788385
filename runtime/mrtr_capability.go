package runtime

import (
	"errors"
	"net/http"
	"strings"
)

// missingCapabilityError is an ErrCapabilityMissing that knows which
// capability was missing.
type missingCapabilityError struct {
	capability string // "elicitation", "elicitation.form", "elicitation.url", "sampling" or "roots"
}

func (e *missingCapabilityError) Error() string {
	return ErrCapabilityMissing.Error() + ": " + e.capability
}

func (e *missingCapabilityError) Is(target error) bool { return target == ErrCapabilityMissing }

// capabilityOf names the client capability a server-to-client method needs.
func capabilityOf(method string) string {
	switch method {
	case "elicitation/create":
		return "elicitation"
	case "sampling/createMessage":
		return "sampling"
	case "roots/list":
		return "roots"
	}
	return method
}

// missingCapabilityReply turns an ErrCapabilityMissing into -32021 (HTTP
// 400) whose data names the capability as a ClientCapabilities object, e.g.
// {"requiredCapabilities":{"sampling":{}}}.
func missingCapabilityReply(err error) modernReply {
	capability := ""
	var mc *missingCapabilityError
	if errors.As(err, &mc) {
		capability = mc.capability
	} else {
		// Call's own checks wrap ErrCapabilityMissing with the capability's
		// name in the message: "...: sampling", "...: elicitation (URL mode)".
		msg := err.Error()
		switch {
		case strings.Contains(msg, "URL mode"):
			capability = "elicitation.url"
		case strings.Contains(msg, "elicitation"):
			capability = "elicitation.form"
		case strings.Contains(msg, "sampling"):
			capability = "sampling"
		case strings.Contains(msg, "roots"):
			capability = "roots"
		}
	}
	required := map[string]any{}
	switch capability {
	case "elicitation.form":
		required["elicitation"] = map[string]any{"form": struct{}{}}
	case "elicitation.url":
		required["elicitation"] = map[string]any{"url": struct{}{}}
	case "":
	default:
		required[capability] = struct{}{}
	}
	return replyError(http.StatusBadRequest, &Error{
		Code:    CodeMissingCapability,
		Message: "the client did not declare a capability this request needs: " + err.Error(),
		Data: struct {
			RequiredCapabilities map[string]any `json:"requiredCapabilities"`
		}{required},
	})
}
