package mcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
)

// Content is the content blocks of a tool result.
type Content []Block

// Text is the text of the text blocks, joined by newlines.
func (c Content) Text() string {
	var parts []string
	for _, b := range c {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Block is one content block, whatever its type: text; image and audio
// (Data, MIMEType); resource_link (URI, Name, MIMEType...); resource
// (Resource).
type Block struct {
	Type        string                    `json:"type"`
	Text        string                    `json:"text,omitempty"`
	Data        []byte                    `json:"data,omitempty"`
	MIMEType    string                    `json:"mimeType,omitempty"`
	URI         string                    `json:"uri,omitempty"`
	Name        string                    `json:"name,omitempty"`
	Title       string                    `json:"title,omitempty"`
	Description string                    `json:"description,omitempty"`
	Resource    *runtime.ResourceContents `json:"resource,omitempty"`
	Annotations *runtime.Annotations      `json:"annotations,omitempty"`
	Meta        json.RawMessage           `json:"_meta,omitempty"`
}

// ToolResult is a tools/call result.
type ToolResult struct {
	Content           Content         `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`

	tool string
	era  Era
}

// ToolError is an isError result: the tool failed in a way the model is
// meant to read (a handler's error, arguments the inputSchema refused).
type ToolError struct {
	Tool    string
	Content Content
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("tool %s failed: %s", e.Tool, e.Content.Text())
}

// Err is a *ToolError when the result is an error, else nil.
func (r *ToolResult) Err() error {
	if r.IsError {
		return &ToolError{Tool: r.tool, Content: r.Content}
	}
	return nil
}

// DecodeOutput decodes the structured output into dst (a tool whose
// outputSchema has an object root). An error result is a *ToolError.
func (r *ToolResult) DecodeOutput(dst any) error {
	if err := r.Err(); err != nil {
		return err
	}
	if len(bytes.TrimSpace(r.StructuredContent)) == 0 {
		return fmt.Errorf("tool %s returned no structuredContent", r.tool)
	}
	if err := json.Unmarshal(r.StructuredContent, dst); err != nil {
		return fmt.Errorf("tool %s: decoding structuredContent: %w", r.tool, err)
	}
	return nil
}

// DecodeValueOutput decodes the structured output of a tool whose
// outputSchema root is not an object (an array, a scalar, a union:
// SEP-2106). Sessions of 2025-11-25 and earlier get such output wrapped as
// {"result": value}; this takes the value out of it there.
func (r *ToolResult) DecodeValueOutput(dst any) error {
	if err := r.Err(); err != nil {
		return err
	}
	raw := r.StructuredContent
	if !r.era.stateless() {
		var wrapped map[string]json.RawMessage
		err := json.Unmarshal(raw, &wrapped)
		value, ok := wrapped["result"]
		if err != nil || !ok || len(wrapped) != 1 {
			return fmt.Errorf("tool %s: in protocol %s structuredContent should be {\"result\": value}, got %.200s", r.tool, r.era, raw)
		}
		raw = value
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("tool %s: decoding structuredContent: %w", r.tool, err)
	}
	return nil
}

// PromptResult is a prompts/get result.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    runtime.Role `json:"role"`
	Content Block        `json:"content"`
}

// Text is the text of the prompt's text messages, joined by newlines.
func (r *PromptResult) Text() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Content.Type == "text" {
			parts = append(parts, m.Content.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ResourceResult is a resources/read result.
type ResourceResult struct {
	Contents []runtime.ResourceContents `json:"contents"`
}

// Text is the text of the contents, joined by newlines.
func (r *ResourceResult) Text() string {
	var parts []string
	for _, c := range r.Contents {
		if c.Blob == nil {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Tool is a tool as tools/list shows it.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Execution    json.RawMessage `json:"execution,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

// Prompt is a prompt as prompts/list shows it.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Meta        json.RawMessage  `json:"_meta,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ResourceTemplate is a resource template as resources/templates/list
// shows it.
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}
