package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// testForm is the form the prompts and resources of these tests ask for.
var testForm = &Elicitation{Name: "topic", Mode: "form", Message: "Which topic?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"topic":{"type":"string"}},"required":["topic"]}`)}

// registerFeatures adds the prompts, resources, template and completions
// of the feature tests.
func registerFeatures(t *testing.T, s *Server) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	text := func(s string) *PromptResult { return &PromptResult{Messages: []PromptMessage{UserMessage(Text(s))}} }
	must(s.AddPrompt(Prompt{Name: "greet",
		Definition: json.RawMessage(`{"name":"greet","description":"Greets","arguments":[{"name":"who","required":true},{"name":"tone"}]}`),
		Handler: func(_ context.Context, _ *Call, args map[string]string) (*PromptResult, error) {
			return text("hello " + args["who"] + args["tone"]), nil
		},
		Complete: map[string]CompletionHandler{"who": func(_ context.Context, r CompletionRequest) (*Completion, error) {
			var out []string
			for _, v := range []string{"alice", "albert", "bob"} {
				if strings.HasPrefix(v, r.Value) {
					out = append(out, v+r.Context["tone"])
				}
			}
			return &Completion{Values: out, Total: len(out)}, nil
		}},
	}))
	must(s.AddPrompt(Prompt{Name: "media",
		Definition: json.RawMessage(`{"name":"media","description":"Mixed content","icons":[{"src":"https://example.com/i.png"}]}`),
		Handler: func(context.Context, *Call, map[string]string) (*PromptResult, error) {
			return &PromptResult{Description: "mixed", Messages: []PromptMessage{
				UserMessage(&ImageContent{Data: []byte{1, 2}, MIMEType: "image/png", Annotations: &Annotations{Audience: []string{"user"}}}),
				AssistantMessage(&EmbeddedResource{Resource: ResourceContents{URI: "test://doc", MIMEType: "text/plain", Text: "doc"}}),
				UserMessage(&ResourceLink{URI: "test://doc", Name: "doc", Icons: []Icon{{Src: "https://example.com/d.png"}}}),
			}}, nil
		}}))
	must(s.AddPrompt(Prompt{Name: "broken", Definition: json.RawMessage(`{"name":"broken","description":"Fails"}`),
		Handler: func(context.Context, *Call, map[string]string) (*PromptResult, error) {
			return nil, errors.New("the template is gone")
		}}))
	must(s.AddPrompt(Prompt{Name: "panics", Definition: json.RawMessage(`{"name":"panics","description":"Panics"}`),
		Handler: func(context.Context, *Call, map[string]string) (*PromptResult, error) { panic("boom") }}))
	must(s.AddPrompt(Prompt{Name: "asks", Definition: json.RawMessage(`{"name":"asks","description":"Elicits"}`),
		Elicitations: []*Elicitation{testForm},
		Handler: func(ctx context.Context, c *Call, _ map[string]string) (*PromptResult, error) {
			var a struct{ Topic string }
			if err := c.Elicit(ctx, testForm, "", &a); err != nil {
				return nil, err
			}
			return text("about " + a.Topic), nil
		}}))
	must(s.AddResource(Resource{URI: "test://doc",
		Definition: json.RawMessage(`{"uri":"test://doc","name":"doc","mimeType":"text/plain","annotations":{"priority":0.5}}`),
		Handler: func(context.Context, *Call, string) (*ResourceResult, error) {
			return &ResourceResult{Contents: []ResourceContents{{MIMEType: "text/plain", Text: "doc body"}}}, nil
		}}))
	must(s.AddResource(Resource{URI: "test://blob",
		Definition: json.RawMessage(`{"uri":"test://blob","name":"blob","mimeType":"application/octet-stream"}`),
		Cache:      &CacheHint{TTL: 30_000_000_000, Scope: CachePublic},
		Handler: func(context.Context, *Call, string) (*ResourceResult, error) {
			return &ResourceResult{Contents: []ResourceContents{{URI: "test://blob", Blob: []byte{0, 1, 2}}}}, nil
		}}))
	must(s.AddResource(Resource{URI: "test://asks",
		Definition:   json.RawMessage(`{"uri":"test://asks","name":"asks"}`),
		Elicitations: []*Elicitation{testForm},
		Handler: func(ctx context.Context, c *Call, uri string) (*ResourceResult, error) {
			var a struct{ Topic string }
			if err := c.Elicit(ctx, testForm, "", &a); err != nil {
				return nil, err
			}
			return &ResourceResult{Contents: []ResourceContents{{Text: a.Topic}}}, nil
		}}))
	must(s.AddResourceTemplate(ResourceTemplate{URITemplate: "notes://{owner}/{+path}{?rev}",
		Definition: json.RawMessage(`{"uriTemplate":"notes://{owner}/{+path}{?rev}","name":"notes"}`),
		Handler: func(_ context.Context, _ *Call, uri string, vars URIVars) (*ResourceResult, error) {
			if vars.Get("owner") == "nobody" {
				return nil, ErrResourceNotFound
			}
			b, _ := json.Marshal(vars)
			return &ResourceResult{Contents: []ResourceContents{{MIMEType: "application/json", Text: string(b)}}}, nil
		},
		List: func(context.Context) ([]ResourceInfo, error) {
			return []ResourceInfo{{URI: "notes://ann/todo.md", Name: "ann's todo"}}, nil
		},
		Complete: map[string]CompletionHandler{"owner": func(context.Context, CompletionRequest) (*Completion, error) {
			return &Completion{Values: []string{"ann"}}, nil
		}},
	}))
}

