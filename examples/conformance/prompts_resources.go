package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/examples/conformance/fixtures"
	"github.com/mcpgen/mcpgen/runtime"
)

// The prompts, resources, resource template and completion the suite's
// prompts-*, resources-*, completion-complete, caching and
// input-required-result-non-tool-request scenarios read, registered by hand
// through the runtime (as generated code will register them), with the
// names, texts and shapes of the suite's reference server.

// listCache is the cache hint of the prompt and resource lists, readCache
// that of the reads (the reference server's values).
var (
	listCache = runtime.CacheHint{TTL: 5 * time.Minute, Scope: runtime.CachePublic}
	readCache = runtime.CacheHint{TTL: 5 * time.Minute, Scope: runtime.CachePrivate}
)

// userContext is the form test_input_required_result_prompt asks for.
var userContext = &runtime.Elicitation{
	Name:            "user_context",
	Mode:            "form",
	Message:         "What context should the prompt use?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`),
}

// registerPromptsAndResources adds the fixtures to s.
func registerPromptsAndResources(s *runtime.Server, h *handler) error {
	for _, m := range []string{"prompts/list", "resources/list", "resources/templates/list"} {
		if err := s.SetListCache(m, listCache); err != nil {
			return err
		}
	}
	for _, p := range h.prompts() {
		if err := s.AddPrompt(p); err != nil {
			return err
		}
	}
	for _, r := range h.resources() {
		if err := s.AddResource(r); err != nil {
			return err
		}
	}
	return s.AddResourceTemplate(runtime.ResourceTemplate{
		URITemplate: "test://template/{id}/data",
		Definition:  json.RawMessage(`{"name":"template","uriTemplate":"test://template/{id}/data","title":"Resource Template","description":"A resource template with parameter substitution","mimeType":"application/json"}`),
		Cache:       &readCache,
		Handler: func(_ context.Context, _ *runtime.Call, uri string, vars runtime.URIVars) (*runtime.ResourceResult, error) {
			id := vars.Get("id")
			text, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(text)}}}, nil
		},
	})
}

func (h *handler) prompts() []runtime.Prompt {
	text := func(s string) runtime.PromptMessage { return runtime.UserMessage(runtime.Text(s)) }
	fixed := func(msgs ...runtime.PromptMessage) runtime.PromptHandler {
		return func(context.Context, *runtime.Call, map[string]string) (*runtime.PromptResult, error) {
			return &runtime.PromptResult{Messages: msgs}, nil
		}
	}
	return []runtime.Prompt{
		{
			Name:       "test_simple_prompt",
			Definition: json.RawMessage(`{"name":"test_simple_prompt","title":"Simple Test Prompt","description":"A simple prompt without arguments"}`),
			Handler:    fixed(text("This is a simple prompt for testing.")),
		},
		{
			Name:       "test_prompt_with_arguments",
			Definition: json.RawMessage(`{"name":"test_prompt_with_arguments","title":"Prompt With Arguments","description":"A prompt with required arguments","arguments":[{"name":"arg1","description":"First test argument","required":true},{"name":"arg2","description":"Second test argument","required":true}]}`),
			Handler: func(_ context.Context, _ *runtime.Call, args map[string]string) (*runtime.PromptResult, error) {
				return &runtime.PromptResult{Messages: []runtime.PromptMessage{
					text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"])),
				}}, nil
			},
			// The suite completes arg1; any answer with a values array passes.
			Complete: map[string]runtime.CompletionHandler{"arg1": completeFrom("testValue1", "test", "testing")},
		},
		{
			Name:       "test_prompt_with_embedded_resource",
			Definition: json.RawMessage(`{"name":"test_prompt_with_embedded_resource","title":"Prompt With Embedded Resource","description":"A prompt that includes an embedded resource","arguments":[{"name":"resourceUri","description":"URI of the resource to embed","required":true}]}`),
			Handler: func(_ context.Context, _ *runtime.Call, args map[string]string) (*runtime.PromptResult, error) {
				return &runtime.PromptResult{Messages: []runtime.PromptMessage{
					runtime.UserMessage(&runtime.EmbeddedResource{Resource: runtime.ResourceContents{
						URI: args["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
					text("Please process the embedded resource above."),
				}}, nil
			},
		},
		{
			Name:       "test_prompt_with_image",
			Definition: json.RawMessage(`{"name":"test_prompt_with_image","title":"Prompt With Image","description":"A prompt that includes image content"}`),
			Handler: fixed(
				runtime.UserMessage(&runtime.ImageContent{Data: h.png, MIMEType: "image/png"}),
				text("Please analyze the image above."),
			),
		},
		{
			Name:         "test_input_required_result_prompt",
			Definition:   json.RawMessage(`{"name":"test_input_required_result_prompt","description":"MRTR: prompt that requires elicitation input"}`),
			Elicitations: []*runtime.Elicitation{userContext},
			Handler: func(ctx context.Context, call *runtime.Call, _ map[string]string) (*runtime.PromptResult, error) {
				var answer struct {
					Context string `json:"context"`
				}
				if err := call.Elicit(ctx, userContext, "", &answer); err != nil {
					return nil, err
				}
				return &runtime.PromptResult{Messages: []runtime.PromptMessage{text("Prompt with context: " + answer.Context)}}, nil
			},
		},
	}
}

func (h *handler) resources() []runtime.Resource {
	text := func(uri, body string) runtime.ResourceHandler {
		return func(context.Context, *runtime.Call, string) (*runtime.ResourceResult, error) {
			return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: body}}}, nil
		}
	}
	return []runtime.Resource{
		{
			URI:        "test://static-text",
			Definition: json.RawMessage(`{"uri":"test://static-text","name":"static-text","title":"Static Text Resource","description":"A static text resource for testing","mimeType":"text/plain"}`),
			Cache:      &readCache,
			Handler:    text("test://static-text", "This is the content of the static text resource."),
		},
		{
			URI:        "test://static-binary",
			Definition: json.RawMessage(`{"uri":"test://static-binary","name":"static-binary","title":"Static Binary Resource","description":"A static binary resource (image) for testing","mimeType":"image/png"}`),
			Cache:      &readCache,
			Handler: func(context.Context, *runtime.Call, string) (*runtime.ResourceResult, error) {
				return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: "test://static-binary", MIMEType: "image/png", Blob: h.png}}}, nil
			},
		},
		{
			URI:        "test://watched-resource",
			Definition: json.RawMessage(`{"uri":"test://watched-resource","name":"watched-resource","title":"Watched Resource","description":"A resource clients may subscribe to","mimeType":"text/plain"}`),
			Cache:      &readCache,
			Handler:    text("test://watched-resource", "Watched resource content"),
		},
	}
}

// completeFrom suggests the values that start with what the user typed.
func completeFrom(values ...string) runtime.CompletionHandler {
	return func(_ context.Context, req runtime.CompletionRequest) (*runtime.Completion, error) {
		var out []string
		for _, v := range values {
			if len(v) >= len(req.Value) && v[:len(req.Value)] == req.Value {
				out = append(out, v)
			}
		}
		return &runtime.Completion{Values: out, Total: len(out)}, nil
	}
}

// TestTriggerPromptChange announces a prompt list change, for the 2026-07-28
// listen checks of server-stateless.
func (h *handler) TestTriggerPromptChange(context.Context, fixtures.TestTriggerPromptChangeCall, fixtures.TestTriggerPromptChangeInput) ([]runtime.Content, error) {
	h.server.NotifyPromptListChanged()
	return []runtime.Content{runtime.Text("Mutation triggered")}, nil
}
