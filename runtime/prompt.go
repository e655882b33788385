package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// PromptHandler runs one prompts/get. args are the prompt's arguments
// (strings, as MCP sends them), with every required one present. Generated
// code decodes them into the typed arguments, calls the user's handler and
// returns its messages. The Call asks the client (elicitation: live in a
// legacy session, input_required rounds in 2026-07-28), exactly as in
// tools/call.
type PromptHandler func(ctx context.Context, call *Call, args map[string]string) (*PromptResult, error)

// Prompt is one prompt as generated code registers it.
type Prompt struct {
	// Name is the prompt's name, as in Definition.
	Name string
	// Definition is the Prompt object prompts/list advertises (name, title,
	// description, arguments, icons, _meta), byte for byte as written.
	Definition json.RawMessage
	// Elicitations are the forms this prompt may ask for; their schemas are
	// compiled once, when the prompt is added.
	Elicitations []*Elicitation
	// Handler answers prompts/get.
	Handler PromptHandler
	// Scopes are the OAuth scopes a caller's token must grant to get the
	// prompt; checked only when Options.Auth is set.
	Scopes []string
	// Complete suggests values for the prompt's arguments (completion/complete
	// with a ref/prompt), per argument name. An argument without one gets no
	// suggestions.
	Complete map[string]CompletionHandler
}

// PromptResult is the result of one prompts/get.
type PromptResult struct {
	// Description is sent as the result's description when not empty.
	Description string
	Messages    []PromptMessage
}

// PromptMessage is one message of a prompt: Content is any content block
// (text, image, audio, resource link, embedded resource).
type PromptMessage struct {
	Role    Role
	Content Content
}

// Role is the speaker of a prompt message.
type Role string

// The roles of prompt messages.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// UserMessage is shorthand for a user message.
func UserMessage(c Content) PromptMessage { return PromptMessage{Role: RoleUser, Content: c} }

// AssistantMessage is shorthand for an assistant message.
func AssistantMessage(c Content) PromptMessage { return PromptMessage{Role: RoleAssistant, Content: c} }

// MarshalJSON writes messages as an array even when empty.
func (r *PromptResult) MarshalJSON() ([]byte, error) {
	msgs := r.Messages
	if msgs == nil {
		msgs = []PromptMessage{}
	}
	return json.Marshal(struct {
		Description string          `json:"description,omitempty"`
		Messages    []PromptMessage `json:"messages"`
	}{r.Description, msgs})
}

// MarshalJSON refuses a message without content, which no client can read.
func (m PromptMessage) MarshalJSON() ([]byte, error) {
	if m.Content == nil {
		return nil, fmt.Errorf("a prompt message (role %q) has no content", m.Role)
	}
	role := m.Role
	if role == "" {
		role = RoleUser
	}
	return json.Marshal(struct {
		Role    Role    `json:"role"`
		Content Content `json:"content"`
	}{role, m.Content})
}

// registeredPrompt is a Prompt with its argument declarations read.
type registeredPrompt struct {
	Prompt
	required []string // names of the required arguments, in declaration order
	declared map[string]bool
}

// checkElicitations compiles the forms of a prompt's or resource's
// elicitations.
func checkElicitations(es []*Elicitation) error {
	for _, e := range es {
		if _, err := e.form(); err != nil {
			return err
		}
	}
	return nil
}

func compactJSON(raw json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// arguments decodes prompts/get's arguments: an object of strings
// ({} when absent) holding every required argument.
func (p *registeredPrompt) arguments(raw json.RawMessage) (map[string]string, *Error) {
	args := map[string]string{}
	raw = trimSpace(raw)
	if len(raw) > 0 && string(raw) != "null" {
		if e := decodeAt(raw, &args, "/arguments"); e != nil {
			return nil, e // the arguments of a prompt are an object of strings
		}
	}
	var missing []string
	for _, n := range p.required {
		if _, ok := args[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, &Error{Code: CodeInvalidParams,
			Message: fmt.Sprintf("prompts/get: prompt %q is missing required arguments: %v", p.Name, missing),
			Data:    map[string]any{"missing": slices.Clip(missing)}}
	}
	return args, nil
}

// compilePrompt checks and compiles p for the registry.
func compilePrompt(p Prompt) (*registeredPrompt, error) {
	var def struct {
		Name      string `json:"name"`
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(p.Definition, &def); err != nil {
		return nil, fmt.Errorf("prompt %q: definition: %w", p.Name, err)
	}
	if def.Name != p.Name || p.Name == "" {
		return nil, fmt.Errorf("prompt %q: definition names %q", p.Name, def.Name)
	}
	if err := checkScopes("prompt", p.Name, p.Scopes); err != nil {
		return nil, err
	}
	if p.Handler == nil {
		return nil, fmt.Errorf("prompt %q: no handler", p.Name)
	}
	rp := &registeredPrompt{Prompt: p, declared: map[string]bool{}}
	for i, a := range def.Arguments {
		if a.Name == "" || rp.declared[a.Name] {
			return nil, fmt.Errorf("prompt %q: arguments[%d]: the name %q is empty or repeated", p.Name, i, a.Name)
		}
		rp.declared[a.Name] = true
		if a.Required {
			rp.required = append(rp.required, a.Name)
		}
	}
	for name := range p.Complete {
		if !rp.declared[name] {
			return nil, fmt.Errorf("prompt %q: a completion handler for %q, which is not one of its arguments", p.Name, name)
		}
	}
	if err := checkElicitations(p.Elicitations); err != nil {
		return nil, fmt.Errorf("prompt %q: %w", p.Name, err)
	}
	compact, err := compactJSON(p.Definition)
	if err != nil {
		return nil, fmt.Errorf("prompt %q: definition: %w", p.Name, err)
	}
	rp.Definition = compact
	return rp, nil
}