// TestFeatureParity: prompts, resources and completion give the same
// outcome in every era and transport (the resource-not-found code, which
// differs by era, is TestResourceNotFoundPerEra).
func TestFeatureParity(t *testing.T) {
	noLeaks(t)
	transports := parityTransports(t, nil, registerFeatures)
	for _, tc := range featureParityCases {
		t.Run(tc.name, func(t *testing.T) { checkParity(t, transports, tc.method, tc.params, tc.want) })
	}
}

// featureParityCases are TestFeatureParity's.
var featureParityCases = []parityCase{
	{"prompts/list", "prompts/list", nil, "result"},
	{"prompts/list bad cursor", "prompts/list", map[string]any{"cursor": "nope"}, "-32602"},
	{"get", "prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"who": "ann"}}, "result"},
	{"get with content blocks", "prompts/get", map[string]any{"name": "media"}, "result"},
	{"get missing argument", "prompts/get", map[string]any{"name": "greet"}, "-32602"},
	{"get argument not a string", "prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"who": 1}}, "-32602"},
	{"get unknown prompt", "prompts/get", map[string]any{"name": "nope"}, "-32602"},
	{"get without name", "prompts/get", map[string]any{}, "-32602"},
	{"get handler error", "prompts/get", map[string]any{"name": "broken"}, "-32603"},
	{"get handler panic", "prompts/get", map[string]any{"name": "panics"}, "-32603"},
	{"get elicits without the capability", "prompts/get", map[string]any{"name": "asks"}, "-32021"},
	{"resources/list", "resources/list", nil, "result"},
	{"resources/templates/list", "resources/templates/list", nil, "result"},
	{"read text", "resources/read", map[string]any{"uri": "test://doc"}, "result"},
	{"read blob", "resources/read", map[string]any{"uri": "test://blob"}, "result"},
	{"read template", "resources/read", map[string]any{"uri": "notes://ann/a/b%20c.md?rev=3"}, "result"},
	{"read without uri", "resources/read", map[string]any{}, "-32602"},
	{"read uri not a string", "resources/read", map[string]any{"uri": 3}, "-32602"},
	{"read elicits without the capability", "resources/read", map[string]any{"uri": "test://asks"}, "-32021"},
	{"complete prompt argument", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"},
		"argument": map[string]any{"name": "who", "value": "al"}, "context": map[string]any{"arguments": map[string]any{"tone": "!"}}}, "result"},
	{"complete argument without handler", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"},
		"argument": map[string]any{"name": "tone", "value": ""}}, "result"},
	{"complete template variable", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "notes://{owner}/{+path}{?rev}"},
		"argument": map[string]any{"name": "owner", "value": "a"}}, "result"},
	{"complete fixed resource", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "test://doc"},
		"argument": map[string]any{"name": "x", "value": "a"}}, "result"},
	{"complete unknown prompt", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "nope"},
		"argument": map[string]any{"name": "who", "value": "a"}}, "-32602"},
	{"complete unknown template", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "x://{y}"},
		"argument": map[string]any{"name": "y", "value": "a"}}, "-32602"},
	{"complete bad ref", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/tool"},
		"argument": map[string]any{"name": "y", "value": "a"}}, "-32602"},
	{"complete without argument", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"}}, "-32602"},
}

