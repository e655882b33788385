package runtime

import "encoding/json"

// SamplingMessage is one message of a sampling/createMessage request or result.
type SamplingMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a content block (or, since 2025-11-25, an array of them)
}

// SamplingRequest is the params of sampling/createMessage.
type SamplingRequest struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"maxTokens"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	ModelPreferences json.RawMessage   `json:"modelPreferences,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	Metadata         json.RawMessage   `json:"metadata,omitempty"`
	Tools            json.RawMessage   `json:"tools,omitempty"`
	ToolChoice       json.RawMessage   `json:"toolChoice,omitempty"`
}

// SamplingResult is the client's answer to sampling/createMessage.
type SamplingResult struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
}

// UserText builds a one-message sampling request asking the model about text.
func UserText(text string, maxTokens int) *SamplingRequest {
	c, _ := json.Marshal(Text(text))
	return &SamplingRequest{Messages: []SamplingMessage{{Role: "user", Content: c}}, MaxTokens: maxTokens}
}

// Root is one entry of roots/list.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// LogLevel is an RFC 5424 severity as MCP spells it.
type LogLevel string

// The MCP log levels, least severe first.
const (
	LevelDebug     LogLevel = "debug"
	LevelInfo      LogLevel = "info"
	LevelNotice    LogLevel = "notice"
	LevelWarning   LogLevel = "warning"
	LevelError     LogLevel = "error"
	LevelCritical  LogLevel = "critical"
	LevelAlert     LogLevel = "alert"
	LevelEmergency LogLevel = "emergency"
)

var logLevelRank = map[LogLevel]int{
	LevelDebug: 0, LevelInfo: 1, LevelNotice: 2, LevelWarning: 3,
	LevelError: 4, LevelCritical: 5, LevelAlert: 6, LevelEmergency: 7,
}

// validLogLevel reports whether l is one of the eight MCP levels.
func validLogLevel(l LogLevel) bool { _, ok := logLevelRank[l]; return ok }

// logLevelEnabled reports whether a message at level passes threshold.
func logLevelEnabled(level, threshold LogLevel) bool {
	return logLevelRank[level] >= logLevelRank[threshold]
}
