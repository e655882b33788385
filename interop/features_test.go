package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mark3labs/mcp-go/mcp"
)

// featureOps are one SDK's typed prompt, resource and completion methods,
// reduced to what the features check reads.
type featureOps struct {
	listPrompts   func(ctx context.Context) ([]string, error)
	getPrompt     func(ctx context.Context, name string, args map[string]string) (any, error)
	listResources func(ctx context.Context) ([]string, error)
	read          func(ctx context.Context, uri string) (any, error)
	listTemplates func(ctx context.Context) ([]string, error)
	complete      func(ctx context.Context, prompt, arg, value string) ([]string, error)
}

// runFeatures is the features check (as in clients/scenario.mjs): prompts,
// resources, the template and completion of the conformance example, and a
// prompt that elicits, answered the way the SDK answers a tool's question.
func runFeatures(ctx context.Context, ops featureOps, obs *observed) (string, error) {
	has := func(what string, res any, err error, subs ...string) error {
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		b, _ := json.Marshal(res)
		for _, s := range subs {
			if !strings.Contains(string(b), s) {
				return fmt.Errorf("%s: %s lacks %s", what, brief(string(b)), s)
			}
		}
		return nil
	}
	prompts, err := ops.listPrompts(ctx)
	if err := has("prompts/list", prompts, err, "test_prompt_with_arguments", "test_input_required_result_prompt"); err != nil {
		return "", err
	}
	res, err := ops.getPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "interop-1", "arg2": "interop-2"})
	if err := has("prompts/get", res, err, "interop-1", "interop-2"); err != nil {
		return "", err
	}
	res, err = ops.getPrompt(ctx, "test_prompt_with_image", nil)
	if err := has("prompts/get image", res, err, `"type":"image"`, `"mimeType":"image/png"`); err != nil {
		return "", err
	}
	resources, err := ops.listResources(ctx)
	if err := has("resources/list", resources, err, "test://static-text", "test://static-binary"); err != nil {
		return "", err
	}
	res, err = ops.read(ctx, "test://static-text")
	if err := has("resources/read", res, err, "This is the content of the static text resource."); err != nil {
		return "", err
	}
	res, err = ops.read(ctx, "test://static-binary")
	if err := has("resources/read blob", res, err, `"blob":`); err != nil {
		return "", err
	}
	templates, err := ops.listTemplates(ctx)
	if err := has("resources/templates/list", templates, err, "test://template/{id}/data"); err != nil {
		return "", err
	}
	res, err = ops.read(ctx, "test://template/4242/data")
	if err := has("resources/read template", res, err, "Data for ID: 4242"); err != nil {
		return "", err
	}
	values, err := ops.complete(ctx, "test_prompt_with_arguments", "arg1", "test")
	if err != nil {
		return "", fmt.Errorf("completion/complete: %w", err)
	}
	if !slices.Contains(values, "testValue1") {
		return "", fmt.Errorf("completion/complete: values %v lack testValue1", values)
	}
	obs.mu.Lock()
	before := len(obs.elicitation)
	obs.mu.Unlock()
	res, err = ops.getPrompt(ctx, "test_input_required_result_prompt", nil)
	if err := has("prompts/get that elicits", res, err, "interop-context"); err != nil {
		return "", err
	}
	obs.mu.Lock()
	asked := len(obs.elicitation) > before
	obs.mu.Unlock()
	if !asked {
		return "", fmt.Errorf("prompts/get of test_input_required_result_prompt returned without asking user_context")
	}
	return fmt.Sprintf("%d prompts, %d resources, %d template; get, read (text, blob, template), complete, and a prompt that elicits",
		len(prompts), len(resources), len(templates)), nil
}

func (s goSDKSession) features(ctx context.Context, obs *observed) (string, error) {
	cs := s.cs
	return runFeatures(ctx, featureOps{
		listPrompts: func(ctx context.Context) ([]string, error) {
			var names []string
			for p, err := range cs.Prompts(ctx, nil) {
				if err != nil {
					return nil, err
				}
				names = append(names, p.Name)
			}
			return names, nil
		},
		getPrompt: func(ctx context.Context, name string, args map[string]string) (any, error) {
			return cs.GetPrompt(ctx, &gosdk.GetPromptParams{Name: name, Arguments: args})
		},
		listResources: func(ctx context.Context) ([]string, error) {
			var uris []string
			for r, err := range cs.Resources(ctx, nil) {
				if err != nil {
					return nil, err
				}
				uris = append(uris, r.URI)
			}
			return uris, nil
		},
		read: func(ctx context.Context, uri string) (any, error) {
			return cs.ReadResource(ctx, &gosdk.ReadResourceParams{URI: uri})
		},
		listTemplates: func(ctx context.Context) ([]string, error) {
			var ts []string
			for r, err := range cs.ResourceTemplates(ctx, nil) {
				if err != nil {
					return nil, err
				}
				ts = append(ts, r.URITemplate)
			}
			return ts, nil
		},
		complete: func(ctx context.Context, prompt, arg, value string) ([]string, error) {
			res, err := cs.Complete(ctx, &gosdk.CompleteParams{Ref: &gosdk.CompleteReference{Type: "ref/prompt", Name: prompt},
				Argument: gosdk.CompleteParamsArgument{Name: arg, Value: value}})
			if err != nil {
				return nil, err
			}
			return res.Completion.Values, nil
		},
	}, obs)
}

func (s mcpGoSession) features(ctx context.Context, obs *observed) (string, error) {
	c := s.c
	return runFeatures(ctx, featureOps{
		listPrompts: func(ctx context.Context) ([]string, error) {
			res, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
			if err != nil {
				return nil, err
			}
			var names []string
			for _, p := range res.Prompts {
				names = append(names, p.Name)
			}
			return names, nil
		},
		getPrompt: func(ctx context.Context, name string, args map[string]string) (any, error) {
			req := mcp.GetPromptRequest{}
			req.Params.Name = name
			req.Params.Arguments = args
			return c.GetPrompt(ctx, req)
		},
		listResources: func(ctx context.Context) ([]string, error) {
			res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range res.Resources {
				uris = append(uris, r.URI)
			}
			return uris, nil
		},
		read: func(ctx context.Context, uri string) (any, error) {
			req := mcp.ReadResourceRequest{}
			req.Params.URI = uri
			return c.ReadResource(ctx, req)
		},
		listTemplates: func(ctx context.Context) ([]string, error) {
			res, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
			if err != nil {
				return nil, err
			}
			var ts []string
			for _, r := range res.ResourceTemplates {
				b, _ := json.Marshal(r)
				var v struct {
					URITemplate string `json:"uriTemplate"`
				}
				_ = json.Unmarshal(b, &v)
				ts = append(ts, v.URITemplate)
			}
			return ts, nil
		},
		complete: func(ctx context.Context, prompt, arg, value string) ([]string, error) {
			req := mcp.CompleteRequest{}
			req.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: prompt}
			req.Params.Argument.Name, req.Params.Argument.Value = arg, value
			res, err := c.Complete(ctx, req)
			if err != nil {
				return nil, err
			}
			return res.Completion.Values, nil
		},
	}, obs)
}