// TestFeatureResults: the exact results, as every transport returned them
// (TestFeatureParity shows they agree): content blocks, annotations and
// icons pass through, template variables arrive decoded, listers add their
// resources, completions see the context.
func TestFeatureResults(t *testing.T) {
	noLeaks(t)
	tr := parityTransports(t, nil, registerFeatures)[0]
	cases := []struct {
		method string
		params map[string]any
		want   string
	}{
		{"prompts/list", nil, `{"prompts":[{"arguments":[{"name":"who","required":true},{"name":"tone"}],"description":"Greets","name":"greet"},{"description":"Mixed content","icons":[{"src":"https://example.com/i.png"}],"name":"media"},{"description":"Fails","name":"broken"},{"description":"Panics","name":"panics"},{"description":"Elicits","name":"asks"}]}`},
		{"prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"who": "ann", "tone": "!"}}, `{"messages":[{"content":{"text":"hello ann!","type":"text"},"role":"user"}]}`},
		{"prompts/get", map[string]any{"name": "media"}, `{"description":"mixed","messages":[{"content":{"annotations":{"audience":["user"]},"data":"AQI=","mimeType":"image/png","type":"image"},"role":"user"},{"content":{"resource":{"mimeType":"text/plain","text":"doc","uri":"test://doc"},"type":"resource"},"role":"assistant"},{"content":{"icons":[{"src":"https://example.com/d.png"}],"name":"doc","type":"resource_link","uri":"test://doc"},"role":"user"}]}`},
		{"resources/list", nil, `{"resources":[{"annotations":{"priority":0.5},"mimeType":"text/plain","name":"doc","uri":"test://doc"},{"mimeType":"application/octet-stream","name":"blob","uri":"test://blob"},{"name":"asks","uri":"test://asks"},{"name":"ann's todo","uri":"notes://ann/todo.md"}]}`},
		{"resources/templates/list", nil, `{"resourceTemplates":[{"name":"notes","uriTemplate":"notes://{owner}/{+path}{?rev}"}]}`},
		{"resources/read", map[string]any{"uri": "test://doc"}, `{"contents":[{"mimeType":"text/plain","text":"doc body","uri":"test://doc"}]}`},
		{"resources/read", map[string]any{"uri": "test://blob"}, `{"contents":[{"blob":"AAEC","uri":"test://blob"}]}`},
		{"resources/read", map[string]any{"uri": "notes://ann/a/b%20c.md?rev=3"}, `{"contents":[{"mimeType":"application/json","text":"{\"owner\":[\"ann\"],\"path\":[\"a/b c.md\"],\"rev\":[\"3\"]}","uri":"notes://ann/a/b%20c.md?rev=3"}]}`},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"},
			"argument": map[string]any{"name": "who", "value": "al"}, "context": map[string]any{"arguments": map[string]any{"tone": "!"}}}, `{"completion":{"total":2,"values":["alice!","albert!"]}}`},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"},
			"argument": map[string]any{"name": "tone", "value": ""}}, `{"completion":{"values":[]}}`},
	}
	for _, tc := range cases {
		m := tr.send(t, 1, tc.method, tc.params)
		if got := parityOutcome(t, m); got != "result "+tc.want {
			t.Errorf("%s %v:\n got %s\nwant result %s", tc.method, tc.params, got, tc.want)
		}
	}
}

// TestFeaturesAbsent: a server without prompts or resources answers their
// methods with -32601 and advertises neither; with them it advertises
// exactly what it has.
func TestFeaturesAbsent(t *testing.T) {
	noLeaks(t)
	tr := parityTransports(t, []Tool{echoTool()})
	for _, m := range []string{"prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read", "completion/complete"} {
		if r := tr[1].send(t, 1, m, nil); r.Error == nil || r.Error.Code != CodeMethodNotFound {
			t.Errorf("%s without features: %+v, want -32601", m, r.Error)
		}
	}
	s := NewServer(Options{})
	defer s.Close()
	if got := string(s.d.capabilities(Version20251125)); got != `{"logging":{}}` {
		t.Errorf("empty server: %s", got)
	}
	_ = s.AddTool(echoTool())
	_ = s.AddResource(Resource{URI: "a://b", Definition: json.RawMessage(`{"uri":"a://b","name":"b"}`),
		Handler: func(context.Context, *Call, string) (*ResourceResult, error) { return nil, nil }})
	if got := string(s.d.capabilities(Version20251125)); got != `{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"logging":{}}` {
		t.Errorf("tools and a resource: %s", got)
	}
	registerFeatures(t, s)
	if got := string(s.d.capabilities(Version20251125)); got != `{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{},"logging":{}}` {
		t.Errorf("everything: %s", got)
	}
}
