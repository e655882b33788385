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
// input-required-result-non-tool-request scenarios read, with the names,
// texts and shapes of the suite's reference server. They are declared in
// schemas/prompts and schemas/resources and generated into fixtures like the
// tools; these are their handler methods.

// listCache is the cache hint of the prompt and resource lists (the
// reference server's value; the reads' hint is in the schemas' _meta).
var listCache = runtime.CacheHint{TTL: 5 * time.Minute, Scope: runtime.CachePublic}

// setListCaches gives the three lists their cache hint.
func setListCaches(s *runtime.Server) error {
	for _, m := range []string{"prompts/list", "resources/list", "resources/templates/list"} {
		if err := s.SetListCache(m, listCache); err != nil {
			return err
		}
	}
	return nil
}

func userText(s string) runtime.PromptMessage { return runtime.UserMessage(runtime.Text(s)) }

func (h *handler) TestSimplePromptPrompt(context.Context, fixtures.TestSimplePromptPromptCall) (*runtime.PromptResult, error) {
	return &runtime.PromptResult{Messages: []runtime.PromptMessage{userText("This is a simple prompt for testing.")}}, nil
}

func (h *handler) TestPromptWithArgumentsPrompt(_ context.Context, _ fixtures.TestPromptWithArgumentsPromptCall, in fixtures.TestPromptWithArgumentsPromptArgs) (*runtime.PromptResult, error) {
	return &runtime.PromptResult{Messages: []runtime.PromptMessage{
		userText(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", in.Arg1, in.Arg2)),
	}}, nil
}

// CompleteTestPromptWithArgumentsArg1 suggests values for arg1: the suite accepts any answer
// with a values array.
func (h *handler) CompleteTestPromptWithArgumentsArg1(ctx context.Context, req runtime.CompletionRequest) (*runtime.Completion, error) {
	return completeFrom("testValue1", "test", "testing")(ctx, req)
}

func (h *handler) TestPromptWithEmbeddedResourcePrompt(_ context.Context, _ fixtures.TestPromptWithEmbeddedResourcePromptCall, in fixtures.TestPromptWithEmbeddedResourcePromptArgs) (*runtime.PromptResult, error) {
	return &runtime.PromptResult{Messages: []runtime.PromptMessage{
		runtime.UserMessage(&runtime.EmbeddedResource{Resource: runtime.ResourceContents{
			URI: in.ResourceURI, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
		userText("Please process the embedded resource above."),
	}}, nil
}

func (h *handler) TestPromptWithImagePrompt(context.Context, fixtures.TestPromptWithImagePromptCall) (*runtime.PromptResult, error) {
	return &runtime.PromptResult{Messages: []runtime.PromptMessage{
		runtime.UserMessage(&runtime.ImageContent{Data: h.png, MIMEType: "image/png"}),
		userText("Please analyze the image above."),
	}}, nil
}

func (h *handler) TestInputRequiredResultPromptPrompt(ctx context.Context, call fixtures.TestInputRequiredResultPromptPromptCall) (*runtime.PromptResult, error) {
	answer, err := call.ElicitUserContext(ctx, "")
	if err != nil {
		return nil, err
	}
	return &runtime.PromptResult{Messages: []runtime.PromptMessage{userText("Prompt with context: " + answer.Context)}}, nil
}

func textResource(uri, body string) *runtime.ResourceResult {
	return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: body}}}
}

func (h *handler) ReadStaticText(context.Context, fixtures.StaticTextResourceCall) (*runtime.ResourceResult, error) {
	return textResource(fixtures.StaticTextResourceURI, "This is the content of the static text resource."), nil
}

func (h *handler) ReadStaticBinary(context.Context, fixtures.StaticBinaryResourceCall) (*runtime.ResourceResult, error) {
	return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: fixtures.StaticBinaryResourceURI, MIMEType: "image/png", Blob: h.png}}}, nil
}

func (h *handler) ReadWatchedResource(context.Context, fixtures.WatchedResourceResourceCall) (*runtime.ResourceResult, error) {
	return textResource(fixtures.WatchedResourceResourceURI, "Watched resource content"), nil
}

func (h *handler) ReadTemplate(_ context.Context, _ fixtures.TemplateTemplateCall, uri string, in fixtures.TemplateParams) (*runtime.ResourceResult, error) {
	text, _ := json.Marshal(map[string]any{"id": in.ID, "templateTest": true, "data": "Data for ID: " + in.ID})
	return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(text)}}}, nil
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
func (h *handler) TestTriggerPromptChange(ctx context.Context, call fixtures.TestTriggerPromptChangeCall, in fixtures.TestTriggerPromptChangeInput) ([]runtime.Content, error) {
	call.NotifyPromptListChanged()
	return []runtime.Content{runtime.Text("Mutation triggered")}, nil
}
